package dev.cdclab.streams.testing;

import dev.cdclab.change.SourcePosition;
import io.debezium.transforms.ExtractNewRecordState;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Builds Kafka records shaped like the capture connector's: Debezium's envelope, routed to one
 * topic by {@code ToLogicalTopicRouter}, serialised by Connect's own {@code JsonConverter} (keys
 * without schema, values with).
 */
public final class DebeziumEvents {
    public static final String PREFIX = "cdclab";
    public static final String TOPIC = PREFIX + ".changes";
    public static final String TABLE = "public.items";
    public static final String PLACEHOLDER = "__debezium_unavailable_value";

    private static final Schema ROW =
            SchemaBuilder.struct()
                    .name("cdclab.changes.Value")
                    .optional()
                    .field("id", Schema.INT32_SCHEMA)
                    .field("name", Schema.OPTIONAL_STRING_SCHEMA)
                    .field("qty", Schema.OPTIONAL_INT32_SCHEMA)
                    .field("note", Schema.OPTIONAL_STRING_SCHEMA)
                    .field(
                            "price",
                            SchemaBuilder.string()
                                    .optional()
                                    .parameter("__debezium.source.column.type", "NUMERIC")
                                    .parameter("__debezium.source.column.length", "10")
                                    .parameter("__debezium.source.column.scale", "2")
                                    .build())
                    .field("gen_commit_us", Schema.OPTIONAL_INT64_SCHEMA)
                    .build();
    private static final Schema HEARTBEAT_ROW =
            SchemaBuilder.struct()
                    .name("cdclab.changes.Value")
                    .optional()
                    .field("id", Schema.INT32_SCHEMA)
                    .field(
                            "ts",
                            SchemaBuilder.string().name("io.debezium.time.ZonedTimestamp").build())
                    .field("reading", Schema.OPTIONAL_STRING_SCHEMA)
                    .build();

    /** A table without a key: a name and a count. */
    private static final Schema LOG_ROW =
            SchemaBuilder.struct()
                    .name("cdclab.changes.Value")
                    .optional()
                    .field("name", Schema.OPTIONAL_STRING_SCHEMA)
                    .field("n", Schema.OPTIONAL_INT32_SCHEMA)
                    .build();

    private static final Schema DDL_ROW =
            SchemaBuilder.struct()
                    .name("cdclab.changes.Value")
                    .optional()
                    .field("id", Schema.INT64_SCHEMA)
                    .field("kind", Schema.STRING_SCHEMA)
                    .field("name", Schema.STRING_SCHEMA)
                    .field("new_name", Schema.OPTIONAL_STRING_SCHEMA)
                    .build();
    private static final Schema SOURCE =
            SchemaBuilder.struct()
                    .name("io.debezium.connector.postgresql.Source")
                    .field("version", Schema.STRING_SCHEMA)
                    .field("connector", Schema.STRING_SCHEMA)
                    .field("name", Schema.STRING_SCHEMA)
                    .field("ts_ms", Schema.INT64_SCHEMA)
                    .field("snapshot", Schema.OPTIONAL_STRING_SCHEMA)
                    .field("db", Schema.STRING_SCHEMA)
                    .field("sequence", Schema.OPTIONAL_STRING_SCHEMA)
                    .field("schema", Schema.STRING_SCHEMA)
                    .field("table", Schema.STRING_SCHEMA)
                    .field("txId", Schema.OPTIONAL_INT64_SCHEMA)
                    .field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
                    .build();

    private final JsonConverter keys = new JsonConverter();
    private final JsonConverter values = new JsonConverter();
    private final ExtractNewRecordState<SourceRecord> unwrap;

    /** Events in Debezium's envelope. */
    public DebeziumEvents() {
        this(false);
    }

    /**
     * @param flat true makes flat rows with Debezium's own {@code ExtractNewRecordState}, set up as
     *     the capture stage sets it up
     */
    public DebeziumEvents(boolean flat) {
        keys.configure(Map.of("schemas.enable", "false"), true);
        values.configure(Map.of("schemas.enable", "true"), false);
        if (flat) {
            unwrap = new ExtractNewRecordState<>();
            unwrap.configure(
                    Map.of(
                            "add.fields",
                            "op,ts_ms,source.ts_ms,schema,table,snapshot,lsn,txId,sequence",
                            "delete.tombstone.handling.mode",
                            "rewrite"));
        } else {
            unwrap = null;
        }
    }

    /** Serialises an envelope, flattened first when this makes flat rows. */
    private byte[] serialise(Schema env, Struct v) {
        if (unwrap == null) {
            return values.fromConnectData(TOPIC, env, v);
        }
        SourceRecord flat =
                unwrap.apply(new SourceRecord(Map.of(), Map.of(), TOPIC, null, null, env, v));
        return values.fromConnectData(TOPIC, flat.valueSchema(), flat.value());
    }

