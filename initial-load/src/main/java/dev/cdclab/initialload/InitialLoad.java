package dev.cdclab.initialload;

import dev.cdclab.change.ColumnSpec;
import dev.cdclab.change.SourcePosition;
import dev.cdclab.sink.warehouse.ColumnKind;
import dev.cdclab.sink.warehouse.SourceColumnType;
import dev.cdclab.sink.warehouse.WarehouseWriter;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyOut;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The initial load: every table of the captured schemas, read with {@code COPY ... TO STDOUT} in
 * transactions that import the snapshot the replication slot exported, written into the warehouse
 * in one warehouse transaction. The warehouse shows the tables as the source had them at the slot's
 * consistent point, all at once; the stream begins there.
 */
public final class InitialLoad {
    private static final Logger LOG = LoggerFactory.getLogger(InitialLoad.class);

    /** The position of every loaded row: before every change the log delivers after the slot. */
    public static final String POSITION = SourcePosition.postgres(1, 1);

    private static final int CHUNK_ROWS = 50_000;
    private static final int BATCH_ROWS = 1_024;
    private static final String[][] END = new String[0][];

    /**
     * What was loaded.
     *
     * @param tables per table ({@code schema.table}), rows and seconds
     * @param seconds the whole load, reading to commit
     * @param startedNanos when it began ({@link System#nanoTime})
     * @param endedNanos when it committed ({@link System#nanoTime})
     */
    public record Result(
            Map<String, TableLoad> tables, double seconds, long startedNanos, long endedNanos) {
        /** Every table's rows. */
        public long rows() {
            return tables.values().stream().mapToLong(TableLoad::rows).sum();
        }

        /** Rows per second over the whole load. */
        public double rowsPerSecond() {
            return seconds > 0 ? rows() / seconds : 0;
        }
    }

    /** One table's rows and seconds. */
    public record TableLoad(long rows, double seconds) {
        public double rowsPerSecond() {
            return seconds > 0 ? rows / seconds : 0;
        }
    }

    private InitialLoad() {}

