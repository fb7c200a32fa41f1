package dev.cdclab.orchestration;

import dev.cdclab.change.NetChangeMode;
import dev.cdclab.config.RunNames;
import dev.cdclab.orchestration.infra.InfraSpec;
import dev.cdclab.streams.NetChangeConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What a pipeline is, fixed once it is built: where its services come from, its names, the settings
 * every stage shares and each stage's own. {@link StageConfigs} translates it into the three stage
 * configurations; {@link Pipeline} deploys it.
 *
 * @param infrastructure where the services come from
 * @param workDir source data, Kafka logs, Streams state, warehouse and logs
 * @param runId what sets this run's names apart ({@link #names()})
 * @param warehouseUrl the warehouse's JDBC URL; null for a DuckDB file in the work directory, or
 *     for the embedded PostgreSQL server of {@code postgresWarehouse}
 * @param postgresWarehouse whether the pipeline starts a PostgreSQL server of its own in the work
 *     directory as its warehouse
 * @param partitions partitions of the change and net-change topics, and Streams tasks
 * @param interval the net-change window; zero for one per source transaction
 * @param grace how late a change may arrive for a fixed interval
 * @param heartbeat how often capture writes a heartbeat
 * @param maxRowBytes the largest row every stage carries
 * @param mode which net changes are computed
 * @param guarantee the Streams processing guarantee
 * @param durable whether a source the pipeline starts runs with fsync and synchronous commit
 * @param shutdownHooks whether parts register JVM shutdown hooks of their own
 * @param sourcePort port of an embedded source; 0 picks a free one
 * @param kafkaPort port of an embedded broker; 0 picks a free one
 * @param streamingTimeout how long the initial snapshot may take
 * @param minFreeDisk free bytes the work directory's file system must keep
 * @param initializer runs on the source before capture starts; may be null
 * @param capture capture settings over the derived ones
 * @param streams net-change settings over the derived ones
 * @param sink sink settings over the derived ones
 * @param without stages left to processes of their own
 */
public record PipelineSpec(
        InfraSpec infrastructure,
        Path workDir,
        String runId,
        String warehouseUrl,
        boolean postgresWarehouse,
        int partitions,
        Duration interval,
        Duration grace,
        Duration heartbeat,
        long maxRowBytes,
        NetChangeMode mode,
        NetChangeConfig.Guarantee guarantee,
        boolean durable,
        boolean shutdownHooks,
        int sourcePort,
        int kafkaPort,
        Duration streamingTimeout,
        long minFreeDisk,
        Pipeline.SourceInitializer initializer,
        Map<String, String> capture,
        Map<String, String> streams,
        Map<String, String> sink,
        Set<Pipeline.Stage> without) {

    public PipelineSpec {
        // in the order given, as reports list them
        capture = Collections.unmodifiableMap(new LinkedHashMap<>(capture));
        streams = Collections.unmodifiableMap(new LinkedHashMap<>(streams));
        sink = Collections.unmodifiableMap(new LinkedHashMap<>(sink));
        without = Set.copyOf(without);
        if (postgresWarehouse && warehouseUrl != null) {
            throw new IllegalArgumentException(
                    "a warehouse URL and an embedded PostgreSQL warehouse exclude each other");
        }
    }

    /** The names of this run's topics, slot, publication, groups and connector. */
    public RunNames names() {
        return RunNames.of(runId);
    }

    /**
     * The warehouse's JDBC URL: the one given, or a DuckDB file in the work directory; for an
     * embedded PostgreSQL warehouse, known once it runs ({@link Pipeline#warehouseUrl()}).
     */
    public String resolvedWarehouseUrl() {
        return warehouseUrl != null
                ? warehouseUrl
                : "jdbc:duckdb:" + workDir.toAbsolutePath().resolve("warehouse.duckdb");
    }
}
