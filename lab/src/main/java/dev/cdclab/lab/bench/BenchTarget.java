package dev.cdclab.lab.bench;

import dev.cdclab.lab.experiment.LoadPhases;
import dev.cdclab.orchestration.operate.HealthWatch;
import dev.cdclab.orchestration.verify.VerificationResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * A running capture-to-warehouse pipeline a {@link RateLadder} can drive and measure: cdc-lab's own
 * ({@link PipelineTarget}) or the standard one it is compared with ({@link StandardPipeline}).
 */
public interface BenchTarget extends AutoCloseable, LoadPhases.Target {
    /** What the pipeline is, in a few words ({@code cdc-lab -> postgresql}). */
    String name();

    /** A new connection to the source, for the load generator. */
    Connection sourceConnection() throws SQLException;

    /** Called before each measured step (resets what is counted per step). */
    default void beforeStep() {}

    /**
     * Makes the PostgreSQL servers of the pipeline (the source, and a PostgreSQL warehouse)
     * checkpoint now. After a checkpoint every page's first change writes a full-page image to the
     * log, so a step that starts right after one starts where every other step does, instead of
     * wherever the server's timed checkpoint happens to fall.
     */
    default void checkpoint() throws SQLException {}

    /** Runs {@code CHECKPOINT} on a connection, then closes it. */
    static void checkpoint(Connection c) throws SQLException {
        try (c;
                Statement s = c.createStatement()) {
            s.execute("CHECKPOINT");
        }
    }

    /**
     * Waits until every change committed at the source before now is in the warehouse.
     *
     * @return how long it took
     * @throws dev.cdclab.orchestration.operate.CatchUpTimeoutException on timeout
     */
    @Override
    Duration awaitCaughtUp(Duration timeout);

    /**
     * Commit-to-warehouse latency, ms, of the changes the load generator committed between the two
     * times (epoch microseconds), as this pipeline's warehouse shows it.
     */
    Histogram latency(long fromMicros, long toMicros) throws SQLException;

    /**
     * The pipeline's own commit-to-warehouse recorder since {@link #beforeStep()}, where it has one
     * (cdc-lab's sink); null otherwise.
     */
    default Histogram pipelineLatency() {
        return null;
    }

    /**
     * Rows the warehouse has written (inserted, updated, deleted) into the captured tables so far;
     * -1 when it cannot be told.
     */
    long rowsWritten() throws SQLException;

    /**
     * Throws when a part of the pipeline has failed.
     *
     * @throws dev.cdclab.orchestration.operate.StageFailedException naming it
     */
    void checkHealthy();

    /** Checks health every second and calls {@code onFailure} once; close the handle to stop. */
    @Override
    default AutoCloseable watch(Consumer<RuntimeException> onFailure) {
        return HealthWatch.start(this::checkHealthy, onFailure);
    }

    /**
     * Stops capture (the connector reading the source's log), keeping its position: what the source
     * commits meanwhile waits in the log.
     */
    void stopCapture();

    /** Starts capture again from where it stopped, and waits until it runs. */
    void startCapture();

    /** Compares the warehouse with the source. */
    VerificationResult verify() throws SQLException;

    /** The settings the pipeline ran with, for the report (no secrets). */
    Map<String, Object> settings();

    /** Stops what the target started. */
    @Override
    void close();
}
