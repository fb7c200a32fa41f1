package dev.cdclab.capture;

import dev.cdclab.change.ChangeKeyFields;
import dev.cdclab.config.RowLimit;
import dev.cdclab.config.RunNames;
import dev.cdclab.format.JsonText;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Debezium connector configuration cdc-lab runs with, whatever the source: the parts every
 * source shares (converters, routing, heartbeats, batching) are here, the rest in each {@link
 * CaptureSource}. The JSON can be POSTed to any Kafka Connect cluster that has the Debezium plugin
 * of the source.
 */
public final class DebeziumConnectorConfig {
    /**
     * Table the heartbeat action query updates: one row per partition of the changes topic, so
     * every partition sees the source's commit time advance even when it is idle.
     */
    public static final String HEARTBEAT_TABLE = CaptureConfig.LAB_SCHEMA + ".heartbeat";

    /** Field the router adds to keys so keys of different tables stay distinct. */
    public static final String TABLE_KEY_FIELD = ChangeKeyFields.ROUTER;

    /**
     * Name of the predicate that lets truncates and changes of tables without a key pass the
     * flattening transform whole.
     */
    static final String ENVELOPE_PREDICATE = "envelope";

    /** Name of the transform that keys events of tables without a key by their table. */
    static final String KEYLESS_TRANSFORM = "keyless";

    /** Name of the transform that keeps the notifications of tables a snapshot found empty. */
    static final String EMPTY_SCANS_TRANSFORM = "emptyscans";

    private static final String VALUE_CONVERTER = "value.converter";

    /** Where a connector config sets its own producer's settings (the worker must allow it). */
    static final String PRODUCER_OVERRIDE = "producer.override.";

    /** The setting of Connect's JSON converter and of Debezium's flattening that keeps nulls. */
    private static final String REPLACE_NULL_WITH_DEFAULT = "replace.null.with.default";

    private static final String JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter";

    private static final Logger LOG = LoggerFactory.getLogger(DebeziumConnectorConfig.class);

    private DebeziumConnectorConfig() {}

    /** A connector config as a Connect cluster accepts it, and the problems it still has. */
    public record Fitted(Map<String, String> config, List<String> problems) {}

    /**
     * Validates {@code config} on the cluster. A cluster without cdc-lab's {@link
     * KeepEnvelopePredicate}, {@link KeylessEventKey} and {@link EmptyTableScans} (a worker of your
     * own, without cdc-lab's capture jar on its plugin path) gets the config without them, and a
     * warning says what that costs: a {@code TRUNCATE} goes unseen, as with stock Debezium, the
     * updates of a table without a key lose their old image, and a table a new snapshot finds empty
     * keeps its rows in the warehouse. Without cdc-lab's {@link SchemaOnceJsonConverter} it gets
     * Connect's {@code JsonConverter}, which writes the same bytes.
     */
    public static Fitted fitTo(ConnectRestClient rest, String name, Map<String, String> config) {
        List<String> problems = rest.validate(name, config);
        if (SchemaOnceJsonConverter.class.getName().equals(config.get(VALUE_CONVERTER))
                && problems.stream().anyMatch(p -> p.startsWith(VALUE_CONVERTER + ":"))) {
            // the same bytes either way, only more CPU for the worker
            LOG.info(
                    "Kafka Connect at {} does not have {}; its events are written by {}",
                    rest.baseUrl(),
                    SchemaOnceJsonConverter.class.getName(),
                    JSON_CONVERTER);
            config = new LinkedHashMap<>(config);
            config.put(VALUE_CONVERTER, JSON_CONVERTER);
            problems = rest.validate(name, config);
        }
        if (problems.stream().anyMatch(p -> p.startsWith(PRODUCER_OVERRIDE))) {
            // a worker whose client.config.override.policy refuses them: its own limits hold
            LOG.warn(
                    "Kafka Connect at {} does not let a connector set its producer's limits"
                            + " (connector.client.config.override.policy): rows its producer"
                            + " cannot send will fail the connector instead of being set aside",
                    rest.baseUrl());
            config = new LinkedHashMap<>(config);
            config.keySet().removeIf(k -> k.startsWith(PRODUCER_OVERRIDE));
            problems = rest.validate(name, config);
        }
        List<String> ours =
                List.of(
                        "predicates." + ENVELOPE_PREDICATE + ".type",
                        "transforms." + KEYLESS_TRANSFORM + ".type",
                        "transforms." + EMPTY_SCANS_TRANSFORM + ".type");
        if (problems.stream().anyMatch(p -> ours.stream().anyMatch(p::startsWith))) {
            LOG.warn(
                    "Kafka Connect at {} does not have cdc-lab's {}, {} and {} (put cdc-lab's"
                            + " capture jar on its plugin.path): a TRUNCATE will not be detected,"
                            + " updates of tables without a key cannot be applied, and a table a"
                            + " new snapshot finds empty keeps its rows in the warehouse",
                    rest.baseUrl(),
                    KeepEnvelopePredicate.class.getName(),
                    KeylessEventKey.class.getName(),
                    EmptyTableScans.class.getName());
            List<String> transforms = List.of(KEYLESS_TRANSFORM, EMPTY_SCANS_TRANSFORM);
            Map<String, String> without = new LinkedHashMap<>(config);
            without.keySet().removeIf(k -> k.startsWith("predicates"));
            without.keySet()
                    .removeIf(
                            k ->
                                    transforms.stream()
                                            .anyMatch(t -> k.startsWith("transforms." + t + ".")));
            without.remove("transforms.unwrap.predicate");
            without.remove("transforms.unwrap.negate");
            without.computeIfPresent(
                    "transforms",
                    (k, v) ->
                            String.join(
                                    ",",
                                    java.util.Arrays.stream(v.split(","))
                                            .filter(t -> !transforms.contains(t))
                                            .toList()));
            return new Fitted(without, rest.validate(name, without));
        }
        return new Fitted(config, problems);
    }

