package dev.cdclab.streams.testing;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;

/**
 * Records shaped like the Debezium SQL Server connector's (3.6): its envelope with the {@code
 * transaction} block and {@code ts_us}/{@code ts_ns}, the {@code source} block with {@code
 * commit_lsn}, {@code change_lsn} and {@code event_serial_no} (null for snapshot reads), SQL Server
 * column types as Connect types, routed to one topic and serialised by Connect's JsonConverter.
 */
public final class SqlServerEvents {
    public static final String PREFIX = "cdclab";
    public static final String DATABASE = "shop";

    private static final Schema ORDERS =
            SchemaBuilder.struct()
                    .name(PREFIX + "." + DATABASE + ".dbo.orders.Value")
                    .optional()
                    .field("id", Schema.INT32_SCHEMA)
                    .field("status", Schema.OPTIONAL_STRING_SCHEMA)
                    .field(
                            "amount",
                            SchemaBuilder.string()
                                    .optional()
                                    .parameter("__debezium.source.column.type", "DECIMAL")
                                    .parameter("__debezium.source.column.length", "12")
                                    .parameter("__debezium.source.column.scale", "2")
                                    .build())
                    .field("paid", Schema.OPTIONAL_BOOLEAN_SCHEMA)
                    .field(
                            "placed_at",
                            SchemaBuilder.int64()
                                    .name("io.debezium.time.NanoTimestamp")
                                    .version(1)
                                    .optional()
                                    .build())
                    .field(
                            "shipped_at",
                            SchemaBuilder.string()
                                    .name("io.debezium.time.ZonedTimestamp")
                                    .version(1)
                                    .optional()
                                    .build())
                    .field("ref", Schema.OPTIONAL_STRING_SCHEMA)
                    .build();
    private static final Schema HEARTBEAT =
            SchemaBuilder.struct()
                    .name(PREFIX + "." + DATABASE + ".cdc_lab.heartbeat.Value")
                    .optional()
                    .field("id", Schema.INT32_SCHEMA)
                    .field(
                            "ts",
                            SchemaBuilder.int64()
                                    .name("io.debezium.time.Timestamp")
                                    .version(1)
                                    .build())
                    .build();
    private static final Schema SOURCE =
            SchemaBuilder.struct()
                    .name("io.debezium.connector.sqlserver.Source")
                    .version(1)
                    .field("version", Schema.STRING_SCHEMA)
                    .field("connector", Schema.STRING_SCHEMA)
                    .field("name", Schema.STRING_SCHEMA)
                    .field("ts_ms", Schema.INT64_SCHEMA)
                    .field("snapshot", Schema.OPTIONAL_STRING_SCHEMA)
                    .field("db", Schema.STRING_SCHEMA)
                    .field("sequence", Schema.OPTIONAL_STRING_SCHEMA)
                    .field("ts_us", Schema.OPTIONAL_INT64_SCHEMA)
                    .field("ts_ns", Schema.OPTIONAL_INT64_SCHEMA)
                    .field("schema", Schema.STRING_SCHEMA)
                    .field("table", Schema.STRING_SCHEMA)
                    .field("change_lsn", Schema.OPTIONAL_STRING_SCHEMA)
                    .field("commit_lsn", Schema.OPTIONAL_STRING_SCHEMA)
                    .field("event_serial_no", Schema.OPTIONAL_INT64_SCHEMA)
                    .build();
    private static final Schema TRANSACTION =
            SchemaBuilder.struct()
                    .name("event.block")
                    .version(1)
                    .optional()
                    .field("id", Schema.STRING_SCHEMA)
                    .field("total_order", Schema.INT64_SCHEMA)
                    .field("data_collection_order", Schema.INT64_SCHEMA)
                    .build();

    private final JsonConverter keys = new JsonConverter();
    private final JsonConverter values = new JsonConverter();

    public SqlServerEvents() {
        keys.configure(Map.of("schemas.enable", "false"), true);
        values.configure(Map.of("schemas.enable", "true"), false);
    }

