package dev.cdclab.load.workload;

import dev.cdclab.load.dialect.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongConsumer;

/**
 * Update-heavy: every transaction updates one row among a few hot keys ({@code hot.keys}, default
 * 100), the case net changes are made for: many raw changes per key and interval.
 */
public final class HotWorkload implements Workload {
    static final String TABLE = "hot_counter";

    private final SqlDialect dialect;
    private final WorkloadOptions options;

    public HotWorkload(SqlDialect dialect, WorkloadOptions options) {
        this.dialect = dialect;
        this.options = options.withDefaults(options.hotKeys(), 1, 0);
    }

    @Override
    public SqlDialect dialect() {
        return dialect;
    }

    @Override
    public String name() {
        return "hot";
    }

    @Override
    public String description() {
        return "update-heavy: each transaction updates one of a few hot keys (--hot-keys, default"
                + " 100)";
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
                            + " PRIMARY KEY, hits "
                            + dialect.bigint()
                            + ", last_value "
                            + dialect.decimal(12, 2)
                            + ", label "
                            + dialect.varchar(32)
                            + ", gen_commit_us "
                            + dialect.bigint()
                            + ")");
        }
    }

    @Override
    public long prefillRows() {
        return Math.max(1, options.prefillRows());
    }

    @Override
    public long prefill(Connection c, LongConsumer progress) throws SQLException {
        long n = prefillRows();
        long loaded =
                dialect.bulkLoad(
                        c,
                        TABLE,
                        List.of("id", "hits", "last_value", "label", "gen_commit_us"),
                        () ->
                                new Iterator<>() {
                                    long id = 1;

                                    @Override
                                    public boolean hasNext() {
                                        return id <= n;
                                    }

                                    @Override
                                    public Object[] next() {
                                        long k = id++;
                                        return new Object[] {k, 0, "0.00", "key " + k, null};
                                    }
                                });
        progress.accept(loaded);
        return loaded;
    }

    @Override
    public TxPlan plan(long i) {
        SplittableRandom r = Rand.of(options.seed(), 7, i);
        long key = 1 + r.nextLong(prefillRows());
        return new TxPlan(
                "update",
                List.of(
                        new PlannedStatement(
                                Op.UPDATE,
                                "UPDATE "
                                        + TABLE
                                        + " SET hits = hits + 1, last_value = ?, gen_commit_us = ?"
                                        + " WHERE id = ?",
                                new Object[] {Rand.money(r, 1_000_000), null, key},
                                1)));
    }
}
