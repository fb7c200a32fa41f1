package dev.cdclab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code cdc-lab sql}'s output: aligned columns, and CSV as RFC 4180 quotes it. */
class SqlCommandTest {
    private static final List<String> COLUMNS = List.of("id", "note");
    private static final List<List<String>> ROWS =
            List.of(
                    List.of("1", "plain"),
                    Arrays.asList("22", null),
                    List.of("3", "a, \"quoted\"\nline"));

    @Test
    void aTableAlignsColumnsAndShowsNullAsEmpty() {
        String out = print(s -> SqlCommand.printTable(s, COLUMNS, ROWS));
        assertThat(out)
                .isEqualTo(
                        "id | note\n"
                                + "---+------------------\n"
                                + "1  | plain\n"
                                + "22 |\n"
                                + "3  | a, \"quoted\"\\nline\n");
    }

    @Test
    void csvQuotesWhatNeedsQuotingAndLeavesNullEmpty() {
        String out = print(s -> SqlCommand.printCsv(s, COLUMNS, ROWS));
        assertThat(out).isEqualTo("id,note\n1,plain\n22,\n3,\"a, \"\"quoted\"\"\nline\"\n");
    }

    private static String print(java.util.function.Consumer<PrintStream> body) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream s = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        body.accept(s);
        return bytes.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n");
    }
}
