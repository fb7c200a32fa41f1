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
import java.util.function.Function;
import java.util.function.LongConsumer;

/**
 * The default workload of {@code cdc-lab run}: order processing over four tables, with transactions
 * of several row changes each, as OLTP applications write them.
 *
 * <ul>
 *   <li>new order (40%): insert an order and 1-4 order lines, update the customer's balance
 *   <li>payment (30%): insert a payment for a recent order, update the order and the customer
 *   <li>delivery (15%): update an order and its lines
 *   <li>cancel (15%): delete a recent order and its lines
 * </ul>
 *
 * About 3.7 row changes per transaction: 45% inserts, 41% updates, 14% deletes. Recent orders are
 * often paid or cancelled within the same second they were placed, so some keys change several
 * times inside one net-change interval.
 */
public final class MixWorkload implements Workload {
    static final String CUSTOMER = "mix_customer";
    static final String ORDER = "mix_order";
    static final String LINE = "mix_order_line";
    static final String PAYMENT = "mix_payment";
    private static final List<String> TABLES = List.of(CUSTOMER, ORDER, LINE, PAYMENT);
    private static final String[] METHOD = {"card", "transfer", "voucher", "cash"};

    /** Orders (and customers) prefilled when the caller does not say. */
    public static final long DEFAULT_PREFILL = 10_000;

    private static final int NEW_ORDER = 40;
    private static final int PAYMENT_TX = 70;
    private static final int DELIVERY = 85;

    private final SqlDialect dialect;
    private final WorkloadOptions options;
    private final long orders;

    public MixWorkload(SqlDialect dialect, WorkloadOptions options) {
        this.dialect = dialect;
        this.options = options.withDefaults(DEFAULT_PREFILL, 1, 0);
        this.orders = Math.max(1, this.options.prefillRows());
    }

    @Override
    public SqlDialect dialect() {
        return dialect;
    }

    @Override
    public String name() {
        return "mix";
    }

    @Override
    public String description() {
        return "order processing: new order 40%, payment 30%, delivery 15%, cancel 15%;"
                + " ~3.7 row changes per transaction over 4 tables";
    }

    @Override
    public List<String> tables() {
        return TABLES;
    }

