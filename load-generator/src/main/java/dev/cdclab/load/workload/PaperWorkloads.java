package dev.cdclab.load.workload;

import dev.cdclab.load.dialect.SqlDialect;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The synthetic workloads of "Tuning the Performance of Change Data Capture in SQL Server 2008",
 * named as the paper numbers them.
 */
final class PaperWorkloads {
    private PaperWorkloads() {}

    /** Workload 1: one row per transaction into the wide table, 8 columns filled. */
    static Workload w1(SqlDialect d, WorkloadOptions o) {
        return new SmallInsert(
                d,
                o,
                "W1",
                "small insert: one row per transaction into the 82-column table (8 columns filled), 390,000 rows prefilled",
                false,
                390_000,
                true);
    }

    /** Workload 2: one row per transaction into the narrow table, 10 columns filled. */
    static Workload w2(SqlDialect d, WorkloadOptions o) {
        return new SmallInsert(
                d,
                o,
                "W2",
                "small insert, narrow: one row per transaction into a 21-column table (10 filled), 666,000 rows prefilled",
                true,
                666_000,
                true);
    }

    /** Workload 4: W1's insert, leaving the column the insert trigger fills. */
    static Workload w4(SqlDialect d, WorkloadOptions o) {
        return new SmallInsert(
                d,
                o,
                "W4",
                "insert with trigger: W1's insert; a trigger updates a column of the new row in the same transaction",
                false,
                390_000,
                false);
    }

    /** W1, W2 and W4. */
    static final class SmallInsert extends WideTableWorkload {
        private final List<String> columns;
        private final boolean fillTriggerColumn;

        SmallInsert(
                SqlDialect d,
                WorkloadOptions o,
                String name,
                String description,
                boolean narrow,
                long prefill,
                boolean fillTriggerColumn) {
            super(d, o, name, description, narrow, prefill, 1);
            this.fillTriggerColumn = fillTriggerColumn;
            this.columns = WideTable.insertColumns(options.filledColumns(), fillTriggerColumn);
        }

        @Override
        public TxPlan plan(long i) {
            SplittableRandom r = Rand.of(options.seed(), 2, i);
            long key = options.prefillRows() + i + 1;
            Object[] row = WideTable.row(columns, key, r);
            boolean trigger = table.equals(WideTable.WIDE) && !fillTriggerColumn;
            return new TxPlan(
                    "insert",
                    List.of(
                            WideTable.insert(
                                    table, columns, List.<Object[]>of(row), trigger ? 1 : 0)));
        }
    }

    /** Workload 3: update three columns of one row of the wide table. */
    static final class SmallUpdate extends WideTableWorkload {
        SmallUpdate(SqlDialect d, WorkloadOptions o) {
            super(
                    d,
                    o,
                    "W3",
                    "small update: update 3 columns of one row of the 82-column table per transaction",
                    false,
                    390_000,
                    1);
        }

        @Override
        public TxPlan plan(long i) {
            SplittableRandom r = Rand.of(options.seed(), 3, i);
            return new TxPlan("update", List.of(update(r, existingKey(r))));
        }

        PlannedStatement update(SplittableRandom r, long key) {
            return new PlannedStatement(
                    Op.UPDATE,
                    "UPDATE "
                            + table
                            + " SET c01 = ?, c03 = ?, c05 = ?, gen_commit_us = ? WHERE id = ?",
                    new Object[] {
                        WideTable.value(1, r, key),
                        WideTable.value(3, r, key),
                        WideTable.value(5, r, key),
                        null,
                        key
                    },
                    3);
        }
    }

    /** Workload 5: a mix of inserts, updates and selects on the wide table. */
    static final class Mixed extends WideTableWorkload {
        private final List<String> columns = WideTable.insertColumns(options.filledColumns(), true);
        private final SmallUpdate updates;

        Mixed(SqlDialect d, WorkloadOptions o) {
            super(
                    d,
                    o,
                    "W5",
                    "mix of inserts (30%), updates of 3 columns (30%) and selects by key (40%) on the 82-column table",
                    false,
                    390_000,
                    1);
            this.updates = new SmallUpdate(d, o);
        }

        @Override
        public TxPlan plan(long i) {
            SplittableRandom r = Rand.of(options.seed(), 5, i);
            int dice = r.nextInt(100);
            if (dice < 40) {
                return new TxPlan(
                        "select",
                        List.of(
                                new PlannedStatement(
                                        Op.SELECT,
                                        "SELECT * FROM " + table + " WHERE id = ?",
                                        new Object[] {existingKey(r)},
                                        -1)));
            }
            if (dice < 70) {
                long key = options.prefillRows() + i + 1;
                return new TxPlan(
                        "insert",
                        List.of(
                                WideTable.insert(
                                        table,
                                        columns,
                                        List.<Object[]>of(WideTable.row(columns, key, r)),
                                        0)));
            }
            return new TxPlan("update", List.of(updates.update(r, existingKey(r))));
        }
    }

    /** Workload 6: updates of 10 to 2,000 consecutive rows per transaction. */
    static final class LargeUpdate extends WideTableWorkload {
        LargeUpdate(SqlDialect d, WorkloadOptions o) {
            super(
                    d,
                    o,
                    "W6",
                    "large update: 10-2,000 rows of the 82-column table per transaction",
                    false,
                    390_000,
                    2000);
        }

        @Override
        public double defaultRate() {
            return DEFAULT_ROWS_PER_SECOND / ((10 + Math.max(10, options.txSize())) / 2.0);
        }

        @Override
        public TxPlan plan(long i) {
            SplittableRandom r = Rand.of(options.seed(), 6, i);
            int max = Math.max(10, options.txSize());
            long n = 10 + r.nextInt(max - 9);
            long start = 1 + r.nextLong(Math.max(1, options.prefillRows() - n + 1));
            return new TxPlan(
                    "update",
                    List.of(
                            new PlannedStatement(
                                    Op.UPDATE,
                                    "UPDATE "
                                            + table
                                            + " SET c06 = c06 + 1, gen_commit_us = ? WHERE id BETWEEN ? AND ?",
                                    new Object[] {null, start, start + n - 1},
                                    0)));
        }
    }

    /** Workload 7: 1,000 rows per transaction into the wide table. */
    static final class LargeInsert extends WideTableWorkload {
        private static final int ROWS_PER_STATEMENT = 100;
        private final List<String> columns = WideTable.insertColumns(options.filledColumns(), true);

        LargeInsert(SqlDialect d, WorkloadOptions o) {
            super(
                    d,
                    o,
                    "W7",
                    "large insert: 1,000 rows (--tx-size) per transaction into the 82-column table, 8 columns filled",
                    false,
                    390_000,
                    1000);
        }

        @Override
        public double defaultRate() {
            return DEFAULT_ROWS_PER_SECOND / Math.max(1, options.txSize());
        }

        @Override
        public TxPlan plan(long i) {
            SplittableRandom r = Rand.of(options.seed(), 7, i);
            int size = options.txSize();
            long first = options.prefillRows() + i * size + 1;
            List<PlannedStatement> st = new ArrayList<>();
            int perStatement =
                    Math.min(ROWS_PER_STATEMENT, dialect.maxRowsPerInsert(columns.size()));
            for (int done = 0; done < size; done += perStatement) {
                List<Object[]> rows = new ArrayList<>();
                for (int k = done; k < Math.min(size, done + perStatement); k++) {
                    rows.add(WideTable.row(columns, first + k, r));
                }
                st.add(WideTable.insert(table, columns, rows, 0));
            }
            return new TxPlan("insert", st);
        }
    }
}
