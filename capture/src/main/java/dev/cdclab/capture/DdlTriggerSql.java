package dev.cdclab.capture;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The SQL of the event trigger functions capture installs on a PostgreSQL source. */
final class DdlTriggerSql {
    private DdlTriggerSql() {}

    /** The function that logs renames, and column renames, additions and type changes. */
    static String captureDdl() {
        return resource("capture-ddl.sql");
    }

    private static String resource(String name) {
        try (InputStream in = DdlTriggerSql.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            String sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            // the leading comment is the file's, not the function's
            return sql.substring(sql.indexOf("CREATE OR REPLACE FUNCTION"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
