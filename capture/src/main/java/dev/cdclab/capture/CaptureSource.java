package dev.cdclab.capture;

import dev.cdclab.config.SourceKind;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * A source database as capture sees it, one implementation per database: the Debezium connector
 * config, what the source needs before capture starts, when it is ready, the settings every report
 * prints, its clock, and how to take capture away again.
 */
public interface CaptureSource {
    /** The capture of the source {@code c} describes. */
    static CaptureSource of(CaptureConfig c) {
        return switch (c.kind()) {
            case POSTGRES -> new PostgresCapture(c);
            case SQLSERVER -> new SqlServerCapture(c);
        };
    }

    SourceKind kind();

    /** The capture configuration this was made from. */
    CaptureConfig config();

    /** The connector's configuration, password included (do not log). */
    Map<String, String> connectorConfig();

    /**
     * Fails fast when the source cannot be captured at all (logical decoding off, an edition
     * without CDC); runs before any workload schema or prefill.
     *
     * @throws IllegalStateException naming what is missing
     */
    void check();

    /**
     * Readies the source for capture of the tables that exist now: the heartbeat table and, where
     * the source needs it, CDC on each table and the capture job's settings.
     *
     * @throws IllegalStateException naming what failed
     */
    void prepare();

    /**
     * Returns once capture can begin (SQL Server: its Agent runs and the capture job has written a
     * first LSN).
     *
     * @throws IllegalStateException on timeout
     */
    default void awaitReady(Duration timeout) {}

    /**
     * Waits until Debezium streams: its heartbeat action query only runs after the snapshot.
     *
     * @throws IllegalStateException on timeout
     */
    void awaitStreaming(Duration timeout);

    /**
     * Checks that the source can still give what the connector's committed offsets ask for.
     *
     * @param committedOffsets the connector's committed offsets (one per source partition); empty
     *     before its first commit
     * @throws CaptureLostException when changes would be skipped silently
     */
    default void checkPosition(
            java.util.List<com.fasterxml.jackson.databind.JsonNode> committedOffsets) {}

    /** Settings that decide durability and log throughput; printed with every result. */
    Map<String, String> settings();

    /** The source's clock, epoch milliseconds (commit times are taken from it). */
    long nowMs();

    /** The capture job's own view of its work, where the source has one (SQL Server). */
    /**
     * Tables without a key found when capture was prepared, {@code schema.table} to how each is
     * captured; empty when the source has none or cannot tell.
     */
    default Map<String, String> keylessTables() {
        return Map.of();
    }

    default Optional<CaptureJobReport> jobReport() {
        return Optional.empty();
    }

    /**
     * Removes what {@link #prepare} and the connector left in a source that outlives the pipeline
     * (a replication slot and publication; CDC the pipeline enabled), after the connector is gone.
     */
    void removeCapture(Duration wait);

    /**
     * Reads one table again while the stream goes on (Debezium's incremental snapshot, signalled
     * through the source's signal table), waits until the connector reports it complete, then logs
     * where it began: the warehouse then removes the rows of the table that were neither read again
     * nor changed since, so the table ends equal to the source.
     *
     * @param table {@code schema.table}
     * @return rows read
     * @throws IllegalStateException when the table cannot be read again (no key) or the timeout
     *     passes
     */
    default long resnapshot(String table, Duration timeout) {
        throw new UnsupportedOperationException(
                "re-snapshotting a table is built for PostgreSQL sources");
    }

    /**
     * Opens a connection as the capture user.
     *
     * @throws IllegalStateException with one line naming the URL when it cannot connect
     */
    Connection connect();
}
