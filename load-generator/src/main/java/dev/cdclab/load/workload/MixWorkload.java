package dev.cdclab.load.workload;

import dev.cdclab.load.dialect.SqlDialect;
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
import java.util.function.LongConsumer;

/**
 * The default workload of {@code cdc-lab run}: inserts (30%), updates (55%) and deletes (15%) of
 * single rows spread over three small OLTP tables, one row change per transaction.
 */
public final class MixWorkload implements Workload {
    static final String CUSTOMER = "mix_customer";
    static final String ORDER = "mix_order";
    static final String PAYMENT = "mix_payment";
    private static final List<String> TABLES = List.of(CUSTOMER, ORDER, PAYMENT);
    private static final String[] STATUS = {"new", "paid", "packed", "shipped", "closed"};
    private static final String[] METHOD = {"card", "transfer", "voucher", "cash"};

    private final SqlDialect dialect;
    private final WorkloadOptions options;

    public MixWorkload(SqlDialect dialect, WorkloadOptions options) {
        this.dialect = dialect;
        this.options = options;
    }

    @Override
    public String name() {
        return "mix";
    }

    @Override
    public String description() {
        return "30% insert / 55% update / 15% delete of single rows over three OLTP tables";
    }

    @Override
    public List<String> tables() {
        return TABLES;
    }

    @Override
    public long prefillRows() {
        return options.prefillRows() * TABLES.size();
    }

    @Override
    public void createSchema(Connection c) throws SQLException {
        SqlDialect d = dialect;
        try (Statement s = c.createStatement()) {
            for (String t : TABLES) {
                s.execute(d.dropTable(t));
            }
            s.execute(
                    "CREATE TABLE "
                            + CUSTOMER
                            + " (id "
                            + d.bigint()
                            + " PRIMARY KEY, name "
                            + d.varchar(64)
                            + ", email "
                            + d.varchar(128)
                            + ", balance "
                            + d.decimal(12, 2)
                            + ", tier "
                            + d.integer()
                            + ", gen_commit_us "
                            + d.bigint()
                            + ")");
            s.execute(
                    "CREATE TABLE "
                            + ORDER
                            + " (id "
                            + d.bigint()
                            + " PRIMARY KEY, customer_id "
                            + d.bigint()
                            + ", status "
                            + d.varchar(16)
                            + ", amount "
                            + d.decimal(12, 2)
                            + ", items "
                            + d.integer()
                            + ", created_at "
                            + d.timestamptz()
                            + ", gen_commit_us "
                            + d.bigint()
                            + ")");
            s.execute(
                    "CREATE TABLE "
                            + PAYMENT
                            + " (id "
                            + d.bigint()
                            + " PRIMARY KEY, order_id "
                            + d.bigint()
                            + ", method "
                            + d.varchar(16)
                            + ", amount "
                            + d.decimal(12, 2)
                            + ", reference "
                            + d.varchar(64)
                            + ", paid_at "
                            + d.timestamptz()
                            + ", gen_commit_us "
                            + d.bigint()
                            + ")");
        }
    }

    @Override
    public long prefill(Connection c, LongConsumer progress) throws SQLException {
        long total = 0;
        long n = options.prefillRows();
        for (int t = 0; t < TABLES.size(); t++) {
            final int table = t;
            final long base = total;
            Iterable<Object[]> rows =
                    () ->
                            new Iterator<>() {
                                long key = 1;

                                @Override
                                public boolean hasNext() {
                                    return key <= n;
                                }

                                @Override
                                public Object[] next() {
                                    SplittableRandom r = Rand.of(options.seed(), 100 + table, key);
                                    Object[] row = withTimestamp(rowValues(table, key, r), null);
                                    if (key % 10_000 == 0) {
                                        progress.accept(base + key);
                                    }
                                    key++;
                                    return row;
                                }
                            };
            total += dialect.bulkLoad(c, TABLES.get(t), columns(table), rows);
            progress.accept(total);
        }
        return total;
    }

