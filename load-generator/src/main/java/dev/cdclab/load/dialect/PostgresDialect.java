package dev.cdclab.load.dialect;

import java.io.IOException;
import java.io.Reader;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Collectors;
import org.postgresql.PGConnection;

/** PostgreSQL: COPY for bulk loads, PL/pgSQL for triggers. */
public final class PostgresDialect implements SqlDialect {

    @Override
    public String name() {
        return "postgresql";
    }

    /** The wire protocol counts a statement's bind parameters in 16 bits. */
    private static final int MAX_PARAMETERS = 65_535;

    /** deadlock_detected (40P01) and serialization_failure (40001), here or in a cause. */
    @Override
    public boolean isRetryable(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s
                    && ("40P01".equals(s.getSQLState()) || "40001".equals(s.getSQLState()))) {
                return true;
            }
        }
        return false;
    }

    @Override
    public int maxRowsPerInsert(int columns) {
        return Math.max(1, Math.min(1000, MAX_PARAMETERS / Math.max(1, columns)));
    }

    @Override
    public String bigint() {
        return "BIGINT";
    }

    @Override
    public String integer() {
        return "INTEGER";
    }

    @Override
    public String varchar(int n) {
        return "VARCHAR(" + n + ")";
    }

    @Override
    public String text() {
        return "TEXT";
    }

    @Override
    public String decimal(int precision, int scale) {
        return "NUMERIC(" + precision + "," + scale + ")";
    }

    @Override
    public String timestamptz() {
        return "TIMESTAMPTZ";
    }

    @Override
    public String float8() {
        return "DOUBLE PRECISION";
    }

    @Override
    public String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }

    @Override
    public String dropTable(String table) {
        return "DROP TABLE IF EXISTS " + table + " CASCADE";
    }

    @Override
    public List<String> updateOnInsertTrigger(
            String table, String keyColumn, String column, String value) {
        String fn = table.replace('.', '_') + "_fill_" + column;
        return List.of(
                "CREATE OR REPLACE FUNCTION "
                        + fn
                        + "() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                        + " IF NEW."
                        + column
                        + " IS NULL THEN UPDATE "
                        + table
                        + " SET "
                        + column
                        + " = "
                        + value
                        + " WHERE "
                        + keyColumn
                        + " = NEW."
                        + keyColumn
                        + "; END IF; RETURN NULL; END $$",
                "DROP TRIGGER IF EXISTS " + fn + " ON " + table,
                "CREATE TRIGGER "
                        + fn
                        + " AFTER INSERT ON "
                        + table
                        + " FOR EACH ROW EXECUTE FUNCTION "
                        + fn
                        + "()");
    }

    @Override
    public long bulkLoad(Connection c, String table, List<String> columns, Iterable<Object[]> rows)
            throws SQLException {
        String sql =
                "COPY "
                        + table
                        + " ("
                        + columns.stream().collect(Collectors.joining(", "))
                        + ") FROM STDIN WITH (FORMAT csv)";
        try {
            return c.unwrap(PGConnection.class)
                    .getCopyAPI()
                    .copyIn(sql, new CsvReader(rows.iterator()));
        } catch (IOException e) {
            throw new SQLException("COPY into " + table + " failed: " + e.getMessage(), e);
        }
    }

    /** Streams rows as CSV without materialising them. */
    private static final class CsvReader extends Reader {
        private final Iterator<Object[]> rows;
        private final StringBuilder buf = new StringBuilder(8192);
        private int pos;

        CsvReader(Iterator<Object[]> rows) {
            this.rows = rows;
        }

        @Override
        public int read(char[] out, int off, int len) {
            if (pos >= buf.length()) {
                buf.setLength(0);
                pos = 0;
                for (int n = 0; n < 256 && rows.hasNext(); n++) {
                    appendRow(rows.next());
                }
                if (buf.length() == 0) {
                    return -1;
                }
            }
            int k = Math.min(len, buf.length() - pos);
            buf.getChars(pos, pos + k, out, off);
            pos += k;
            return k;
        }

        private void appendRow(Object[] row) {
            for (int i = 0; i < row.length; i++) {
                if (i > 0) {
                    buf.append(',');
                }
                Object v = row[i];
                if (v == null) {
                    continue;
                }
                String s = v.toString();
                buf.append('"');
                for (int j = 0; j < s.length(); j++) {
                    char ch = s.charAt(j);
                    if (ch == '"') {
                        buf.append('"');
                    }
                    buf.append(ch);
                }
                buf.append('"');
            }
            buf.append('\n');
        }

        @Override
        public void close() {}
    }
}
