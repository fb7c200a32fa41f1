package dev.cdclab.load.workload;

import dev.cdclab.load.dialect.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongConsumer;

/**
 * R1, after the replication tests of "Optimizing Replication Agent profile parameters": 30%
 * inserts, 60% updates, 10% deletes, one row per transaction, rows of about 1 KB.
 */
final class ReplicationMixWorkload implements Workload {
    static final String TABLE = "r1_rows";
    private static final int PAYLOAD = 960;

    private final SqlDialect dialect;
    private final WorkloadOptions options;

    ReplicationMixWorkload(SqlDialect dialect, WorkloadOptions options) {
        this.dialect = dialect;
        this.options = options.withDefaults(100_000, 1, 0);
    }

    @Override
    public SqlDialect dialect() {
        return dialect;
    }

    @Override
    public String name() {
        return "R1";
    }

    @Override
    public String description() {
        return "replication mix: 30% insert / 60% update / 10% delete, one row of about 1 KB per"
                + " transaction, 100,000 rows prefilled";
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
                            + dialect.bigint()
                            + " PRIMARY KEY, version "
                            + dialect.integer()
                            + ", updated_at "
                            + dialect.timestamptz()
                            + ", payload "
                            + dialect.varchar(1000)
                            + ", gen_commit_us "
                            + dialect.bigint()
                            + ")");
        }
    }

    @Override
    public long prefillRows() {
        return options.prefillRows();
    }

    @Override
    public long prefill(Connection c, LongConsumer progress) throws SQLException {
        long n = options.prefillRows();
        long loaded =
                dialect.bulkLoad(
                        c,
                        TABLE,
                        List.of("id", "version", "updated_at", "payload", "gen_commit_us"),
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
                                        if (k % 10_000 == 0) {
                                            progress.accept(k);
                                        }
                                        return new Object[] {
                                            k,
                                            1,
                                            timestamp(k),
                                            payload(Rand.of(options.seed(), 400, k)),
                                            null
                                        };
                                    }
                                });
        progress.accept(loaded);
        return loaded;
    }

    private static String payload(SplittableRandom r) {
        return Rand.word(r, PAYLOAD);
    }

    private static OffsetDateTime timestamp(long k) {
        return OffsetDateTime.ofInstant(Instant.ofEpochSecond(1_700_000_000L + k), ZoneOffset.UTC);
    }

    /** A key an earlier transaction inserted, or a prefilled one. */
    private long existing(long i, SplittableRandom r) {
        for (int attempt = 0; attempt < 4 && i > 0; attempt++) {
            long j = i - 1 - r.nextLong(Math.min(i, 100_000));
            if (Rand.of(options.seed(), 8, j).nextInt(100) < 30) {
                return options.prefillRows() + j + 1;
            }
        }
        return 1 + r.nextLong(Math.max(1, options.prefillRows()));
    }

    @Override
    public TxPlan plan(long i) {
        SplittableRandom r = Rand.of(options.seed(), 8, i);
        int dice = r.nextInt(100);
        if (dice < 30) {
            long key = options.prefillRows() + i + 1;
            return new TxPlan(
                    "insert",
                    List.of(
                            new PlannedStatement(
                                    Op.INSERT,
                                    "INSERT INTO "
                                            + TABLE
                                            + " (id, version, updated_at, payload, gen_commit_us) VALUES (?, ?, ?, ?, ?)",
                                    new Object[] {key, 1, timestamp(key), payload(r), null},
                                    4)));
        }
        if (dice < 90) {
            long key = existing(i, r);
            return new TxPlan(
                    "update",
                    List.of(
                            new PlannedStatement(
                                    Op.UPDATE,
                                    "UPDATE "
                                            + TABLE
                                            + " SET version = version + 1, updated_at = ?, payload = ?, gen_commit_us = ? WHERE id = ?",
                                    new Object[] {timestamp(i), payload(r), null, key},
                                    2)));
        }
        return new TxPlan(
                "delete",
                List.of(
                        new PlannedStatement(
                                Op.DELETE,
                                "DELETE FROM " + TABLE + " WHERE id = ?",
                                new Object[] {existing(i, r)},
                                -1)));
    }
}