    /**
     * Loads the tables.
     *
     * @param source opens a connection to the source (the capture user's)
     * @param slot the replication slot whose snapshot is read: the warehouse records the load as
     *     started from it, then done in the load's own transaction
     * @param snapshot the exported snapshot's name
     * @param schemas the captured schemas
     * @param included the only tables captured, {@code schema.table}; empty for all
     * @param excluded tables not captured, {@code schema.table}
     * @param writer the warehouse, its transaction open; committed here
     * @param snapshotMs the source's time at the snapshot: the rows' commit time
     */
    public static Result run(
            Supplier<Connection> source,
            String slot,
            String snapshot,
            List<String> schemas,
            List<String> included,
            List<String> excluded,
            WarehouseWriter writer,
            long snapshotMs)
            throws SQLException, IOException, InterruptedException {
        long t0 = System.nanoTime();
        Map<String, TableLoad> out = new LinkedHashMap<>();
        writer.initialLoadStarted(slot);
        try (Connection c = source.get()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
                s.execute("SET TRANSACTION SNAPSHOT '" + snapshot.replace("'", "''") + "'");
                // the text the change events carry: ISO dates and ISO 8601 intervals
                s.execute("SET LOCAL DateStyle = 'ISO, YMD'");
                s.execute("SET LOCAL IntervalStyle = 'iso_8601'");
                s.execute("SET LOCAL extra_float_digits = 3");
                s.execute("SET LOCAL TimeZone = 'UTC'");
            }
            List<SourceTable> tables = PostgresTables.of(c, schemas, excluded);
            if (!included.isEmpty()) {
                tables = tables.stream().filter(t -> included.contains(t.name())).toList();
            }
            for (SourceTable t : tables) {
                long t1 = System.nanoTime();
                long rows = load(c, t, writer, snapshotMs);
                double secs = (System.nanoTime() - t1) / 1e9;
                out.put(t.name(), new TableLoad(rows, secs));
                LOG.info(
                        "Loaded {} rows of {} in {} s ({} rows/s)",
                        rows,
                        t.name(),
                        String.format(java.util.Locale.ROOT, "%.2f", secs),
                        Math.round(secs > 0 ? rows / secs : 0));
            }
            c.rollback();
        }
        writer.initialLoadDone(slot);
        writer.commit(snapshotMs);
        long t1 = System.nanoTime();
        return new Result(out, (t1 - t0) / 1e9, t0, t1);
    }

    /** Reads one table with COPY on a thread of its own, and writes it as it comes. */
    private static long load(Connection c, SourceTable t, WarehouseWriter writer, long snapshotMs)
            throws SQLException, IOException, InterruptedException {
        String query =
                "COPY (SELECT "
                        + String.join(", ", t.selects())
                        + " FROM "
                        + t.quoted()
                        + ") TO STDOUT";
        BlockingQueue<String[][]> queue = new ArrayBlockingQueue<>(16);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        AtomicBoolean abandoned = new AtomicBoolean();
        Thread reader =
                new Thread(
                        () -> {
                            try {
                                read(c, query, t.columns(), queue, abandoned);
                            } catch (Throwable e) {
                                failed.compareAndSet(null, e);
                            } finally {
                                offer(queue, END, abandoned);
                            }
                        },
                        "initial-load-copy");
        reader.start();
        long rows;
        try {
            rows =
                    writer.load(
                            t.name(),
                            t.columns(),
                            new QueueIterator(queue),
                            POSITION,
                            snapshotMs,
                            CHUNK_ROWS);
        } finally {
            abandoned.set(true);
            queue.clear();
            reader.join();
        }
        if (failed.get() != null) {
            throw new IOException(
                    "reading " + t.name() + ": " + failed.get().getMessage(), failed.get());
        }
        return rows;
    }

    /** Reads the rows of {@code query}, a batch at a time, until the end or until abandoned. */
    private static void read(
            Connection c,
            String query,
            List<ColumnSpec> cols,
            BlockingQueue<String[][]> queue,
            AtomicBoolean abandoned)
            throws SQLException, IOException, InterruptedException {
        ColumnKind[] kinds = new ColumnKind[cols.size()];
        for (int i = 0; i < kinds.length; i++) {
            kinds[i] = ColumnKind.of(cols.get(i));
        }
        CopyOut copy = c.unwrap(PGConnection.class).getCopyAPI().copyOut(query);
        try {
            String[][] batch = new String[BATCH_ROWS][];
            int n = 0;
            byte[] line;
            while ((line = copy.readFromCopy()) != null) {
                String[] row = CopyText.row(line, kinds.length);
                for (int i = 0; i < row.length; i++) {
                    row[i] = staged(cols.get(i), kinds[i], row[i]);
                }
                batch[n++] = row;
                if (n == BATCH_ROWS) {
                    if (!offer(queue, batch, abandoned)) {
                        return;
                    }
                    batch = new String[BATCH_ROWS][];
                    n = 0;
                }
            }
            if (n > 0) {
                offer(queue, java.util.Arrays.copyOf(batch, n), abandoned);
            }
        } finally {
            if (copy.isActive()) {
                copy.cancelCopy();
            }
        }
    }

    /** Hands a batch to the writer; false once the writer has given up. */
    private static boolean offer(
            BlockingQueue<String[][]> queue, String[][] batch, AtomicBoolean abandoned) {
        try {
            while (!abandoned.get()) {
                if (queue.offer(batch, 100, TimeUnit.MILLISECONDS)) {
                    return true;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    /** A value's text as the warehouse's staging takes it. */
    static String staged(ColumnSpec col, ColumnKind kind, String pgText) {
        if (pgText == null) {
            return null;
        }
        return switch (kind) {
            case INT16,
                    INT32,
                    INT64,
                    FLOAT32,
                    FLOAT64,
                    DECIMAL,
                    NUMERIC_TEXT,
                    TEXT,
                    UUID,
                    JSON,
                    TIME,
                    NETWORK,
                    XML,
                    TSVECTOR,
                    RANGE ->
                    pgText;
            // a warehouse BIT cannot be empty: written as the change events write it
            case BITS -> pgText.isEmpty() ? "0" : pgText;
            case DATE, TIMESTAMP, TIMESTAMPTZ -> SourceColumnType.beforeChrist(pgText, kind);
            default -> SourceColumnType.staged(col, pgText);
        };
    }

    /** The writer's view of the parsed rows. */
    private static final class QueueIterator implements Iterator<String[]> {
        private final BlockingQueue<String[][]> queue;
        private String[][] batch = new String[0][];
        private int at;

        QueueIterator(BlockingQueue<String[][]> queue) {
            this.queue = queue;
        }

        @Override
        public boolean hasNext() {
            while (batch != END && at == batch.length) {
                try {
                    batch = queue.take();
                    at = 0;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while loading", e);
                }
            }
            return batch != END;
        }

        @Override
        public String[] next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return batch[at++];
        }
    }
}
