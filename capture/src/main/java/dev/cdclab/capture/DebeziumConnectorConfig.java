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
    /** Table the heartbeat action query writes, so idle sources still produce transactions. */
    public static final String HEARTBEAT_TABLE = CaptureConfig.LAB_SCHEMA + ".heartbeat";

    private DebeziumConnectorConfig() {}

    /** Field the router adds to keys so keys of different tables stay distinct. */
    public static final String TABLE_KEY_FIELD = "__dbz__physicalTableIdentifier";

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
        // BEGIN/END events: the Streams app cuts intervals at transaction boundaries with them
        m.put("provide.transaction.metadata", "true");
        m.put("tombstones.on.delete", "false");
        m.put("decimal.handling.mode", "string");
        m.put("column.propagate.source.type", ".*");
        m.put("heartbeat.interval.ms", Long.toString(c.get(CaptureConfig.HEARTBEAT).toMillis()));
        m.put(
                "heartbeat.action.query",
                "INSERT INTO "
                        + HEARTBEAT_TABLE
                        + " (id, ts) VALUES (1, now()) ON CONFLICT (id) DO UPDATE SET ts ="
                        + " EXCLUDED.ts");
        // the default 500 ms wait for a fuller batch is pure latency under steady load
        m.put("poll.interval.ms", "20");
        m.put("max.batch.size", "4096");
        m.put("max.queue.size", "32768");
        // every captured table goes to one topic that exists before capture starts: consumers
        // never have to discover topics of tables created later, and partitions stay fixed
        String prefix = c.get(CaptureConfig.TOPIC_PREFIX);
        String schemaAlternatives =
                Arrays.stream(schemas.split(","))
                        .map(java.util.regex.Pattern::quote)
                        .collect(Collectors.joining("|"));
        m.put("transforms", "route");
        m.put("transforms.route.type", "io.debezium.transforms.ByLogicalTableRouter");
        m.put(
                "transforms.route.topic.regex",
                java.util.regex.Pattern.quote(prefix) + "\\.(" + schemaAlternatives + ")\\..+");
        m.put("transforms.route.topic.replacement", changeTopic(prefix));
        m.put("transforms.route.key.enforce.uniqueness", "true");
        m.put("transforms.route.key.field.name", TABLE_KEY_FIELD);
        m.put(
                "topic.creation.default.partitions",
                Integer.toString(c.get(CaptureConfig.PARTITIONS)));
        m.put(
                "topic.creation.default.replication.factor",
                Integer.toString(c.get(CaptureConfig.REPLICATION_FACTOR)));
        // the transaction topic must stay in one partition: it carries the commit order
        m.put("topic.creation.groups", "transactions");
        m.put(
                "topic.creation.transactions.include",
                java.util.regex.Pattern.quote(c.get(CaptureConfig.TOPIC_PREFIX) + ".transaction"));
        m.put("topic.creation.transactions.partitions", "1");
        m.put(
                "topic.creation.transactions.replication.factor",
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