    private static List<String> columns(int table) {
        return switch (table) {
            case 0 -> List.of("id", "name", "email", "balance", "tier", "gen_commit_us");
            case 1 ->
                    List.of(
                            "id",
                            "customer_id",
                            "status",
                            "amount",
                            "items",
                            "created_at",
                            "gen_commit_us");
            default ->
                    List.of(
                            "id",
                            "order_id",
                            "method",
                            "amount",
                            "reference",
                            "paid_at",
                            "gen_commit_us");
        };
    }

    private static Object[] rowValues(int table, long key, SplittableRandom r) {
        return switch (table) {
            case 0 ->
                    new Object[] {
                        key,
                        "customer " + Rand.word(r, 12),
                        Rand.word(r, 10) + "@example.com",
                        Rand.money(r, 10_000_000),
                        r.nextInt(5)
                    };
            case 1 ->
                    new Object[] {
                        key,
                        1 + r.nextLong(Math.max(1, key)),
                        STATUS[r.nextInt(STATUS.length)],
                        Rand.money(r, 1_000_000),
                        1 + r.nextInt(20),
                        timestamp(key)
                    };
            default ->
                    new Object[] {
                        key,
                        1 + r.nextLong(Math.max(1, key)),
                        METHOD[r.nextInt(METHOD.length)],
                        Rand.money(r, 1_000_000),
                        "ref-" + Rand.word(r, 16),
                        timestamp(key)
                    };
        };
    }

    private static OffsetDateTime timestamp(long key) {
        return OffsetDateTime.ofInstant(
                Instant.ofEpochSecond(1_700_000_000L + key), ZoneOffset.UTC);
    }

    private static Object[] withTimestamp(Object[] values, Object ts) {
        Object[] out = new Object[values.length + 1];
        System.arraycopy(values, 0, out, 0, values.length);
        out[values.length] = ts;
        return out;
    }

    @Override
    public TxPlan plan(long i) {
        SplittableRandom r = Rand.of(options.seed(), 1, i);
        int table = r.nextInt(TABLES.size());
        String name = TABLES.get(table);
        int dice = r.nextInt(100);
        long keySpace = options.prefillRows() + i;
        List<PlannedStatement> st = new ArrayList<>(1);
        String type;
        if (dice < 30) {
            type = "insert";
            long key = options.prefillRows() + i + 1;
            Object[] values = withTimestamp(rowValues(table, key, r), null);
            List<String> cols = columns(table);
            st.add(
                    new PlannedStatement(
                            Op.INSERT,
                            "INSERT INTO "
                                    + name
                                    + " ("
                                    + String.join(", ", cols)
                                    + ") VALUES ("
                                    + "?, ".repeat(cols.size() - 1)
                                    + "?)",
                            values,
                            values.length - 1));
        } else if (dice < 85) {
            type = "update";
            long key = 1 + r.nextLong(keySpace);
            String sql;
            Object[] params;
            switch (table) {
                case 0 -> {
                    sql =
                            "UPDATE "
                                    + name
                                    + " SET balance = ?, tier = ?, gen_commit_us = ? WHERE id = ?";
                    params = new Object[] {Rand.money(r, 10_000_000), r.nextInt(5), null, key};
                }
                case 1 -> {
                    sql = "UPDATE " + name + " SET status = ?, gen_commit_us = ? WHERE id = ?";
                    params = new Object[] {STATUS[r.nextInt(STATUS.length)], null, key};
                }
                default -> {
                    sql =
                            "UPDATE "
                                    + name
                                    + " SET amount = ?, reference = ?, gen_commit_us = ? WHERE id"
                                    + " = ?";
                    params =
                            new Object[] {
                                Rand.money(r, 1_000_000), "ref-" + Rand.word(r, 16), null, key
                            };
                }
            }
            st.add(new PlannedStatement(Op.UPDATE, sql, params, params.length - 2));
        } else {
            type = "delete";
            long key = 1 + r.nextLong(keySpace);
            st.add(
                    new PlannedStatement(
                            Op.DELETE,
                            "DELETE FROM " + name + " WHERE id = ?",
                            new Object[] {key},
                            -1));
        }
        return new TxPlan(type, st);
    }
}