    /** A row of {@code public.items}; null values are SQL NULL. */
    public static Map<String, Object> row(int id, String name, Integer qty) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("id", id);
        r.put("name", name);
        r.put("qty", qty);
        r.put("note", null);
        r.put("price", "1.50");
        r.put("gen_commit_us", null);
        return r;
    }

    public byte[] key(int id) {
        return key(TABLE, id);
    }

    /** The key the router writes: the row key plus the physical table identifier. */
    public byte[] key(String table, int id) {
        Schema ks =
                SchemaBuilder.struct()
                        .field("id", Schema.INT32_SCHEMA)
                        .field("__dbz__sourceIdentifier", Schema.STRING_SCHEMA)
                        .build();
        Struct k =
                new Struct(ks).put("id", id).put("__dbz__sourceIdentifier", PREFIX + "." + table);
        return keys.fromConnectData(TOPIC, ks, k);
    }

    /**
     * A change to {@code public.items}.
     *
     * @param op c, u, d or r
     * @param after the row after the change (null for deletes)
     * @param before the row before (only the key for REPLICA IDENTITY DEFAULT deletes)
     */
    public byte[] change(
            char op,
            Map<String, Object> before,
            Map<String, Object> after,
            long lsn,
            long txId,
            long commitMs) {
        return envelope(ROW, "public", "items", op, before, after, lsn, txId, commitMs);
    }

    /** A heartbeat-table update committed at {@code commitMs}. */
    public byte[] heartbeat(int id, long lsn, long txId, long commitMs) {
        return heartbeat(id, lsn, txId, commitMs, null);
    }

    /** A heartbeat-table update saying which table a re-snapshot reads (null: none). */
    public byte[] heartbeat(int id, long lsn, long txId, long commitMs, String reading) {
        Map<String, Object> after = new LinkedHashMap<>();
        after.put("id", id);
        after.put("ts", "2026-11-21T00:00:00Z");
        after.put("reading", reading);
        return envelope(
                HEARTBEAT_ROW, "cdc_lab", "heartbeat", 'u', null, after, lsn, txId, commitMs);
    }

    public byte[] heartbeatKey(int id) {
        return key("cdc_lab.heartbeat", id);
    }

    /**
     * A row of {@code public.items} a snapshot reading tables whole read at {@code lsn}, marked as
     * Debezium marks it ({@code first}, {@code true}, {@code last_in_data_collection}, ...).
     */
    public byte[] snapshotRead(Map<String, Object> after, long lsn, long commitMs, String mark) {
        Struct v = envelopeValue(ROW, "public", "items", 'r', null, after, lsn, 0, commitMs);
        v.getStruct("source").put("snapshot", mark);
        return serialise(envelopeSchema(ROW), v);
    }

    /**
     * A row of {@code public.items} an incremental snapshot read: op {@code r}, no log position, no
     * transaction.
     */
    public byte[] incrementalRead(Map<String, Object> after, long commitMs) {
        Struct v = envelopeValue(ROW, "public", "items", 'r', null, after, 0, 0, commitMs);
        Struct source = v.getStruct("source");
        source.put("snapshot", "incremental").put("lsn", null).put("txId", null);
        return serialise(envelopeSchema(ROW), v);
    }

    /** A row of the keyless {@code public.log}. */
    public static Map<String, Object> logRow(String name, int n) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("name", name);
        r.put("n", n);
        return r;
    }

    /**
     * The key capture gives an event Debezium sends without one (a keyless table's change, a
     * truncate): its table, then the router's identifier.
     */
    public byte[] keylessKey(String table) {
        Schema ks =
                SchemaBuilder.struct()
                        .field("__cdclab_table", Schema.STRING_SCHEMA)
                        .field("__dbz__sourceIdentifier", Schema.STRING_SCHEMA)
                        .build();
        Struct k =
                new Struct(ks)
                        .put("__cdclab_table", PREFIX + "." + table)
                        .put("__dbz__sourceIdentifier", PREFIX + "." + table);
        return keys.fromConnectData(TOPIC, ks, k);
    }

    /**
     * A change of the keyless {@code public.log}, in Debezium's envelope whatever this makes: the
     * capture stage keeps such events whole for their old image.
     */
    public byte[] keyless(
            char op,
            Map<String, Object> before,
            Map<String, Object> after,
            long lsn,
            long txId,
            long commitMs) {
        return values.fromConnectData(
                TOPIC,
                envelopeSchema(LOG_ROW),
                envelopeValue(LOG_ROW, "public", "log", op, before, after, lsn, txId, commitMs));
    }

    /** A truncate of {@code schema.table}, whole as the capture stage keeps it. */
    public byte[] truncate(String schema, String table, long lsn, long txId, long commitMs) {
        return values.fromConnectData(
                TOPIC,
                envelopeSchema(ROW),
                envelopeValue(ROW, schema, table, 't', null, null, lsn, txId, commitMs));
    }

    /** A row cdc-lab's event trigger logs for a rename ({@code newName}) or drop. */
    public byte[] ddl(
            char op,
            long id,
            String kind,
            String name,
            String newName,
            long lsn,
            long txId,
            long commitMs) {
        Map<String, Object> after = new LinkedHashMap<>();
        after.put("id", id);
        after.put("kind", kind);
        after.put("name", name);
        after.put("new_name", newName);
        return envelope(DDL_ROW, "cdc_lab", "ddl_events", op, null, after, lsn, txId, commitMs);
    }

    public byte[] ddlKey(long id) {
        Schema ks =
                SchemaBuilder.struct()
                        .field("id", Schema.INT64_SCHEMA)
                        .field("__dbz__sourceIdentifier", Schema.STRING_SCHEMA)
                        .build();
        Struct k =
                new Struct(ks)
                        .put("id", id)
                        .put("__dbz__sourceIdentifier", PREFIX + ".cdc_lab.ddl_events");
        return keys.fromConnectData(TOPIC, ks, k);
    }

    private byte[] envelope(
            Schema row,
            String schema,
            String table,
            char op,
            Map<String, Object> before,
            Map<String, Object> after,
            long lsn,
            long txId,
            long commitMs) {
        return serialise(
                envelopeSchema(row),
                envelopeValue(row, schema, table, op, before, after, lsn, txId, commitMs));
    }

    private static Schema envelopeSchema(Schema row) {
        return SchemaBuilder.struct()
                .name("cdclab.changes.Envelope")
                .field("before", row)
                .field("after", row)
                .field("source", SOURCE)
                .field("op", Schema.STRING_SCHEMA)
                .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
                .build();
    }

    private Struct envelopeValue(
            Schema row,
            String schema,
            String table,
            char op,
            Map<String, Object> before,
            Map<String, Object> after,
            long lsn,
            long txId,
            long commitMs) {
        Schema env = envelopeSchema(row);
        Struct source =
                new Struct(SOURCE)
                        .put("version", "3.7.0.Final")
                        .put("connector", "postgresql")
                        .put("name", PREFIX)
                        .put("ts_ms", commitMs)
                        .put("snapshot", op == 'r' ? "true" : "false")
                        .put("db", "cdclab")
                        .put("sequence", sequence(op, txId, lsn))
                        .put("schema", schema)
                        .put("table", table)
                        .put("txId", op == 'r' ? null : txId)
                        .put("lsn", lsn);
        Struct v =
                new Struct(env)
                        .put("before", struct(row, before))
                        .put("after", struct(row, after))
                        .put("source", source)
                        .put("op", String.valueOf(op))
                        .put("ts_ms", commitMs + 5);
        return v;
    }

    /** Per transaction, the log position of its first event the tests sent. */
    private final Map<Long, Long> firstLsn = new java.util.HashMap<>();

    /** Transactions sent as the first one the log delivers after a snapshot: no commit before. */
    private final java.util.Set<Long> noCommitBefore = new java.util.HashSet<>();

    /**
     * Sends transaction {@code txId} as the first one the log delivers after a snapshot: its {@code
     * source.sequence} names no commit before it.
     */
    public void followingNoCommit(long txId) {
        noCommitBefore.add(txId);
    }

    /**
     * The position the event reader gives a change these events sent at {@code lsn} in transaction
     * {@code txId}: after the commit before its transaction.
     */
    public String position(long txId, long lsn) {
        Long first = firstLsn.get(txId);
        return first == null
                ? SourcePosition.postgres(lsn)
                : SourcePosition.postgres(first - 1, lsn);
    }

    /**
     * PostgreSQL's {@code source.sequence}, {@code ["<last commit>","<lsn>"]}: the last commit is
     * just before the transaction's first event (transactions are sent in commit order); a snapshot
     * read has none.
     */
    private String sequence(char op, long txId, long lsn) {
        if (op == 'r' || noCommitBefore.contains(txId)) {
            return "[null,\"" + lsn + "\"]";
        }
        long first = firstLsn.computeIfAbsent(txId, t -> lsn);
        return "[\"" + (first - 1) + "\",\"" + lsn + "\"]";
    }

    private static Struct struct(Schema schema, Map<String, Object> values) {
        if (values == null) {
            return null;
        }
        Struct s = new Struct(schema);
        values.forEach(s::put);
        return s;
    }
}
