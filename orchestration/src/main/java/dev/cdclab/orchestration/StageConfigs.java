package dev.cdclab.orchestration;

import dev.cdclab.capture.CaptureConfig;
import dev.cdclab.config.RowLimit;
import dev.cdclab.config.RunNames;
import dev.cdclab.config.SourceKind;
import dev.cdclab.orchestration.infra.InfraKind;
import dev.cdclab.orchestration.infra.SourceEndpoint;
import dev.cdclab.sink.SinkConfig;
import dev.cdclab.streams.NetChangeConfig;
import java.util.Map;

/**
 * Translates a {@link PipelineSpec} and the services it runs on into each stage's configuration:
 * the names from {@link RunNames}, the settings every stage shares, then each stage's own settings
 * over them. Pure: the same spec and services give the same configurations.
 */
public final class StageConfigs {
    /** The least-privilege role capture runs as on a source the pipeline starts. */
    public static final String CAPTURE_ROLE = "cdclab_capture";

    /**
     * Compression of what capture and the net-change app write to Kafka. A change event carries its
     * table's schema, kilobytes for a wide row that repeat in every event: lz4 makes them a
     * fraction of that for the broker, the page cache and every reader, at little CPU.
     */
    public static final String KAFKA_COMPRESSION = "lz4";

    private StageConfigs() {}

    /** Capture's configuration against {@code source}, publishing to {@code bootstrapServers}. */
    public static CaptureConfig capture(
            PipelineSpec spec, InfraKind kind, SourceEndpoint source, String bootstrapServers) {
        RunNames names = spec.names();
        var b =
                CaptureConfig.builder()
                        .set(CaptureConfig.SOURCE_KIND, source.kind())
                        .set(CaptureConfig.HOST, source.host())
                        .set(CaptureConfig.PORT, source.port())
                        .set(CaptureConfig.DATABASE, source.database())
                        .set(CaptureConfig.USER, source.user())
                        .set(CaptureConfig.PASSWORD, source.password())
                        .set(CaptureConfig.CONNECTOR_NAME, names.connectorName())
                        .set(CaptureConfig.TOPIC_PREFIX, names.topicPrefix())
                        .set(CaptureConfig.SLOT, names.slot())
                        .set(CaptureConfig.PUBLICATION, names.publication())
                        .set(CaptureConfig.PARTITIONS, spec.partitions())
                        .set(CaptureConfig.HEARTBEAT, spec.heartbeat())
                        .set(RowLimit.MAX_ROW_BYTES, spec.maxRowBytes())
                        .set(CaptureConfig.KAFKA_BOOTSTRAP_SERVERS, bootstrapServers);
        if (kind == InfraKind.EMBEDDED && source.kind() == SourceKind.POSTGRES) {
            // the embedded source is ours: capture runs there as a least-privilege role
            b.set(CaptureConfig.CAPTURE_ROLE, CAPTURE_ROLE);
        }
        if (kind != InfraKind.EXTERNAL && source.kind() == SourceKind.POSTGRES) {
            // a source started for the run (or a test's container): tables without a key get
            // REPLICA IDENTITY FULL, so publishing them never fails the application's statements
            b.set(CaptureConfig.KEYLESS_TABLES, CaptureConfig.KeylessTables.FULL);
        }
        return new CaptureConfig(b.setAll(spec.capture()).build());
    }

    /** The net-change app's configuration, reading and writing {@code bootstrapServers}. */
    public static NetChangeConfig streams(PipelineSpec spec, String bootstrapServers) {
        RunNames names = spec.names();
        return new NetChangeConfig(
                NetChangeConfig.builder()
                        .set(NetChangeConfig.BOOTSTRAP_SERVERS, bootstrapServers)
                        .set(NetChangeConfig.APPLICATION_ID, names.streamsApplicationId())
                        .set(NetChangeConfig.TOPIC_PREFIX, names.topicPrefix())
                        .set(NetChangeConfig.NET_CHANGES_TOPIC, names.netChangeTopic())
                        .set(NetChangeConfig.INTERVAL, spec.interval())
                        .set(NetChangeConfig.GRACE, spec.grace())
                        .set(NetChangeConfig.MODE, spec.mode())
                        .set(NetChangeConfig.PARTITIONS, spec.partitions())
                        .set(NetChangeConfig.GUARANTEE, spec.guarantee())
                        .set(RowLimit.MAX_ROW_BYTES, spec.maxRowBytes())
                        .set(
                                NetChangeConfig.STATE_DIR,
                                spec.workDir().toAbsolutePath().resolve("streams").toString())
                        .set("kafka.producer.compression.type", KAFKA_COMPRESSION)
                        .setAll(spec.streams())
                        .build());
    }

    /** The warehouse sink's configuration, reading {@code bootstrapServers}. */
    public static SinkConfig sink(PipelineSpec spec, String bootstrapServers) {
        return sink(spec, bootstrapServers, Map.of());
    }

    /**
     * The warehouse sink's configuration, reading {@code bootstrapServers}, writing the warehouse
     * that {@code warehouse} names ({@code warehouse.url}, {@code warehouse.user}, {@code
     * warehouse.password}) when it is not empty: a server the pipeline started.
     */
    public static SinkConfig sink(
            PipelineSpec spec, String bootstrapServers, Map<String, String> warehouse) {
        RunNames names = spec.names();
        return new SinkConfig(
                SinkConfig.builder()
                        .set(SinkConfig.BOOTSTRAP_SERVERS, bootstrapServers)
                        .set(SinkConfig.GROUP_ID, names.sinkGroupId())
                        .set(SinkConfig.TOPIC, names.netChangeTopic())
                        .set(RowLimit.MAX_ROW_BYTES, spec.maxRowBytes())
                        .set(SinkConfig.WAREHOUSE_URL, spec.resolvedWarehouseUrl())
                        .setAll(warehouse)
                        .setAll(spec.sink())
                        .build());
    }
}
