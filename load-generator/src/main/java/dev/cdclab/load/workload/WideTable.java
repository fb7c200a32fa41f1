package dev.cdclab.load.workload;

import dev.cdclab.load.dialect.SqlDialect;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The white paper's test tables: {@code wide} has 82 columns (key, 80 data columns of mixed types,
 * the generator timestamp) and {@code narrow} 21. Inserts fill a few of them, as in the paper (8 of
 * the wide table's, 10 of the narrow one's, counting key and timestamp). The wide table has an
 * insert trigger that fills {@code c02} when the insert left it empty.
 */
final class WideTable {
    static final String WIDE = "wide";
    static final String NARROW = "narrow";
    static final int WIDE_DATA_COLUMNS = 80;
    static final int NARROW_DATA_COLUMNS = 19;

    /** The column the insert trigger fills; W1 fills it itself, W4 leaves it to the trigger. */
    static final String TRIGGER_COLUMN = "c02";

    private WideTable() {}

    static String column(int i) {
        return String.format("c%02d", i);
    }

    /** Column type by position: integers, text, decimals, timestamps, big integers in turn. */
    private static String type(SqlDialect d, int i) {
        return switch (i % 5) {
            case 1 -> d.integer();
            case 2 -> d.varchar(40);
            case 3 -> d.decimal(12, 2);
            case 4 -> d.timestamptz();
            default -> d.bigint();
        };
    }

    static Object value(int column, SplittableRandom r, long key) {
        return switch (column % 5) {
            case 1 -> r.nextInt(1_000_000);
            case 2 -> "v" + Rand.word(r, 12);
            case 3 -> BigDecimal.valueOf(r.nextLong(10_000_000), 2);
            case 4 ->
                    OffsetDateTime.ofInstant(
                            Instant.ofEpochSecond(1_700_000_000L + key), ZoneOffset.UTC);
            default -> r.nextLong(1_000_000_000L);
        };
    }

    static void create(Connection c, SqlDialect d, String table, int dataColumns, boolean trigger)
            throws SQLException {
        StringBuilder ddl =
                new StringBuilder("CREATE TABLE " + table + " (id " + d.bigint() + " PRIMARY KEY");
        for (int i = 1; i <= dataColumns; i++) {
            ddl.append(", ").append(column(i)).append(' ').append(type(d, i));
        }
        ddl.append(", gen_commit_us ").append(d.bigint()).append(')');
        try (Statement s = c.createStatement()) {
            s.execute(d.dropTable(table));
            s.execute(ddl.toString());
            if (trigger) {
                for (String t :
                        d.updateOnInsertTrigger(
                                table, "id", TRIGGER_COLUMN, "'filled by trigger'")) {
                    s.execute(t);
                }
            }
        }
    }

    /** Columns an insert fills: the key, {@code filled - 2} data columns, the timestamp. */
    static List<String> insertColumns(int filled, boolean fillTriggerColumn) {
        List<String> cols = new ArrayList<>();
        cols.add("id");
        int data = Math.max(1, filled - 2);
        int i = 1;
        while (cols.size() - 1 < data) {
            String c = column(i++);
            if (c.equals(TRIGGER_COLUMN) && !fillTriggerColumn) {
                continue;
            }
            cols.add(c);
        }
        cols.add("gen_commit_us");
        return cols;
    }

    /** Values of one inserted row, timestamp slot null. */
    static Object[] row(List<String> columns, long key, SplittableRandom r) {
        Object[] v = new Object[columns.size()];
        v[0] = key;
        for (int i = 1; i < columns.size() - 1; i++) {
            v[i] = value(Integer.parseInt(columns.get(i).substring(1)), r, key);
        }
        return v;
    }

    /** A multi-row insert statement of {@code rows} rows, timestamps filled at execution. */
    static PlannedStatement insert(
            String table, List<String> columns, List<Object[]> rows, int triggered) {
        String one = "(" + "?, ".repeat(columns.size() - 1) + "?)";
        StringBuilder sql =
                new StringBuilder(
                        "INSERT INTO " + table + " (" + String.join(", ", columns) + ") VALUES ");
        Object[] params = new Object[rows.size() * columns.size()];
        for (int r = 0; r < rows.size(); r++) {
            if (r > 0) {
                sql.append(", ");
            }
            sql.append(one);
            System.arraycopy(rows.get(r), 0, params, r * columns.size(), columns.size());
        }
        return new PlannedStatement(
                Op.INSERT, sql.toString(), params, columns.size() - 1, triggered, columns.size());
    }

    /** Rows 1..n for COPY, filling {@code columns}. */
    static Iterable<Object[]> prefillRows(List<String> columns, long n, long seed, long stream) {
        return () ->
                new Iterator<>() {
                    long key = 1;

                    @Override
                    public boolean hasNext() {
                        return key <= n;
                    }

                    @Override
                    public Object[] next() {
                        long k = key++;
                        return row(columns, k, Rand.of(seed, stream, k));
                    }
                };
    }
}
