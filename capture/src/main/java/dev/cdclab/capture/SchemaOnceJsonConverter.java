package dev.cdclab.capture;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cdclab.config.RowLimit;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.utils.AppInfoParser;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.json.JsonConverterConfig;
import org.apache.kafka.connect.storage.Converter;

/**
 * Kafka Connect's {@code JsonConverter} with schemas enabled, writing the same bytes, but
 * serializing each value schema once instead of with every record.
 *
 * <p>{@code JsonConverter} keeps each schema's JSON tree, but writes that tree out again for every
 * record, and finds it by the schema's deep hash. A change event's schema is most of its bytes
 * (every column's type and name, against its value), so that was most of what the converter cost.
 * This one keeps the schema's bytes, found by the schema object Debezium reuses for every event of
 * a table, and writes {@code {"schema":<kept bytes>,"payload":<payload>}} with {@code
 * JsonConverter}'s own payload conversion. Reading ({@link #toConnectData}) is {@code
 * JsonConverter}'s. Every {@code JsonConverter} setting is accepted, {@code schemas.enable} must
 * stay true.
 */
public final class SchemaOnceJsonConverter implements Converter {
    private static final byte[] SCHEMA_FIELD = "{\"schema\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PAYLOAD_FIELD = ",\"payload\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] JSON_NULL = "null".getBytes(StandardCharsets.US_ASCII);

    /** Beyond this many distinct schemas the kept bytes start over (a schema per table). */
    static final int MAX_KEPT_SCHEMAS = 1024;

    private final ObjectMapper mapper = new ObjectMapper();
    private final JsonConverter withSchemas = new JsonConverter();
    private final JsonConverter payloads = new JsonConverter();

    /** Schema bytes by the schema object; the same schema's next event finds them at once. */
    private final Map<Schema, byte[]> bySchemaObject = new IdentityHashMap<>();

    /** Schema bytes by schema equality, for an equal schema in a new object. */
    private final Map<Schema, byte[]> bySchema = new HashMap<>();

    /** The converter's own setting: the largest payload it writes as it is. */
    static final String MAX_ROW_BYTES_CONFIG = RowLimit.MAX_ROW_BYTES.key();