    /** Connector properties for the source {@code c} names, password included (do not log). */
    public static Map<String, String> of(CaptureConfig c) {
        return CaptureSource.of(c).connectorConfig();
    }

    /**
     * The settings every source shares, then {@code debezium.*} overrides.
     *
     * @param c the capture config
     * @param specific the source's own keys, applied after the shared ones
     * @param topicNamespace what Debezium puts between the prefix and the schema in a table's topic
     *     name ({@code ""} for PostgreSQL, {@code "<db>."} for SQL Server)
     * @param heartbeatQuery the heartbeat action query in the source's SQL
     * @param router the routing transform the source's Debezium plugin ships
     * @param positionFields the {@code source} fields that hold the source's log position
     */
    static Map<String, String> assemble(
            CaptureConfig c,
            Map<String, String> specific,
            String topicNamespace,
            String heartbeatQuery,
            Router router,
            String positionFields) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("tasks.max", "1");
        m.put("database.hostname", c.get(CaptureConfig.HOST));
        m.put("database.port", Integer.toString(c.port()));
        m.put("database.user", c.user());
        m.put("database.password", c.password() == null ? "" : c.password());
        m.put("topic.prefix", c.get(CaptureConfig.TOPIC_PREFIX));
        m.put("snapshot.mode", c.get(CaptureConfig.SNAPSHOT_MODE));
        // intervals are cut by commit time, watermarked in-band by the heartbeat rows; the
        // transaction topic would cost two records per transaction and order nothing
        m.put("provide.transaction.metadata", "false");
        // the key bytes decide partitions, and the heartbeat rows are placed by them: pin the
        // format
        m.put("key.converter", JSON_CONVERTER);
        m.put("key.converter.schemas.enable", "false");
        // JsonConverter's bytes, with each table's schema serialized once, not with every event
        m.put(VALUE_CONVERTER, SchemaOnceJsonConverter.class.getName());
        m.put("value.converter.schemas.enable", "true");
        // a NULL stays NULL: JsonConverter writes a null field's schema default otherwise
        // (KIP-581), so a NULL written into a column with a DEFAULT would arrive as the default
        m.put("value.converter." + REPLACE_NULL_WITH_DEFAULT, "false");
        // a row over the limit is written as a record saying where it was and how large, so
        // that it stops nothing downstream; the producer takes the largest records that leaves
        long rowBytes = c.get(RowLimit.MAX_ROW_BYTES);
        m.put("value.converter." + RowLimit.MAX_ROW_BYTES.key(), Long.toString(rowBytes));
        m.put(
                PRODUCER_OVERRIDE + "max.request.size",
                Long.toString(RowLimit.messageBytes(rowBytes)));
        m.put(
                PRODUCER_OVERRIDE + "buffer.memory",
                Long.toString(RowLimit.producerBufferBytes(rowBytes)));
        m.put(
                "topic.creation.default.max.message.bytes",
                Long.toString(RowLimit.messageBytes(rowBytes)));
        m.put("tombstones.on.delete", "false");
        // context headers on every record cost at every hop and say nothing the topic does not
        m.put("extended.headers.enabled", "false");
        // Debezium 3.7 hands every event's lag to a thread of its own, which folds it into a
        // quantile sketch for JMX that the lab, timing each stage itself, never reads
        m.put("statistics.metrics.enabled", "false");
        m.put("decimal.handling.mode", "string");
        m.put("heartbeat.interval.ms", Long.toString(c.get(CaptureConfig.HEARTBEAT).toMillis()));
        m.put("heartbeat.action.query", heartbeatQuery);
        m.put("poll.interval.ms", Long.toString(c.pollInterval().toMillis()));
        m.put("max.batch.size", Integer.toString(c.get(CaptureConfig.MAX_BATCH_SIZE)));
        m.put("max.queue.size", Integer.toString(c.get(CaptureConfig.MAX_QUEUE_SIZE)));
        String included = columnIncludeList(c);
        if (included != null) {
            m.put("column.include.list", included);
        }
        // every captured table goes to one topic that exists before capture starts: consumers
        // never have to discover topics of tables created later, and partitions stay fixed
        String prefix = c.get(CaptureConfig.TOPIC_PREFIX);
        if (c.get(CaptureConfig.EVENT_FORMAT) == CaptureConfig.EventFormat.FLAT) {
            m.put("transforms", EMPTY_SCANS_TRANSFORM + ",unwrap," + KEYLESS_TRANSFORM + ",route");
            m.put("transforms.unwrap.type", "io.debezium.transforms.ExtractNewRecordState");
            // its field copies read a null as the schema's default unless told not to (DBZ-7094)
            m.put("transforms.unwrap." + REPLACE_NULL_WITH_DEFAULT, "false");
            m.put(
                    "transforms.unwrap.add.fields",
                    "op,ts_ms,source.ts_ms,schema,table,snapshot," + positionFields);
            // deletes stay records (with __deleted), no tombstones
            m.put("transforms.unwrap.delete.tombstone.handling.mode", "rewrite");
            // ExtractNewRecordState drops TRUNCATE events and the old image; truncates and the
            // changes of tables without a key pass it whole instead (the source must not skip
            // truncates either)
            m.put("transforms.unwrap.predicate", ENVELOPE_PREDICATE);
            m.put("transforms.unwrap.negate", "true");
            m.put("predicates", ENVELOPE_PREDICATE);
            m.put(
                    "predicates." + ENVELOPE_PREDICATE + ".type",
                    KeepEnvelopePredicate.class.getName());
        } else {
            m.put("transforms", EMPTY_SCANS_TRANSFORM + "," + KEYLESS_TRANSFORM + ",route");
        }
        m.put("transforms." + KEYLESS_TRANSFORM + ".type", KeylessEventKey.class.getName());
        // the connector reports its snapshots' progress on a topic of its own; a snapshot sends
        // no row for an empty table, and the transform moves the notification saying so into
        // the change topic, in order with the rows
        m.put("notification.enabled.channels", "sink");
        m.put("notification.sink.topic.name", RunNames.notificationTopic(prefix));
        m.put("transforms." + EMPTY_SCANS_TRANSFORM + ".type", EmptyTableScans.class.getName());
        m.put(
                "transforms." + EMPTY_SCANS_TRANSFORM + "." + EmptyTableScans.TOPIC_CONFIG,
                RunNames.changeTopic(prefix));
        m.put("transforms.route.type", router.className());
        m.put("transforms.route.topic.regex", routeRegex(c, topicNamespace));
        m.put("transforms.route.topic.replacement", RunNames.changeTopic(prefix));
        m.put("transforms.route.key.enforce.uniqueness", "true");
        m.put("transforms.route.key.field.name", TABLE_KEY_FIELD);
        m.put("transforms.route." + router.cacheSizeKey(), "1024");
        m.put(
                "topic.creation.default.partitions",
                Integer.toString(c.get(CaptureConfig.PARTITIONS)));
        m.put(
                "topic.creation.default.replication.factor",
                Integer.toString(c.get(CaptureConfig.REPLICATION_FACTOR)));
        m.putAll(specific);
        c.debeziumOverrides().forEach(m::put);
        return m;
    }

    /**
     * Debezium's routing transform as a plugin version names it: {@code ToLogicalTopicRouter} since
     * 3.7, {@code ByLogicalTableRouter} before (3.7 still takes the old name and its settings).
     */
    enum Router {
        /** Debezium 3.7 and later. */
        TO_LOGICAL_TOPIC(
                "io.debezium.transforms.ToLogicalTopicRouter", "logical.destination.cache.size"),
        /** Debezium before 3.7. */
        BY_LOGICAL_TABLE("io.debezium.transforms.ByLogicalTableRouter", "logical.table.cache.size");

        private final String className;
        private final String cacheSizeKey;

        Router(String className, String cacheSizeKey) {
            this.className = className;
            this.cacheSizeKey = cacheSizeKey;
        }

        String className() {
            return className;
        }

        String cacheSizeKey() {
            return cacheSizeKey;
        }
    }

    /** The captured schemas and the lab's own, as a comma list. */
    static String schemaList(CaptureConfig c) {
        return String.join(",", c.schemas()) + "," + CaptureConfig.LAB_SCHEMA;
    }

    private static String routeRegex(CaptureConfig c, String namespace) {
        List<String> schemas = new java.util.ArrayList<>(c.schemas());
        schemas.add(CaptureConfig.LAB_SCHEMA);
        String alternatives = schemas.stream().map(Pattern::quote).collect(Collectors.joining("|"));
        return Pattern.quote(c.get(CaptureConfig.TOPIC_PREFIX) + "." + namespace)
                + "("
                + alternatives
                + ")\\..+";
    }

    /**
     * Debezium's {@code column.include.list} for {@link CaptureConfig#CAPTURED_COLUMNS}: a regex
     * per column, {@code schema.table.column}; null when every column is captured.
     */
    private static String columnIncludeList(CaptureConfig c) {
        Map<String, List<String>> cols = c.capturedColumns();
        if (cols.isEmpty()) {
            return null;
        }
        String schemas =
                "("
                        + c.schemas().stream().map(Pattern::quote).collect(Collectors.joining("|"))
                        + ")";
        List<String> patterns = new java.util.ArrayList<>();
        for (var e : cols.entrySet()) {
            String table = e.getKey();
            String tablePattern;
            if (table.isEmpty()) {
                tablePattern = schemas + "\\.[^.]+";
            } else if (table.contains(".")) {
                tablePattern = Pattern.quote(table);
            } else {
                tablePattern = schemas + "\\." + Pattern.quote(table);
            }
            for (String col : e.getValue()) {
                patterns.add(tablePattern + "\\." + Pattern.quote(col));
            }
        }
        // the heartbeat table is always captured whole
        patterns.add(Pattern.quote(CaptureConfig.LAB_SCHEMA) + "\\..+");
        return String.join(",", patterns);
    }

    /** The config as the JSON body of {@code POST /connectors}. */
    public static String toJson(String name, Map<String, String> config) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", name);
        body.put("config", config);
        return JsonText.of(body);
    }

    /** A copy with the password replaced by a placeholder, for printing. */
    public static Map<String, String> redacted(Map<String, String> config) {
        Map<String, String> m = new LinkedHashMap<>(config);
        m.computeIfPresent(
                "database.password",
                (k, v) -> v.startsWith("${") ? v : "${env:CDCLAB_SOURCE_PASSWORD}");
        return m;
    }
}
