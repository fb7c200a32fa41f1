package dev.cdclab.orchestration;

import dev.cdclab.capture.CaptureConfig;
import dev.cdclab.capture.ExportedSlot;
import dev.cdclab.capture.PostgresCapture;
import dev.cdclab.config.OneLineError;
import dev.cdclab.initialload.InitialLoad;
import dev.cdclab.orchestration.operate.StageFailedException;
import dev.cdclab.sink.SinkConfig;
import dev.cdclab.sink.warehouse.WarehouseWriter;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline's initial load ({@code capture.initial.load=direct}): the replication slot created
 * with its snapshot exported, and the tables read at that snapshot into the warehouse on a thread
 * of its own while the connector starts streaming from the slot. Closing it stops a load still
 * running and leaves nothing of it in the warehouse.
 */
final class InitialLoadStage implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(InitialLoadStage.class);

    private final Thread thread;
    private volatile InitialLoad.Result result;
    private volatile Throwable failure;

    private InitialLoadStage(Runnable load) {
        thread = new Thread(load, "initial-load");
        thread.setDaemon(true);
    }

    /**
     * Starts the load when there is one to make: a PostgreSQL source whose slot does not exist yet,
     * every column captured, and Debezium's {@code snapshot.mode=initial} otherwise.
     *
     * @return the running load, or empty when Debezium reads the tables (or the slot exists and
     *     streams on)
     * @throws StageFailedException when the warehouse records a load from the slot that never
     *     finished
     */
    static Optional<InitialLoadStage> startIfDue(
            PostgresCapture pg, CaptureConfig capture, SinkConfig sink) {
        if (capture.get(CaptureConfig.INITIAL_LOAD) != CaptureConfig.InitialLoad.DIRECT
                || capture.get(CaptureConfig.CAPTURED_COLUMNS) != null
                || !capture.get(CaptureConfig.SNAPSHOT_MODE).equals("initial")) {
            return Optional.empty();
        }
        String slotName = capture.get(CaptureConfig.SLOT);
        Optional<ExportedSlot> exported = pg.exportSlotIfNew();
        if (exported.isEmpty()) {
            refuseCutOffLoad(sink, slotName);
            return Optional.empty();
        }
        List<String> schemas =
                capture.schemas().stream()
                        .filter(x -> !x.equals(CaptureConfig.LAB_SCHEMA))
                        .toList();
        List<String> excluded = new ArrayList<>();
        pg.keylessTables()
                .forEach(
                        (t, how) -> {
                            if (how.startsWith("not captured")) {
                                excluded.add(t.replace("\"", ""));
                            }
                        });
        long snapshotMs = pg.nowMs();
        InitialLoadStage[] stage = new InitialLoadStage[1];
        stage[0] =
                new InitialLoadStage(
                        () -> {
                            try (ExportedSlot slot = exported.get();
                                    WarehouseWriter w = writer(sink)) {
                                InitialLoad.Result r =
                                        InitialLoad.run(
                                                pg::connect,
                                                slot.slot(),
                                                slot.snapshot(),
                                                schemas,
                                                capture.tables(),
                                                excluded,
                                                w,
                                                snapshotMs);
                                stage[0].result = r;
                                LOG.info(
                                        "Initial load: {} rows in {} s ({} rows/s)",
                                        r.rows(),
                                        String.format(Locale.ROOT, "%.1f", r.seconds()),
                                        Math.round(r.rowsPerSecond()));
                            } catch (Throwable e) {
                                stage[0].failure = e;
                            }
                        });
        stage[0].thread.start();
        return Optional.of(stage[0]);
    }

    private static WarehouseWriter writer(SinkConfig sink) throws SQLException {
        return new WarehouseWriter(
                sink.get(SinkConfig.WAREHOUSE_URL),
                sink.get(SinkConfig.WAREHOUSE_USER),
                sink.password());
    }

    /**
     * Stops start-up when the warehouse records a load from {@code slot} that began and never
     * committed: the slot has moved on, and streaming from it would leave the tables without the
     * rows that existed before it.
     */
    private static void refuseCutOffLoad(SinkConfig sink, String slot) {
        Optional<String> state;
        try (WarehouseWriter w = writer(sink)) {
            state = w.initialLoadState(slot);
        } catch (SQLException e) {
            throw new StageFailedException("initial load", OneLineError.of(e), e);
        }
        if (state.filter("started"::equals).isPresent()) {
            throw new StageFailedException(
                    "initial load",
                    "the initial load from replication slot "
                            + slot
                            + " did not finish (the pipeline stopped during it): drop the slot and"
                            + " the pipeline's topics, then start again to load from the"
                            + " beginning",
                    null);
        }
    }

    /**
     * Waits for the load to commit.
     *
     * @throws StageFailedException when it failed
     */
    InitialLoad.Result await() {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StageFailedException("initial load", "interrupted", e);
        }
        if (failure != null) {
            throw new StageFailedException("initial load", OneLineError.of(failure), failure);
        }
        return result;
    }

    /** Stops a load still running; its warehouse transaction rolls back. */
    @Override
    public void close() {
        if (thread.isAlive()) {
            thread.interrupt();
            try {
                thread.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