    @Override
    public long prefillRows() {
        long n = options.prefillRows();
        long lines = 0;
        for (long o = 1; o <= n; o++) {
            lines += prefillLines(o);
        }
        return n + n + lines + n / 2;
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
                            + LINE
                            + " (order_id "
                            + d.bigint()
                            + ", line_no "
                            + d.integer()
                            + ", item_id "
                            + d.integer()
                            + ", quantity "
                            + d.integer()
                            + ", price "
                            + d.decimal(10, 2)
                            + ", gen_commit_us "
                            + d.bigint()
                            + ", PRIMARY KEY (order_id, line_no))");
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
        long n = options.prefillRows();
        long total = 0;
        total +=
                dialect.bulkLoad(
                        c,
                        CUSTOMER,
                        List.of("id", "name", "email", "balance", "tier", "gen_commit_us"),
                        rows(n, id -> customer(id, Rand.of(options.seed(), 100, id))));
        progress.accept(total);
        total +=
                dialect.bulkLoad(
                        c,
                        ORDER,
                        List.of(
                                "id",
                                "customer_id",
                                "status",
                                "amount",
                                "items",
                                "created_at",
                                "gen_commit_us"),
                        rows(n, id -> order(id, Rand.of(options.seed(), 101, id))));
        progress.accept(total);
        total +=
                dialect.bulkLoad(
                        c,
                        LINE,
                        List.of(
                                "order_id",
                                "line_no",
                                "item_id",
                                "quantity",
                                "price",
                                "gen_commit_us"),
                        () ->
                                new Iterator<>() {
                                    long order = 1;
                                    int line = 1;

                                    @Override
                                    public boolean hasNext() {
                                        return order <= n;
                                    }

                                    @Override
                                    public Object[] next() {
                                        Object[] row =
                                                line(
                                                        order,
                                                        line,
                                                        Rand.of(
                                                                options.seed(),
                                                                102,
                                                                order * 8 + line));
                                        if (++line > prefillLines(order)) {
                                            line = 1;
                                            order++;
                                        }
                                        return row;
                                    }
                                });
        progress.accept(total);
        total +=
                dialect.bulkLoad(
                        c,
                        PAYMENT,
                        List.of(
                                "id",
                                "order_id",
                                "method",
                                "amount",
                                "reference",
                                "paid_at",
                                "gen_commit_us"),
                        rows(n / 2, id -> payment(id, id * 2, Rand.of(options.seed(), 103, id))));
        progress.accept(total);
        return total;
    }

    private static Iterable<Object[]> rows(long n, Function<Long, Object[]> row) {
        return () ->
                new Iterator<>() {
                    long id = 1;

                    @Override
                    public boolean hasNext() {
                        return id <= n;
                    }

                    @Override
                    public Object[] next() {
                        return row.apply(id++);
                    }
                };
    }

    private int prefillLines(long order) {
        return 1 + Rand.of(options.seed(), 200, order).nextInt(4);
    }

    private static Object[] customer(long id, SplittableRandom r) {
        return new Object[] {
            id,
            "customer " + Rand.word(r, 12),
            Rand.word(r, 10) + "@example.com",
            Rand.money(r, 10_000_000),
            r.nextInt(5),
            null
        };
    }

    private Object[] order(long id, SplittableRandom r) {
        return new Object[] {
            id,
            1 + r.nextLong(orders),
            "new",
            Rand.money(r, 1_000_000),
            1 + r.nextInt(4),
            timestamp(id),
            null
        };
    }

    private static Object[] line(long order, int line, SplittableRandom r) {
        return new Object[] {
            order, line, 1 + r.nextInt(100_000), 1 + r.nextInt(10), Rand.money(r, 100_000), null
        };
    }

    private static Object[] payment(long id, long order, SplittableRandom r) {
        return new Object[] {
            id,
            order,
            METHOD[r.nextInt(METHOD.length)],
            Rand.money(r, 1_000_000),
            "ref-" + Rand.word(r, 16),
            timestamp(id),
            null
        };
    }

    private static OffsetDateTime timestamp(long key) {
        return OffsetDateTime.ofInstant(
                Instant.ofEpochSecond(1_700_000_000L + key), ZoneOffset.UTC);
    }

    /** An order and how many lines it has. */
    private record OrderRef(long id, int lines) {}

    /** The order transaction {@code j} placed, if it was a new order. */
    private OrderRef placedBy(long j) {
        SplittableRandom rj = Rand.of(options.seed(), 1, j);
        if (rj.nextInt(100) >= NEW_ORDER) {
            return null;
        }
        return new OrderRef(orders + j + 1, 1 + rj.nextInt(4));
    }

    /**
     * An order placed by a transaction within {@code window} before {@code i}, found by replaying
     * plans' first draws; else a prefilled order.
     */
    private OrderRef recentOrder(long i, long window, SplittableRandom r) {
        for (int attempt = 0; attempt < 8 && i > 0; attempt++) {
            OrderRef o = placedBy(i - 1 - r.nextLong(Math.min(i, window)));
            if (o != null) {
                return o;
            }
        }
        long id = 1 + r.nextLong(orders);
        return new OrderRef(id, prefillLines(id));
    }

    @Override
    public TxPlan plan(long i) {
        SplittableRandom r = Rand.of(options.seed(), 1, i);
        int dice = r.nextInt(100);
        List<PlannedStatement> st = new ArrayList<>(6);
        String type;
        if (dice < NEW_ORDER) {
            type = "new_order";
            int lines = 1 + r.nextInt(4);
            long order = orders + i + 1;
            long customer = 1 + r.nextLong(orders);
            Object[] o = order(order, r);
            o[1] = customer;
            o[4] = lines;
            st.add(insert(ORDER, 7, o));
            Object[] values = new Object[lines * 6];
            for (int l = 0; l < lines; l++) {
                System.arraycopy(line(order, l + 1, r), 0, values, l * 6, 6);
            }
            st.add(insertRows(LINE, 6, lines, values));
            st.add(
                    update(
                            "UPDATE "
                                    + CUSTOMER
                                    + " SET balance = balance + ?, gen_commit_us = ? WHERE id = ?",
                            Rand.money(r, 100_000),
                            null,
                            customer));
        } else if (dice < PAYMENT_TX) {
            type = "payment";
            OrderRef o = recentOrder(i, 2_000, r);
            Object[] p = payment(orders + i + 1, o.id(), r);
            st.add(insert(PAYMENT, 7, p));
            st.add(
                    update(
                            "UPDATE "
                                    + ORDER
                                    + " SET status = 'paid', gen_commit_us = ? WHERE id = ?",
                            null,
                            o.id()));
            st.add(
                    update(
                            "UPDATE "
                                    + CUSTOMER
                                    + " SET balance = balance - ?, gen_commit_us = ? WHERE id = ?",
                            Rand.money(r, 100_000),
                            null,
                            1 + r.nextLong(orders)));
        } else if (dice < DELIVERY) {
            type = "delivery";
            long id = 1 + r.nextLong(orders);
            st.add(
                    update(
                            "UPDATE "
                                    + ORDER
                                    + " SET status = 'shipped', gen_commit_us = ? WHERE id = ?",
                            null,
                            id));
            st.add(
                    update(
                            "UPDATE "
                                    + LINE
                                    + " SET quantity = quantity + 1, gen_commit_us = ? WHERE order_id = ?",
                            null,
                            id));
        } else {
            type = "cancel";
            OrderRef o = recentOrder(i, 5_000, r);
            st.add(
                    new PlannedStatement(
                            Op.DELETE,
                            "DELETE FROM " + LINE + " WHERE order_id = ?",
                            new Object[] {o.id()},
                            -1));
            st.add(
                    new PlannedStatement(
                            Op.DELETE,
                            "DELETE FROM " + ORDER + " WHERE id = ?",
                            new Object[] {o.id()},
                            -1));
        }
        return new TxPlan(type, st);
    }

    /** An insert of one row whose last column is the generator timestamp. */
    private static PlannedStatement insert(String table, int columns, Object[] values) {
        return insertRows(table, columns, 1, values);
    }

    /** An insert of several rows in one statement; the timestamp is the last column of each row. */
    private static PlannedStatement insertRows(
            String table, int columns, int rows, Object[] values) {
        String one = "(" + "?, ".repeat(columns - 1) + "?)";
        String sql =
                "INSERT INTO "
                        + table
                        + " VALUES "
                        + String.join(", ", java.util.Collections.nCopies(rows, one));
        return new PlannedStatement(Op.INSERT, sql, values, columns - 1, 0, columns);
    }

    /** An update whose parameter after the values is the generator timestamp. */
    private static PlannedStatement update(String sql, Object... params) {
        int ts = -1;
        for (int p = 0; p < params.length; p++) {
            if (params[p] == null) {
                ts = p;
            }
        }
        return new PlannedStatement(Op.UPDATE, sql, params, ts);
    }
}
