package dev.cdclab.lab.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cdclab.change.ColumnSpec;
import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetChangeMode;
import dev.cdclab.change.NetOperation;
import dev.cdclab.change.RowImage;
import dev.cdclab.change.Schemas;
import dev.cdclab.change.SourcePosition;
import dev.cdclab.change.StageTimes;
import dev.cdclab.sink.warehouse.WarehouseWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.LongConsumer;
import org.HdrHistogram.Histogram;

/**
 * The warehouse apply alone, against the size of the table it writes: a table (or several of the
 * same layout) is filled through the writer to a given number of rows, then warehouse transactions
 * of net changes (new keys, updates and deletes of random existing keys, every one newer than the
 * table, dealt to the tables in turn) are applied and timed one by one, as the sink applies what
 * the net-change log holds.
 */
public final class ApplyBench {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The table's columns: a bigint key and four columns of the usual kinds. */
    static final List<ColumnSpec> COLUMNS =
            List.of(
                    new ColumnSpec("id", "INT8", true, false, null, null, "int64", null, null),
                    new ColumnSpec("status", "TEXT", false, true, null, null, "string", null, null),
                    new ColumnSpec("qty", "INT4", false, true, null, null, "int32", null, null),
                    new ColumnSpec("amount", "NUMERIC", false, true, 12, 2, "string", null, null),
                    new ColumnSpec("note", "TEXT", false, true, null, null, "string", null, null));

    private static final Schemas.Described SCHEMA = Schemas.describe(COLUMNS);

    /** Rows per warehouse transaction while filling the table. */
    private static final int FILL_BATCH = 50_000;

    /**
     * What one measurement applies.
     *
     * @param transactions warehouse transactions timed
     * @param warmupTransactions transactions applied first and not timed (the JIT compiles the
     *     writer meanwhile)
     * @param changesPerTransaction net changes in each
     * @param insertShare share of them that insert a new key; the rest update or delete existing
     *     keys, three to one
     * @param seed random seed, so runs are comparable
     */
    public record Settings(
            int transactions,
            int warmupTransactions,
            int changesPerTransaction,
            double insertShare,
            long seed) {
        public Settings {
            if (transactions < 1) {
                throw new IllegalArgumentException("transactions must be at least 1");
            }
            if (warmupTransactions < 0) {
                throw new IllegalArgumentException("warm-up transactions must be 0 or more");
            }
            if (changesPerTransaction < 1) {
                throw new IllegalArgumentException("changes per transaction must be at least 1");
            }
            if (insertShare < 0 || insertShare > 1) {
                throw new IllegalArgumentException("insert share must be between 0 and 1");
            }
        }
    }

    /**
     * One table size's figures.
     *
     * @param tableRows rows in each table when the timed transactions began
     * @param fillSeconds time to fill it
     * @param wallMicros wall time per timed transaction (write and commit), microseconds
     * @param cpuMicros CPU time of the applying thread per timed transaction, microseconds (a
     *     server warehouse's own CPU is not in it)
     * @param endRows rows in each table after the timed transactions (their mean)
     */
    public record Result(
            long tableRows,
            double fillSeconds,
            Histogram wallMicros,
            Histogram cpuMicros,
            long endRows) {}

    /** One table's keys: the next new one, and those deleted. */
    private static final class BenchTable {
        final String name;
        final BitSet deleted = new BitSet();
        long nextKey;
        long live;

        BenchTable(String name) {
            this.name = name;
        }
    }

    private final WarehouseWriter writer;
    private final List<BenchTable> tables = new ArrayList<>();
    private final Settings settings;
    private final SplittableRandom random;
    private long lsn = 1_000;
    private long commitMs = 1_700_000_000_000L;
    private long transaction = 1;

    /**
     * A bench on one table of the warehouse {@code writer} opened.
     *
     * @param table {@code schema.table}, new or empty
     */
    public ApplyBench(WarehouseWriter writer, String table, Settings settings) {
        this(writer, table, 1, settings);
    }

    /**
     * A bench on {@code count} tables of the same layout, each transaction's changes dealt to them
     * in turn (a warehouse transaction of a workload that writes several tables).
     *
     * @param table {@code schema.table}, new or empty; with more than one, {@code table_1}, ...
     */
    public ApplyBench(WarehouseWriter writer, String table, int count, Settings settings) {
        if (count < 1) {
            throw new IllegalArgumentException("tables must be at least 1");
        }
        this.writer = writer;
        for (int i = 1; i <= count; i++) {
            tables.add(new BenchTable(count == 1 ? table : table + "_" + i));
        }
        this.settings = settings;
        this.random = new SplittableRandom(settings.seed());
    }

