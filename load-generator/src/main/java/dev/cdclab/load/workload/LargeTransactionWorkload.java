package dev.cdclab.load.workload;

import dev.cdclab.load.dialect.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongConsumer;

/**
 * T1, after "CDC &amp; Streams Performance Test": rows shaped like Oracle's {@code dba_objects}
 * inserted in large transactions of {@code tx.size} rows (10K, 100K, 800K), or the same rows
 * committed one per transaction ({@code T1-single}).
 */
final class LargeTransactionWorkload implements Workload {
    static final String TABLE = "t1_objects";
    private static final List<String> COLUMNS =
            List.of(
                    "object_id",
                    "owner",
                    "object_name",
                    "subobject_name",
                    "data_object_id",
                    "object_type",
                    "created",
                    "last_ddl_time",
                    "ts",
                    "status",
                    "temporary",
                    "generated",
                    "secondary",
                    "gen_commit_us");
    private static final String[] TYPES = {
        "TABLE", "INDEX", "VIEW", "PACKAGE", "SYNONYM", "TRIGGER"
    };

    private final SqlDialect dialect;
    private final WorkloadOptions options;
    private final boolean single;

    LargeTransactionWorkload(SqlDialect dialect, WorkloadOptions options, boolean single) {
        this.dialect = dialect;
        this.options = options.withDefaults(0, 10_000, 0);
        this.single = single;
    }

    @Override
    public SqlDialect dialect() {
        return dialect;
    }

    @Override
    public String name() {
        return single ? "T1-single" : "T1";
    }

    @Override
    public double defaultRate() {
        return single ? 1000 : DEFAULT_ROWS_PER_SECOND / Math.max(1, options.txSize());
    }

    @Override
    public String description() {
        return single
                ? "large-transaction counterpart: the same dba_objects-like rows, committed one per"
                        + " transaction"
                : "large transactions: --tx-size dba_objects-like rows (10K default; 100K, 800K) in"
                        + " one transaction";
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
                            + " (object_id "
                            + dialect.bigint()
                            + " PRIMARY KEY, owner "
                            + dialect.varchar(128)
                            + ", object_name "
                            + dialect.varchar(128)
                            + ", subobject_name "
                            + dialect.varchar(128)
                            + ", data_object_id "
                            + dialect.bigint()
                            + ", object_type "
                            + dialect.varchar(23)
                            + ", created "
                            + dialect.timestamptz()
                            + ", last_ddl_time "
                            + dialect.timestamptz()
                            + ", ts "
                            + dialect.varchar(19)
                            + ", status "
                            + dialect.varchar(7)
                            + ", temporary "
                            + dialect.varchar(1)
                            + ", generated "
                            + dialect.varchar(1)
                            + ", secondary "
                            + dialect.varchar(1)
                            + ", gen_commit_us "
                            + dialect.bigint()
                            + ")");
        }
    }

    @Override
    public long prefillRows() {
        return 0;
    }

    @Override
    public long prefill(Connection c, LongConsumer progress) {
        return 0;
    }

    private Object[] row(long id) {
        SplittableRandom r = Rand.of(options.seed(), 9, id);
        OffsetDateTime created =
                OffsetDateTime.ofInstant(
                        Instant.ofEpochSecond(1_600_000_000L + r.nextLong(100_000_000)),
                        ZoneOffset.UTC);
        return new Object[] {
            id,
            "OWNER_" + r.nextInt(40),
            "OBJ_" + Rand.word(r, 20).toUpperCase(),
            r.nextInt(4) == 0 ? "P" + r.nextInt(100) : null,
            r.nextInt(3) == 0 ? null : id,
            TYPES[r.nextInt(TYPES.length)],
            created,
            created.plusDays(r.nextInt(400)),
            created.toLocalDate() + ":" + "00:00:00",
            "VALID",
            "N",
            "N",
            "N",
            null
        };
    }

    /** Rows of transaction {@code i}: {@code [i * size + 1, (i + 1) * size]}. */
    @Override
    public TxPlan plan(long i) {
        int size = single ? 1 : options.txSize();
        long first = i * size + 1;
        int perStatement = dialect.maxRowsPerInsert(COLUMNS.size());
        int statements = (size + perStatement - 1) / perStatement;
        // generated as the transaction runs: an 800K-row transaction never sits in memory whole
        List<PlannedStatement> lazy =
                new AbstractList<>() {
                    @Override
                    public PlannedStatement get(int s) {
                        long from = first + (long) s * perStatement;
                        int rows = (int) Math.min(perStatement, first + size - from);
                        List<Object[]> values = new ArrayList<>(rows);
                        for (int k = 0; k < rows; k++) {
                            values.add(row(from + k));
                        }
                        return WideTable.insert(TABLE, COLUMNS, values, 0);
                    }

                    @Override
                    public int size() {
                        return statements;
                    }
                };
        return new TxPlan("insert", lazy);
    }
}
