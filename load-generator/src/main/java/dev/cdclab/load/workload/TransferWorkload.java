package dev.cdclab.load.workload;

import dev.cdclab.load.dialect.SqlDialect;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongConsumer;

/**
 * Bank transfers: each transaction moves an amount from one account to another (two updates), so
 * the sum of the balances never changes. A reader of the warehouse that finds another sum has seen
 * part of a source transaction.
 */
public final class TransferWorkload implements Workload {
    /** The table it writes. */
    public static final String TABLE = "transfer_account";

    /** What every account holds after the prefill. */
    public static final BigDecimal OPENING_BALANCE = new BigDecimal("1000.00");

    private final SqlDialect dialect;
    private final WorkloadOptions options;

    public TransferWorkload(SqlDialect dialect, WorkloadOptions options) {
        this.dialect = dialect;
        this.options = options.withDefaults(1_000, 1, 0);
    }

    @Override
    public SqlDialect dialect() {
        return dialect;
    }

    @Override
    public String name() {
        return "transfer";
    }

    @Override
    public String description() {
        return "bank transfers: each transaction moves an amount between two of --prefill accounts"
                + " (default 1,000, opening balance 1000.00 each); the total never changes";
    }

    @Override
    public List<String> tables() {
        return List.of(TABLE);
    }

    @Override
    public void createSchema(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(dialect.dropTable(TABLE));
            s.execute(
                    "CREATE TABLE "
                            + TABLE
                            + " (id "
                            + dialect.integer()
                            + " PRIMARY KEY, balance "
                            + dialect.decimal(14, 2)
                            + ", gen_commit_us "
                            + dialect.bigint()
                            + ")");
        }
    }

    @Override
    public long prefillRows() {
        // a transfer needs two accounts
        return Math.max(2, options.prefillRows());
    }

    @Override
    public long prefill(Connection c, LongConsumer progress) throws SQLException {
        long n = prefillRows();
        long loaded =
                dialect.bulkLoad(
                        c,
                        TABLE,
                        List.of("id", "balance", "gen_commit_us"),
                        () ->
                                new Iterator<>() {
                                    long id = 1;

                                    @Override
                                    public boolean hasNext() {
                                        return id <= n;
                                    }

                                    @Override
                                    public Object[] next() {
                                        return new Object[] {id++, OPENING_BALANCE, null};
                                    }
                                });
        progress.accept(loaded);
        return loaded;
    }

    @Override
    public TxPlan plan(long i) {
        SplittableRandom r = Rand.of(options.seed(), 11, i);
        long accounts = prefillRows();
        long from = 1 + r.nextLong(accounts);
        long to = 1 + r.nextLong(accounts - 1);
        if (to >= from) {
            to++;
        }
        BigDecimal amount = BigDecimal.valueOf(1 + r.nextLong(10_000), 2);
        PlannedStatement debit = move(from, amount.negate());
        PlannedStatement credit = move(to, amount);
        // rows locked in key order, so concurrent transfers never deadlock
        return new TxPlan("transfer", from < to ? List.of(debit, credit) : List.of(credit, debit));
    }

    private static PlannedStatement move(long account, BigDecimal amount) {
        return new PlannedStatement(
                Op.UPDATE,
                "UPDATE " + TABLE + " SET balance = balance + ?, gen_commit_us = ? WHERE id = ?",
                new Object[] {amount, null, account},
                1);
    }
}
