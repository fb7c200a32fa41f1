package dev.cdclab.load.workload;

import dev.cdclab.load.dialect.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * The white paper's synthetic workloads 1 to 7, all on its wide (or narrow) table; subclasses
 * differ only in the transactions they plan.
 */
abstract class WideTableWorkload implements Workload {
    protected final SqlDialect dialect;
    protected final WorkloadOptions options;
    protected final String table;
    protected final int dataColumns;
    protected final List<String> prefillColumns;
    private final String name;
    private final String description;

    WideTableWorkload(
            SqlDialect dialect,
            WorkloadOptions options,
            String name,
            String description,
            boolean narrow,
            long defaultPrefill,
            int defaultTxSize) {
        this.dialect = dialect;
        this.options = options.withDefaults(defaultPrefill, defaultTxSize, narrow ? 10 : 8);
        this.name = name;
        this.description = description;
        this.table = narrow ? WideTable.NARROW : WideTable.WIDE;
        this.dataColumns = narrow ? WideTable.NARROW_DATA_COLUMNS : WideTable.WIDE_DATA_COLUMNS;
        this.prefillColumns = WideTable.insertColumns(this.options.filledColumns(), true);
    }

    @Override
    public SqlDialect dialect() {
        return dialect;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public List<String> tables() {
        return List.of(table);
    }

    @Override
    public void createSchema(Connection c) throws SQLException {
        WideTable.create(c, dialect, table, dataColumns, table.equals(WideTable.WIDE));
    }

    @Override
    public long prefillRows() {
        return options.prefillRows();
    }

    @Override
    public long prefill(Connection c, LongConsumer progress) throws SQLException {
        long n = options.prefillRows();
        if (n == 0) {
            return 0;
        }
        long loaded =
                dialect.bulkLoad(
                        c,
                        table,
                        prefillColumns,
                        () -> {
                            var it =
                                    WideTable.prefillRows(prefillColumns, n, options.seed(), 300)
                                            .iterator();
                            return new java.util.Iterator<Object[]>() {
                                long done;

                                @Override
                                public boolean hasNext() {
                                    return it.hasNext();
                                }

                                @Override
                                public Object[] next() {
                                    if (++done % 10_000 == 0) {
                                        progress.accept(done);
                                    }
                                    return it.next();
                                }
                            };
                        });
        progress.accept(loaded);
        return loaded;
    }

    /** A random existing (prefilled) key. */
    protected long existingKey(java.util.SplittableRandom r) {
        return 1 + r.nextLong(Math.max(1, options.prefillRows()));
    }
}
