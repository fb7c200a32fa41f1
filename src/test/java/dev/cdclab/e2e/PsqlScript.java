package dev.cdclab.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.postgresql.PGConnection;

/**
 * Runs a SQL file as {@code psql -v ON_ERROR_STOP=1 -f} would (a dump of {@code pg_dump}'s plain
 * format): statements split at semicolons outside quotes, dollar quotes and comments, each run as
 * it is, and {@code COPY ... FROM stdin;} followed by its data up to {@code \.}, copied in.
 */
final class PsqlScript {
    private PsqlScript() {}

    /** Runs {@code script} on {@code c} (auto-commit, statement by statement). */
    static void run(Connection c, String script) throws SQLException, IOException {
        BufferedReader in = new BufferedReader(new StringReader(script));
        StringBuilder sql = new StringBuilder();
        Scanner state = new Scanner();
        String line;
        try (Statement s = c.createStatement()) {
            while ((line = in.readLine()) != null) {
                if (sql.length() == 0 && (line.isBlank() || line.startsWith("--"))) {
                    continue;
                }
                sql.append(line).append('\n');
                if (!state.endsStatement(line)) {
                    continue;
                }
                String statement = sql.toString().strip();
                sql.setLength(0);
                if (statement.regionMatches(true, 0, "COPY ", 0, 5)
                        && statement.toLowerCase(java.util.Locale.ROOT).endsWith("from stdin;")) {
                    StringBuilder data = new StringBuilder();
                    String row;
                    while ((row = in.readLine()) != null && !row.equals("\\.")) {
                        data.append(row).append('\n');
                    }
                    c.unwrap(PGConnection.class)
                            .getCopyAPI()
                            .copyIn(
                                    statement.substring(0, statement.length() - 1),
                                    new StringReader(data.toString()));
                } else {
                    s.execute(statement);
                }
            }
        }
        if (!sql.toString().isBlank()) {
            throw new IllegalArgumentException("the script ends inside a statement: " + sql);
        }
    }

    /** Follows quotes, dollar quotes and comments over lines; says where a statement ends. */
    private static final class Scanner {
        private char quote;
        private String dollarTag;

        boolean endsStatement(String line) {
            boolean ends = false;
            int i = 0;
            while (i < line.length()) {
                char ch = line.charAt(i);
                if (dollarTag != null) {
                    if (line.startsWith(dollarTag, i)) {
                        i += dollarTag.length();
                        dollarTag = null;
                    } else {
                        i++;
                    }
                    continue;
                }
                if (quote != 0) {
                    if (ch == quote) {
                        quote = 0;
                    }
                    i++;
                    continue;
                }
                if (ch == '-' && line.startsWith("--", i)) {
                    break;
                }
                if (ch == '\'' || ch == '"') {
                    quote = ch;
                } else if (ch == '$') {
                    int end = line.indexOf('$', i + 1);
                    if (end > 0 && line.substring(i + 1, end).matches("[A-Za-z_0-9]*")) {
                        dollarTag = line.substring(i, end + 1);
                        i = end + 1;
                        continue;
                    }
                } else if (ch == ';') {
                    ends = true;
                    i++;
                    continue;
                }
                if (!Character.isWhitespace(ch)) {
                    ends = false;
                }
                i++;
            }
            return ends && quote == 0 && dollarTag == null;
        }
    }
}
