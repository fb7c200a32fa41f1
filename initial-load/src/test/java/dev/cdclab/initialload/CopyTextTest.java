package dev.cdclab.initialload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CopyTextTest {
    private static String[] row(String copy, int columns) throws IOException {
        return CopyText.row(copy.getBytes(StandardCharsets.UTF_8), columns);
    }

    @Test
    void nullsEscapesAndEmptyStringsAreTheirOwn() throws IOException {
        assertThat(row("1\t\\N\t\n", 3)).containsExactly("1", null, "");
        assertThat(row("2\ta\\tb\\\\c\\nd\t\\\\N\n", 3)).containsExactly("2", "a\tb\\c\nd", "\\N");
    }

    @Test
    void octalAndHexEscapesAreBytesOfUtf8() throws IOException {
        assertThat(row("\\303\\251\t\\xc3\\xa9\tcafé\n", 3)).containsExactly("é", "é", "café");
    }

    @Test
    void anEmptyLastColumnAndAWholeNullRowAreKept() throws IOException {
        assertThat(row("\\N\t\\N\n", 2)).containsExactly(null, null);
        assertThat(row("a\t\n", 2)).containsExactly("a", "");
    }

    @Test
    void aRowWithTheWrongNumberOfColumnsIsRefused() {
        assertThatThrownBy(() -> row("1\t2\n", 3))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("3 expected");
        assertThatThrownBy(() -> row("1\t2\t3\t4\n", 3))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("3 expected");
    }

    @Test
    void aLongValueArrivesWhole() throws IOException {
        String big = "x".repeat(200_000);
        assertThat(row("1\t" + big + "\n", 2)[1]).hasSize(200_000);
    }
}
