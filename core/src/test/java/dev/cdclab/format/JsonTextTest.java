package dev.cdclab.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JsonTextTest {

    @Test
    void keysKeepTheirOrderAndTheTextIsIndented() throws IOException {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("z", 1);
        m.put("a", List.of("x", 2.5));
        String text = JsonText.of(m);
        assertThat(text).contains("\n").startsWith("{").containsSubsequence("\"z\"", "\"a\"");
        assertThat(JsonText.read(text).path("a").get(1).asDouble()).isEqualTo(2.5);
    }

    @Test
    void aFileIsReplacedWholeAndNoTemporaryFileStays(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("sub/report.json");
        JsonText.write(f, Map.of("n", 1));
        JsonText.write(f, Map.of("n", 2));
        assertThat(JsonText.read(f).path("n").asInt()).isEqualTo(2);
        try (var files = Files.list(f.getParent())) {
            assertThat(files).containsExactly(f);
        }
    }

    @Test
    void textThatIsNotJsonSaysSo() {
        assertThatThrownBy(() -> JsonText.parse("<html>")).hasMessageStartingWith("not JSON");
    }
}
