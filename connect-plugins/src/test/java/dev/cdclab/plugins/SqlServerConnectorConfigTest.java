package dev.cdclab.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.capture.CaptureConfig;
import dev.cdclab.capture.CaptureSource;
import io.debezium.config.Configuration;
import io.debezium.config.Field;
import io.debezium.connector.sqlserver.SqlServerConnectorConfig;
import io.debezium.storage.kafka.history.KafkaSchemaHistory;
import io.debezium.transforms.ByLogicalTableRouter;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

/**
 * The SQL Server connector config cdc-lab writes, validated offline by the Debezium SQL Server
 * connector's own field definitions ({@code SqlServerConnectorConfig.ALL_FIELDS}, 3.6.1), with no
 * SQL Server and no Connect worker.
 */
class SqlServerConnectorConfigTest {
    private static Map<String, String> connectorConfig(Map<String, String> extra) {
        Map<String, String> raw = new HashMap<>();
        raw.put("source.kind", "sqlserver");
        raw.put("source.host", "db.internal");
        raw.put("source.password", "Secret!123");
        raw.put("source.database", "shop");
        raw.put("topic.prefix", "cdclab-t1");
        raw.put("kafka.bootstrap.servers", "kafka:9092");
        raw.put("partitions", "3");
        raw.putAll(extra);
        return CaptureSource.of(CaptureConfig.of(raw)).connectorConfig();
    }

    private static List<String> problems(Map<String, String> cfg) {
        Configuration config = Configuration.from(cfg);
        List<String> out = new ArrayList<>();
        Map<String, ConfigValue> results = config.validate(SqlServerConnectorConfig.ALL_FIELDS);
        results.values()
                .forEach(cv -> cv.errorMessages().forEach(m -> out.add(cv.name() + ": " + m)));
        config.validateAndRecord(
                List.of(KafkaSchemaHistory.TOPIC, KafkaSchemaHistory.BOOTSTRAP_SERVERS), out::add);
        return out;
    }

    @Test
    void theConfigPassesTheConnectorsOwnValidation() {
        Map<String, String> cfg = connectorConfig(Map.of());
        assertThat(problems(cfg)).isEmpty();
        assertThat(cfg)
                .containsEntry(
                        "connector.class", "io.debezium.connector.sqlserver.SqlServerConnector")
                .containsEntry("database.names", "shop")
                .containsEntry("database.port", "1433")
                .containsEntry("database.user", "sa")
                .containsEntry("driver.trustServerCertificate", "true")
                .containsEntry("schema.history.internal.kafka.bootstrap.servers", "kafka:9092")
                .containsEntry("schema.history.internal.kafka.topic", "cdclab-t1.schema-history")
                .containsEntry("data.query.mode", "function")
                .containsEntry("poll.interval.ms", "500")
                .containsEntry(
                        "heartbeat.action.query",
                        "UPDATE [cdc_lab].[heartbeat] SET ts = SYSUTCDATETIME()")
                .containsEntry("topic.creation.default.partitions", "3");
    }

    @Test
    void everyKnobTheIssueNamesReachesTheConnectorAndValidates() {
        Map<String, String> cfg =
                connectorConfig(
                        Map.of(
                                "poll.interval", "100ms",
                                "max.batch.size", "1024",
                                "max.queue.size", "8192",
                                "max.iteration.transactions", "0",
                                "data.query.mode", "direct",
                                "captured.columns", "orders:id,status"));
        assertThat(problems(cfg)).isEmpty();
        assertThat(cfg)
                .containsEntry("poll.interval.ms", "100")
                .containsEntry("max.batch.size", "1024")
                .containsEntry("max.queue.size", "8192")
                .containsEntry("max.iteration.transactions", "0")
                .containsEntry("data.query.mode", "direct");
        assertThat(cfg.get("column.include.list")).contains("orders").contains("status");
    }

    @Test
    void everyConnectorKeyIsOneTheConnectorKnows() {
        Map<String, String> cfg = connectorConfig(Map.of("max.iteration.transactions", "100"));
        Set<String> known =
                SqlServerConnectorConfig.ALL_FIELDS.asArray().length == 0
                        ? Set.of()
                        : java.util.Arrays.stream(SqlServerConnectorConfig.ALL_FIELDS.asArray())
                                .map(Field::name)
                                .collect(Collectors.toSet());
        List<String> unknown =
                cfg.keySet().stream()
                        .filter(k -> !known.contains(k))
                        // Connect's own keys (transforms, predicates, producer overrides), the
                        // router's, topic creation, the schema history and driver pass-through
                        // are validated elsewhere
                        .filter(
                                k ->
                                        !k.equals("connector.class")
                                                && !k.equals("tasks.max")
                                                && !k.startsWith("key.converter")
                                                && !k.startsWith("value.converter")
                                                && !k.startsWith("transforms")
                                                && !k.startsWith("predicates")
                                                && !k.startsWith("topic.creation.")
                                                && !k.startsWith("producer.override.")
                                                && !k.startsWith("schema.history.internal.kafka.")
                                                && !k.startsWith("driver."))
                        .toList();
        assertThat(unknown).isEmpty();
    }

    @Test
    void theRouterAcceptsItsSettings() {
        Map<String, String> cfg = connectorConfig(Map.of());
        Map<String, Object> route = new HashMap<>();
        cfg.forEach(
                (k, v) -> {
                    if (k.startsWith("transforms.route.") && !k.equals("transforms.route.type")) {
                        route.put(k.substring("transforms.route.".length()), v);
                    }
                });
        try (ByLogicalTableRouter<org.apache.kafka.connect.source.SourceRecord> router =
                new ByLogicalTableRouter<>()) {
            router.configure(route);
        }
        assertThat("cdclab-t1.shop.dbo.orders").matches(cfg.get("transforms.route.topic.regex"));
        assertThat("cdclab-t1.shop.cdc_lab.heartbeat")
                .matches(cfg.get("transforms.route.topic.regex"));
        assertThat("cdclab-t1.other.dbo.orders")
                .doesNotMatch(cfg.get("transforms.route.topic.regex"));
    }

    @Test
    void aBadValueIsCaughtByTheConnectorsValidation() {
        Map<String, String> cfg = new HashMap<>(connectorConfig(Map.of()));
        cfg.put("snapshot.mode", "sometimes");
        assertThat(problems(cfg)).anyMatch(p -> p.startsWith("snapshot.mode:"));
    }

    @Test
    void thePluginDirectoryHoldsTheConnectorAndItsDriverButNoJackson() throws Exception {
        var dir = ConnectPlugins.pluginDirectory(ConnectPlugins.Plugin.SQLSERVER);
        List<String> jars;
        try (var s = Files.list(dir)) {
            jars = s.map(p -> p.getFileName().toString()).sorted().toList();
        }
        assertThat(jars)
                .contains(
                        "debezium-connector-sqlserver-3.6.1.Final.jar",
                        "mssql-jdbc-12.4.2.jre8.jar")
                .noneMatch(j -> j.startsWith("jackson-"))
                .noneMatch(j -> j.startsWith("kafka-clients") || j.startsWith("connect-api"))
                .noneMatch(j -> j.startsWith("slf4j-"));
        // one Debezium release in the directory: a newer jar of the project's own would mix
        assertThat(jars)
                .filteredOn(j -> j.startsWith("debezium-"))
                .allMatch(j -> j.endsWith("-3.6.1.Final.jar"));
        assertThat(ConnectPlugins.names()).contains(ConnectPlugins.SQLSERVER);
    }
}
