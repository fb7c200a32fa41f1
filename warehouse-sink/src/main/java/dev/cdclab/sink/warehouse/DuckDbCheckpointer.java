package dev.cdclab.sink.warehouse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.duckdb.DuckDBConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints a DuckDB database file from a connection of its own once its write-ahead log holds
 * three quarters of DuckDB's {@code checkpoint_threshold}. Left to DuckDB, the checkpoint runs
 * inside the commit that crosses the threshold, and the writer, with every change waiting for it,
 * stands still for the whole of it; run beside the writer, the commit under way still waits for it
 * when its deletes touch the tables being written (0.2-0.5 s in the default run), but the writer no
 * longer does the checkpoint's work. The checkpoint waits for the writer's transaction under way to
 * end ({@code FORCE CHECKPOINT}), as a plain one gives up whenever a transaction holds DuckDB's
 * checkpoint lock. DuckDB's own checkpoint stays as the fallback for a log that grows past the
 * threshold in one transaction.
 */
final class DuckDbCheckpointer implements WarehouseDialect.Upkeep {
    private static final Logger LOG = LoggerFactory.getLogger(DuckDbCheckpointer.class);

    /** How often the log's size is read. */
    static final Duration POLL = Duration.ofMillis(50);

    /** The pause before trying again after a checkpoint failed. */
    private static final Duration AFTER_FAILURE = Duration.ofSeconds(1);

    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    private final Connection connection;
    private final Path wal;
    private final long triggerBytes;
    private final Thread thread;
    private final AtomicLong checkpoints = new AtomicLong();
    private volatile boolean running = true;

    private DuckDbCheckpointer(Connection connection, Path wal, long triggerBytes) {
        this.connection = connection;
        this.wal = wal;
        this.triggerBytes = triggerBytes;
        this.thread = new Thread(this::loop, "cdc-lab-duckdb-checkpoint");
        this.thread.setDaemon(true);
    }

    /**
     * Starts checkpointing the database {@code writer} is connected to; empty for a database in
     * memory, which has no log.
     */
    static Optional<DuckDbCheckpointer> start(Connection writer) throws SQLException {
        Connection c = writer.unwrap(DuckDBConnection.class).duplicate();
        try {
            c.setAutoCommit(true);
            String path;
            String threshold;
            try (Statement s = c.createStatement();
                    ResultSet rs =
                            s.executeQuery(
                                    "SELECT path, current_setting('checkpoint_threshold') FROM"
                                            + " duckdb_databases() WHERE database_name ="
                                            + " current_database()")) {
                rs.next();
                path = rs.getString(1);
                threshold = rs.getString(2);
            }
            if (path == null || path.isEmpty()) {
                c.close();
                return Optional.empty();
            }
            DuckDbCheckpointer checkpointer =
                    new DuckDbCheckpointer(c, Path.of(path + ".wal"), bytes(threshold) / 4 * 3);
            checkpointer.thread.start();
            return Optional.of(checkpointer);
        } catch (SQLException | RuntimeException e) {
            try {
                c.close();
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private static final Pattern SIZE =
            Pattern.compile("([0-9.]+)\\s*([KMGT]?i?B|bytes)?", Pattern.CASE_INSENSITIVE);

    /** DuckDB's text for a size, such as {@code 16.0 MiB}, {@code 1GB} or {@code 512 bytes}. */
    static long bytes(String size) {
        Matcher m = SIZE.matcher(size.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a size: " + size);
        }
        double n = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "" : m.group(2).toUpperCase(Locale.ROOT);
        long scale =
                switch (unit) {
                    case "", "B", "BYTES" -> 1L;
                    case "KB" -> 1_000L;
                    case "KIB" -> 1L << 10;
                    case "MB" -> 1_000_000L;
                    case "MIB" -> 1L << 20;
                    case "GB" -> 1_000_000_000L;
                    case "GIB" -> 1L << 30;
                    case "TB" -> 1_000_000_000_000L;
                    case "TIB" -> 1L << 40;
                    default -> throw new IllegalArgumentException("not a size: " + size);
                };
        return (long) (n * scale);
    }

    /** Checkpoints run so far. */
    long checkpoints() {
        return checkpoints.get();
    }

    /** Whether the thread is still running. */
    boolean running() {
        return thread.isAlive();
    }

    /** The log size at which a checkpoint runs. */
    long triggerBytes() {
        return triggerBytes;
    }

    private void loop() {
        boolean warned = false;
        try (Statement s = connection.createStatement()) {
            while (running) {
                Thread.sleep(POLL.toMillis());
                if (logBytes() < triggerBytes) {
                    continue;
                }
                try {
                    long t0 = System.nanoTime();
                    long logged = logBytes();
                    // a plain CHECKPOINT gives up while a write transaction holds the checkpoint
                    // lock (an UPDATE takes it; the writer's progress row is one), and under load
                    // it kept giving up until the log reached the threshold and DuckDB
                    // checkpointed in the writer's commit. FORCE waits for the
                    // transaction under way to end, keeping new ones from starting meanwhile (it
                    // does not abort them)
                    underWay = s;
                    try {
                        s.execute("FORCE CHECKPOINT");
                    } finally {
                        underWay = null;
                    }
                    checkpoints.incrementAndGet();
                    LOG.info(
                            "Checkpointed the warehouse in {} ms ({} MiB of log)",
                            (System.nanoTime() - t0) / 1_000_000,
                            logged >> 20);
                } catch (SQLException e) {
                    if (!running) {
                        break;
                    }
                    if (!warned) {
                        LOG.warn(
                                "Background checkpoint failed ({}); trying again, and DuckDB"
                                        + " checkpoints in the writer's commits meanwhile",
                                e.getMessage());
                        warned = true;
                    }
                    Thread.sleep(AFTER_FAILURE.toMillis());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (SQLException e) {
            LOG.warn("Background checkpoints stopped: {}", e.getMessage());
        }
    }

    private long logBytes() {
        try {
            return Files.size(wal);
        } catch (IOException e) {
            return 0; // no log: nothing written since the last checkpoint
        }
    }

    /** The checkpoint under way, if any, cancelled by {@link #close()}. */
    private volatile Statement underWay;

    /** Whether a checkpoint is under way, or waiting for a writer's transaction to end. */
    boolean checkpointing() {
        return underWay != null;
    }

    /**
     * Stops checkpointing and closes its connection, cancelling a checkpoint under way or waiting
     * for a writer's transaction to end (what it has not written stays in the log).
     */
    @Override
    public void close() {
        running = false;
        thread.interrupt();
        Statement s = underWay;
        if (s != null) {
            try {
                s.cancel();
            } catch (SQLException e) {
                LOG.debug("Cancelling the checkpoint: {}", e.getMessage());
            }
        }
        try {
            thread.join(STOP_TIMEOUT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            connection.close();
        } catch (SQLException e) {
            LOG.debug("Closing the checkpoint connection: {}", e.getMessage());
        }
    }
}