    /** A row of {@code dbo.orders}. */
    public static Map<String, Object> order(int id, String status, String amount) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("id", id);
        r.put("status", status);
        r.put("amount", amount);
        r.put("paid", "paid".equals(status));
        r.put("placed_at", 1_763_683_200_123_456_700L);
        r.put("shipped_at", null);
        r.put("ref", "6F9619FF-8B86-D011-B42D-00C04FC964FF");
        return r;
    }

    /** The key of {@code schema.table} the router writes. */
    public byte[] key(String schemaTable, int id) {
        Schema ks =
                SchemaBuilder.struct()
                        .field("id", Schema.INT32_SCHEMA)
                        .field("__dbz__sourceIdentifier", Schema.STRING_SCHEMA)
                        .build();
        Struct k =
                new Struct(ks)
                        .put("id", id)
                        .put(
                                "__dbz__sourceIdentifier",
                                PREFIX + "." + DATABASE + "." + schemaTable);
        return keys.fromConnectData(PREFIX + ".changes", ks, k);
    }

    /**
     * A change to {@code dbo.orders}.
     *
     * @param commitLsn the transaction's commit LSN, e.g. {@code 00000027:00000758:0005}
     * @param changeLsn the change's LSN; null for a snapshot read
     * @param serial {@code event_serial_no}; null for a snapshot read
     */
    public byte[] order(
            char op,
            Map<String, Object> before,
            Map<String, Object> after,
            String commitLsn,
            String changeLsn,
            Long serial,
            long commitMs) {
        return envelope(
                ORDERS, "dbo", "orders", op, before, after, commitLsn, changeLsn, serial, commitMs);
    }

    /** A heartbeat-table update. */
    public byte[] heartbeat(String commitLsn, String changeLsn, long commitMs) {
        Map<String, Object> after = new LinkedHashMap<>();
        after.put("id", 1);
        after.put("ts", commitMs);
        return envelope(
                HEARTBEAT,
                "cdc_lab",
                "heartbeat",
                'u',
                after,
                after,
                commitLsn,
                changeLsn,
                1L,
                commitMs);
    }

    /** The source block with a field set to an arbitrary JSON value, for malformed events. */
    public byte[] orderWithSource(Map<String, Object> sourceOverrides, long commitMs) {
        Map<String, Object> after = order(1, "new", "1.00");
        Struct source =
                source(
                        "dbo",
                        "orders",
                        'c',
                        "00000027:00000758:0005",
                        "00000027:00000750:0002",
                        1L,
                        commitMs);
        sourceOverrides.forEach(source::put);
        return values.fromConnectData(
                PREFIX + ".changes",
                envelopeSchema(ORDERS),
                value(ORDERS, 'c', null, after, source, commitMs));
    }

    private byte[] envelope(
            Schema row,
            String schema,
            String table,
            char op,
            Map<String, Object> before,
            Map<String, Object> after,
            String commitLsn,
            String changeLsn,
            Long serial,
            long commitMs) {
        Struct source = source(schema, table, op, commitLsn, changeLsn, serial, commitMs);
        return values.fromConnectData(
                PREFIX + ".changes",
                envelopeSchema(row),
                value(row, op, before, after, source, commitMs));
    }

    private static Schema envelopeSchema(Schema row) {
        return SchemaBuilder.struct()
                .name(row.name().replace(".Value", ".Envelope"))
                .version(2)
                .field("before", row)
                .field("after", row)
                .field("source", SOURCE)
                .field("transaction", TRANSACTION)
                .field("op", Schema.STRING_SCHEMA)
                .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
                .field("ts_us", Schema.OPTIONAL_INT64_SCHEMA)
                .field("ts_ns", Schema.OPTIONAL_INT64_SCHEMA)
                .build();
    }

    private static Struct value(
            Schema row,
            char op,
            Map<String, Object> before,
            Map<String, Object> after,
            Struct source,
            long commitMs) {
        return new Struct(envelopeSchema(row))
                .put("before", struct(row, before))
                .put("after", op == 'd' ? null : struct(row, after))
                .put("source", source)
                .put("transaction", null)
                .put("op", String.valueOf(op))
                .put("ts_ms", commitMs + 7)
                .put("ts_us", (commitMs + 7) * 1000)
                .put("ts_ns", (commitMs + 7) * 1_000_000);
    }

    private static Struct source(
            String schema,
            String table,
            char op,
            String commitLsn,
            String changeLsn,
            Long serial,
            long commitMs) {
        return new Struct(SOURCE)
                .put("version", "3.6.1.Final")
                .put("connector", "sqlserver")
                .put("name", PREFIX)
                .put("ts_ms", commitMs)
                .put("snapshot", op == 'r' ? "true" : "false")
                .put("db", DATABASE)
                .put("sequence", null)
                .put("ts_us", commitMs * 1000)
                .put("ts_ns", commitMs * 1_000_000)
                .put("schema", schema)
                .put("table", table)
                .put("change_lsn", changeLsn)
                .put("commit_lsn", commitLsn)
                .put("event_serial_no", serial);
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