    private long live() {
        long n = 0;
        for (BenchTable t : tables) {
            n += t.live;
        }
        return n / tables.size();
    }

    /**
     * Fills the table to {@code rows}, then applies and times the transactions.
     *
     * @param filled told the rows written so far while filling
     */
    public Result run(long rows, LongConsumer filled) throws SQLException {
        long t0 = System.nanoTime();
        long written = 0;
        for (BenchTable table : tables) {
            while (table.nextKey < rows) {
                List<NetChange> batch = new ArrayList<>();
                int n = (int) Math.min(FILL_BATCH, rows - table.nextKey);
                for (int i = 0; i < n; i++) {
                    batch.add(insert(table));
                }
                apply(batch);
                written += n;
                filled.accept(written);
            }
        }
        double fillSeconds = (System.nanoTime() - t0) / 1e9;
        long before = live();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Histogram wall = new Histogram(3);
        Histogram cpu = new Histogram(3);
        for (int t = 0; t < settings.warmupTransactions() + settings.transactions(); t++) {
            List<NetChange> batch = transaction();
            long cpu0 = threads.getCurrentThreadCpuTime();
            long w0 = System.nanoTime();
            apply(batch);
            if (t >= settings.warmupTransactions()) {
                wall.recordValue(Math.max(1, (System.nanoTime() - w0) / 1_000));
                cpu.recordValue(Math.max(1, (threads.getCurrentThreadCpuTime() - cpu0) / 1_000));
            }
        }
        return new Result(before, fillSeconds, wall, cpu, live());
    }

    private void apply(List<NetChange> batch) throws SQLException {
        writer.apply(batch, commitMs);
        commitMs++;
        transaction++;
    }

    /** One transaction's net changes, one per key. */
    private List<NetChange> transaction() {
        List<NetChange> batch = new ArrayList<>(settings.changesPerTransaction());
        List<Set<Long>> touched = new ArrayList<>();
        long[] existing = new long[tables.size()];
        for (int t = 0; t < tables.size(); t++) {
            touched.add(new HashSet<>());
            existing[t] = tables.get(t).nextKey;
        }
        for (int i = 0; i < settings.changesPerTransaction(); i++) {
            int t = i % tables.size();
            BenchTable table = tables.get(t);
            if (existing[t] == 0
                    || table.live == 0
                    || random.nextDouble() < settings.insertShare()) {
                batch.add(insert(table));
                continue;
            }
            long key = existingKey(table, existing[t], touched.get(t));
            if (key < 0) {
                batch.add(insert(table));
            } else if (random.nextInt(4) == 0) {
                table.deleted.set((int) key);
                table.live--;
                batch.add(change(table, NetOperation.DELETE, key, null));
            } else {
                batch.add(change(table, NetOperation.UPDATE, key, row(key, "updated")));
            }
        }
        return batch;
    }

    /**
     * A random live key below {@code bound} (the keys before this transaction) not yet changed in
     * it; -1 when a few tries find none.
     */
    private long existingKey(BenchTable table, long bound, Set<Long> touched) {
        for (int tries = 0; tries < 32; tries++) {
            long key = random.nextLong(bound);
            if (!table.deleted.get((int) key) && touched.add(key)) {
                return key;
            }
        }
        return -1;
    }

    private NetChange insert(BenchTable table) {
        long key = table.nextKey++;
        table.live++;
        return change(table, NetOperation.INSERT, key, row(key, "new"));
    }

    private ObjectNode row(long key, String status) {
        ObjectNode n = JSON.createObjectNode();
        n.put("id", key);
        n.put("status", status);
        n.put("qty", (int) (key % 1_000));
        n.put("amount", (key % 100_000) + ".25");
        n.put("note", "note for row " + key);
        return n;
    }

    private NetChange change(BenchTable table, NetOperation op, long key, ObjectNode after) {
        ObjectNode k = JSON.createObjectNode();
        k.put("id", key);
        String position = SourcePosition.postgres(lsn++);
        return new NetChange(
                table.name,
                op,
                k,
                after == null ? null : RowImage.of(after),
                null,
                List.of(),
                SCHEMA,
                commitMs,
                commitMs + 1,
                position,
                position,
                Long.toString(transaction),
                commitMs,
                1,
                false,
                NetChangeMode.ALL,
                new StageTimes(commitMs, commitMs, commitMs, commitMs),
                null);
    }
}
