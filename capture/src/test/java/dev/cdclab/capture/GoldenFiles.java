package dev.cdclab.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Compares generated text with a file under {@code src/test/resources/golden}; run with {@code
 * -Dgolden.update=true} to rewrite the files after a deliberate change, then review the diff.
 */
final class GoldenFiles {
    private static final Path ROOT = Path.of("src", "test", "resources", "golden");

    private GoldenFiles() {}

    static void assertMatches(String name, String actual) throws IOException {
        Path file = ROOT.resolve(name);
        if (Boolean.getBoolean("golden.update")) {
            Files.createDirectories(file.getParent());
            Files.writeString(file, actual, StandardCharsets.UTF_8);
        }
        assertThat(file).as("golden file %s (create with -Dgolden.update=true)", file).exists();
        assertThat(actual)
                .as("generated text vs %s", file)
                .isEqualTo(Files.readString(file, StandardCharsets.UTF_8));
    }
}