    private long maxRowBytes = Long.MAX_VALUE;

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        Map<String, Object> own = new HashMap<>(configs);
        Object limit = own.remove(MAX_ROW_BYTES_CONFIG);
        if (limit != null) {
            maxRowBytes = RowLimit.MAX_ROW_BYTES.parse(limit.toString());
        }
        Object enabled = own.get(JsonConverterConfig.SCHEMAS_ENABLE_CONFIG);
        if (enabled != null && !Boolean.parseBoolean(enabled.toString().trim())) {
            throw new DataException(
                    getClass().getSimpleName()
                            + " writes schemas: "
                            + JsonConverterConfig.SCHEMAS_ENABLE_CONFIG
                            + "=false is JsonConverter's job");
        }
        own.put(JsonConverterConfig.SCHEMAS_ENABLE_CONFIG, true);
        withSchemas.configure(own, isKey);
        own.put(JsonConverterConfig.SCHEMAS_ENABLE_CONFIG, false);
        payloads.configure(own, isKey);
    }

    @Override
    public byte[] fromConnectData(String topic, Schema schema, Object value) {
        if (schema == null && value == null) {
            return null;
        }
        byte[] payload = payloads.fromConnectData(topic, schema, value);
        if (payload == null) {
            payload = JSON_NULL;
        }
        if (payload.length > maxRowBytes && value instanceof Struct row) {
            return fromConnectData(topic, tooLarge(schema), tooLarge(row, payload.length));
        }
        byte[] schemaJson = schema == null ? JSON_NULL : schemaBytes(schema);
        byte[] out =
                new byte
                        [SCHEMA_FIELD.length
                                + schemaJson.length
                                + PAYLOAD_FIELD.length
                                + payload.length
                                + 1];
        int at = 0;
        System.arraycopy(SCHEMA_FIELD, 0, out, at, SCHEMA_FIELD.length);
        at += SCHEMA_FIELD.length;
        System.arraycopy(schemaJson, 0, out, at, schemaJson.length);
        at += schemaJson.length;
        System.arraycopy(PAYLOAD_FIELD, 0, out, at, PAYLOAD_FIELD.length);
        at += PAYLOAD_FIELD.length;
        System.arraycopy(payload, 0, out, at, payload.length);
        at += payload.length;
        out[at] = '}';
        return out;
    }

    /** Schemas of the records that stand for rows over the limit, by the row's schema. */
    private final Map<Schema, Schema> tooLargeSchemas = new IdentityHashMap<>();

    /**
     * The schema of the record that stands for a row over the limit: the event's fields that say
     * where the row was (a flat event's added fields, an envelope's source block and operation),
     * without its images, and the row's size.
     */
    private synchronized Schema tooLarge(Schema schema) {
        Schema small = tooLargeSchemas.get(schema);
        if (small == null) {
            boolean envelope = schema.field("after") != null && schema.field("source") != null;
            SchemaBuilder b = SchemaBuilder.struct().name(schema.name()).optional();
            // an envelope keeps its images' schema (the reader takes the columns from it) with
            // no values; a flat row keeps its added fields only (its columns may be required)
            for (Field f : schema.fields()) {
                if (envelope || f.name().startsWith(FLAT_PREFIX)) {
                    b.field(f.name(), f.schema());
                }
            }
            b.field(TOO_LARGE_FIELD, Schema.INT64_SCHEMA);
            small = b.build();
            if (tooLargeSchemas.size() >= MAX_KEPT_SCHEMAS) {
                tooLargeSchemas.clear();
            }
            tooLargeSchemas.put(schema, small);
        }
        return small;
    }

    private Struct tooLarge(Struct row, int bytes) {
        Schema small = tooLarge(row.schema());
        Struct s = new Struct(small);
        for (Field f : small.fields()) {
            boolean image = f.name().equals("before") || f.name().equals("after");
            if (!f.name().equals(TOO_LARGE_FIELD) && !image) {
                s.put(f.name(), row.getWithoutDefault(f.name()));
            }
        }
        return s.put(TOO_LARGE_FIELD, (long) bytes);
    }

    private static final String TOO_LARGE_FIELD = RowLimit.TOO_LARGE_FIELD;

    /** Prefix of the fields {@code ExtractNewRecordState} adds to a flat row. */
    private static final String FLAT_PREFIX = "__";

    private synchronized byte[] schemaBytes(Schema schema) {
        byte[] bytes = bySchemaObject.get(schema);
        if (bytes != null) {
            return bytes;
        }
        bytes = bySchema.get(schema);
        if (bytes == null) {
            try {
                bytes = mapper.writeValueAsBytes(withSchemas.asJsonSchema(schema));
            } catch (JsonProcessingException e) {
                throw new DataException("Converting a Connect schema to JSON failed", e);
            }
            if (bySchema.size() >= MAX_KEPT_SCHEMAS) {
                bySchema.clear();
            }
            bySchema.put(schema, bytes);
        }
        if (bySchemaObject.size() >= MAX_KEPT_SCHEMAS) {
            bySchemaObject.clear();
        }
        bySchemaObject.put(schema, bytes);
        return bytes;
    }

    /** The distinct schema objects whose bytes are kept (for tests). */
    synchronized int keptSchemaObjects() {
        return bySchemaObject.size();
    }

    @Override
    public SchemaAndValue toConnectData(String topic, byte[] value) {
        return withSchemas.toConnectData(topic, value);
    }

    @Override
    public ConfigDef config() {
        return JsonConverterConfig.configDef();
    }

    @Override
    public String version() {
        return AppInfoParser.getVersion();
    }

    @Override
    public void close() {
        withSchemas.close();
        payloads.close();
    }
}
