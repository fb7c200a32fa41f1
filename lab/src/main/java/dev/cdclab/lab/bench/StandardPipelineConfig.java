package dev.cdclab.lab.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The connector configurations of the standard pipeline: Debezium's PostgreSQL connector as cdc-lab
 * runs it, minus cdc-lab's routing and flattening, with what Debezium's JDBC sink needs (key
 * schemas, one topic per table, Debezium's default decimal handling); and the JDBC sink in upsert
 * mode with deletes, keyed by the record key, with the tuning Debezium's documentation recommends:
 * batched multi-row upserts with the reduction buffer, and {@code max.poll.records} equal to {@code
 * batch.size}.
 */
public final class StandardPipelineConfig {
    /** The JDBC sink connector's class. */
    public static final String SINK_CLASS = "io.debezium.connector.jdbc.JdbcSinkConnector";

    private StandardPipelineConfig() {}

    /**
     * The source connector: the same Debezium connector, slot, publication and batching as
     * cdc-lab's, so the two pipelines differ only after Debezium.
     *
     * @param cdcLabSource cdc-lab's connector config for the same source
     */
    public static Map<String, String> source(Map<String, String> cdcLabSource) {
        Map<String, String> m = new LinkedHashMap<>();
        cdcLabSource.forEach(
                (k, v) -> {
                    // value encodings chosen for cdc-lab's sink; the JDBC sink reads Debezium's
                    // defaults
                    if (!k.startsWith("transforms")
                            && !k.equals("decimal.handling.mode")
                            && !k.equals("datatype.propagate.source.type")
                            && !k.equals("interval.handling.mode")
                            && !k.equals("hstore.handling.mode")
                            && !k.equals("include.unknown.datatypes")) {
                        m.put(k, v);
                    }
                });
        // the sink takes the primary key from the record key, which needs its schema
        m.put("key.converter.schemas.enable", "true");
        // its initial snapshot as Debezium's documentation tunes one: a thread per core reading
        // tables in parallel, and its documented fetch size
        m.put("snapshot.max.threads", "2");
        m.put("snapshot.fetch.size", "10240");
        return m;
    }

    /**
     * The sink connector.
     *
     * @param topicPrefix the source connector's topic prefix
     * @param schemas the captured schemas (one topic per table under them)
     * @param tasks the sink's {@code tasks.max} (at most one per table: one topic each)
     */
    public static Map<String, String> sink(
            String topicPrefix,
            List<String> schemas,
            int tasks,
            String warehouseJdbcUrl,
            String user,
            String password) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("connector.class", SINK_CLASS);
        m.put("tasks.max", Integer.toString(Math.max(1, tasks)));
        m.put(
                "topics.regex",
                Pattern.quote(topicPrefix)
                        + "\\.("
                        + schemas.stream().map(Pattern::quote).collect(Collectors.joining("|"))
                        + ")\\..+");
        m.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
        m.put("key.converter.schemas.enable", "true");
        m.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        m.put("value.converter.schemas.enable", "true");
        // batched multi-row upserts; safe only with the reduction buffer (one row per key per
        // batch)
        m.put("connection.url", warehouseJdbcUrl + "?reWriteBatchedInserts=true");
        m.put("connection.username", user);
        m.put("connection.password", password);
        m.put("connection.pool.min_size", "1");
        m.put("connection.pool.max_size", "4");
        m.put("connection.pool.acquire_increment", "1");
        m.put("insert.mode", "upsert");
        m.put("delete.enabled", "true");
        m.put("primary.key.mode", "record_key");
        m.put("schema.evolution", "basic");
        m.put("collection.name.format", "${source.schema}.${source.table}");
        m.put("use.reduction.buffer", "true");
        m.put("batch.size", "500");
        // a poll as large as a batch, so each flush is a full batch (Debezium's JDBC sink docs)
        m.put("consumer.override.max.poll.records", "500");
        return m;
    }

    /** The config with passwords masked, for reports. */
    public static Map<String, String> masked(Map<String, String> config) {
        Map<String, String> m = new LinkedHashMap<>();
        config.forEach((k, v) -> m.put(k, k.contains("password") ? "********" : v));
        return m;
    }
}
