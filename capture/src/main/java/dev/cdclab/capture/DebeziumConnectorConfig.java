package dev.cdclab.capture;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The Debezium PostgreSQL connector configuration cdc-lab runs with. The same JSON can be POSTed to
 * any Kafka Connect cluster that has the Debezium PostgreSQL plugin.
 */
public final class DebeziumConnectorConfig {
    /**
     * Table the heartbeat action query updates: one row per partition of the changes topic, so
     * every partition sees the source's commit time advance even when it is idle.
     */
    public static final String HEARTBEAT_TABLE = CaptureConfig.LAB_SCHEMA + ".heartbeat";

    private DebeziumConnectorConfig() {}

    /** Field the router adds to keys so keys of different tables stay distinct. */
    public static final String TABLE_KEY_FIELD = "__dbz__sourceIdentifier";

    /** The one topic all captured tables are routed to: {@code <prefix>.changes}. */
    public static String changeTopic(String topicPrefix) {
        return topicPrefix + ".changes";
    }

    /** Connector properties, password included (do not log). */
    public static Map<String, String> of(CaptureConfig c) {
        String schemas =
                Arrays.stream(c.get(CaptureConfig.SCHEMAS).split(","))
                        .map(String::trim)
                        .filter(s -> !s.isEmpty())
                        .collect(Collectors.joining(","));
        Map<String, String> m = new LinkedHashMap<>();
        m.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        m.put("tasks.max", "1");
        m.put("plugin.name", "pgoutput");
        m.put("database.hostname", c.get(CaptureConfig.HOST));
        m.put("database.port", Integer.toString(c.get(CaptureConfig.PORT)));
        m.put("database.user", c.get(CaptureConfig.USER));
        m.put("database.password", c.password() == null ? "" : c.password());
        m.put("database.dbname", c.get(CaptureConfig.DATABASE));
        m.put("topic.prefix", c.get(CaptureConfig.TOPIC_PREFIX));
        m.put("slot.name", c.get(CaptureConfig.SLOT));
        m.put("publication.name", c.get(CaptureConfig.PUBLICATION));
        // FOR ALL TABLES: tables created while the pipeline runs are captured without a restart
        m.put("publication.autocreate.mode", "all_tables");
        m.put("schema.include.list", schemas + "," + CaptureConfig.LAB_SCHEMA);
        m.put("snapshot.mode", c.get(CaptureConfig.SNAPSHOT_MODE));
        // intervals are cut by commit time, watermarked in-band by the heartbeat rows; the
        // transaction topic would cost two records per transaction and order nothing
        m.put("provide.transaction.metadata", "false");
        // the key bytes decide partitions, and the heartbeat rows are placed by them: pin the
        // format
        m.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
        m.put("key.converter.schemas.enable", "false");
        m.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        m.put("value.converter.schemas.enable", "true");
        m.put("tombstones.on.delete", "false");
        // context headers on every record cost at every hop and say nothing the topic does not
        m.put("extended.headers.enabled", "false");
        m.put("decimal.handling.mode", "string");
        // precision and scale of decimals (sent as strings) need the source type; every other
        // type is told by its Connect type and Debezium's semantic name, so keep events small
        m.put("datatype.propagate.source.type", ".+\\.numeric,.+\\.decimal,.+\\.money");
        m.put("heartbeat.interval.ms", Long.toString(c.get(CaptureConfig.HEARTBEAT).toMillis()));
        m.put("heartbeat.action.query", "UPDATE " + HEARTBEAT_TABLE + " SET ts = now()");
        // the default 500 ms wait for a fuller batch is pure latency under steady load
        m.put("poll.interval.ms", "20");
        m.put("max.batch.size", "4096");
        m.put("max.queue.size", "32768");
        // every captured table goes to one topic that exists before capture starts: consumers
        // never have to discover topics of tables created later, and partitions stay fixed
        String prefix = c.get(CaptureConfig.TOPIC_PREFIX);
        String schemaAlternatives =
                Arrays.stream((schemas + "," + CaptureConfig.LAB_SCHEMA).split(","))
                        .map(java.util.regex.Pattern::quote)
                        .collect(Collectors.joining("|"));
        m.put("transforms", "route");
        m.put("transforms.route.type", "io.debezium.transforms.ToLogicalTopicRouter");
        m.put(
                "transforms.route.topic.regex",
                java.util.regex.Pattern.quote(prefix) + "\\.(" + schemaAlternatives + ")\\..+");
        m.put("transforms.route.topic.replacement", changeTopic(prefix));
        m.put("transforms.route.key.enforce.uniqueness", "true");
        m.put("transforms.route.key.field.name", TABLE_KEY_FIELD);
        m.put("transforms.route.logical.destination.cache.size", "1024");
        m.put(
                "topic.creation.default.partitions",
                Integer.toString(c.get(CaptureConfig.PARTITIONS)));
        m.put(
                "topic.creation.default.replication.factor",
                Integer.toString(c.get(CaptureConfig.REPLICATION_FACTOR)));
        c.debeziumOverrides().forEach(m::put);
        return m;
    }

    /** The config as the JSON body of {@code POST /connectors}. */
    public static String toJson(String name, Map<String, String> config) {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        root.put("name", name);
        ObjectNode cfg = root.putObject("config");
        config.forEach(cfg::put);
        try {
            return mapper.writeValueAsString(root);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A copy with the password replaced by a placeholder, for printing. */
    public static Map<String, String> redacted(Map<String, String> config) {
        Map<String, String> m = new LinkedHashMap<>(config);
        m.computeIfPresent("database.password", (k, v) -> "${env:CDCLAB_SOURCE_PASSWORD}");
        return m;
    }
}
