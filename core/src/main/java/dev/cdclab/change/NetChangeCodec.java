package dev.cdclab.change;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * JSON encoding of the net-changes topic. Keys are {@code schema.table/<key json>} for net changes
 * and {@code __marker__/<task>} for interval markers; values are JSON objects documented in the
 * README. Row images are copied as raw JSON; column lists carry an id so a reader parses each
 * distinct list once.
 */
public final class NetChangeCodec {
    /** Key prefix of interval markers. */
    public static final String MARKER_KEY_PREFIX = "__marker__/";

    /** Key prefix of table events. */
    public static final String TABLE_EVENT_KEY_PREFIX = "__table__/";

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonFactory FACTORY = MAPPER.getFactory();
    private static final int MAX_CACHED_SCHEMAS = 4096;
    private static final Map<Long, Schemas.Described> SCHEMAS = new ConcurrentHashMap<>();

    private NetChangeCodec() {}

    public static byte[] key(NetChange change) {
        return change.tableKey().getBytes(StandardCharsets.UTF_8);
    }

    public static byte[] key(IntervalMarker marker) {
        return (MARKER_KEY_PREFIX + marker.task()).getBytes(StandardCharsets.UTF_8);
    }

    public static byte[] key(TableEvent event) {
        return (TABLE_EVENT_KEY_PREFIX + event.table()).getBytes(StandardCharsets.UTF_8);
    }

    /** True for the key of a record every partition of the topic gets: markers, table events. */
    public static boolean isBroadcastKey(byte[] key) {
        return startsWith(key, MARKER_PREFIX_BYTES) || startsWith(key, TABLE_EVENT_PREFIX_BYTES);
    }

    private static final byte[] MARKER_PREFIX_BYTES =
            MARKER_KEY_PREFIX.getBytes(StandardCharsets.UTF_8);
    private static final byte[] TABLE_EVENT_PREFIX_BYTES =
            TABLE_EVENT_KEY_PREFIX.getBytes(StandardCharsets.UTF_8);

    private static boolean startsWith(byte[] key, byte[] prefix) {
        if (key == null || key.length < prefix.length) {
            return false;
        }
        return Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }

    public static byte[] encode(NetChangeRecord record) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            if (record instanceof NetChange c) {
                write(g, c);
            } else if (record instanceof TableEvent e) {
                g.writeStartObject();
                g.writeObjectFieldStart("table_event");
                g.writeStringField("kind", e.kind().code());
                g.writeStringField("table", e.table());
                g.writeStringField("position", e.position());
                g.writeStringField("transaction", e.transaction());
                g.writeNumberField("commit_ms", e.commitMs());
                g.writeObjectFieldStart("interval");
                g.writeNumberField("start_ms", e.intervalStartMs());
                g.writeNumberField("end_ms", e.intervalEndMs());
                g.writeEndObject();
                if (e.newName() != null) {
                    g.writeStringField("new_name", e.newName());
                }
                if (e.column() != null) {
                    g.writeStringField("column", e.column());
                    if (e.newColumn() != null) {
                        g.writeStringField("new_column", e.newColumn());
                    }
                }
                if (e.detail() != null) {
                    g.writeStringField("detail", e.detail());
                }
                g.writeEndObject();
                g.writeEndObject();
            } else if (record instanceof IntervalMarker m) {
                g.writeStartObject();
                g.writeObjectFieldStart("marker");
                g.writeNumberField("task", m.task());
                g.writeNumberField("tasks", m.tasks());
                g.writeNumberField("closed_through", m.closedThrough());
                g.writeNumberField("source_ms", m.sourceMs());
                if (!m.windows().isEmpty()) {
                    g.writeStringField("windows", m.windows());
                }
                g.writeEndObject();
                g.writeEndObject();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static void write(JsonGenerator g, NetChange c) throws IOException {
        g.writeStartObject();
        g.writeStringField("table", c.table());
        g.writeStringField("op", c.op().code());
        g.writeFieldName("key");
        MAPPER.writeTree(g, c.key());
        g.writeFieldName("after");
        if (c.after() == null) {
            g.writeNull();
        } else {
            g.writeRawValue(new Utf8Json(c.after().json()));
        }
        if (c.before() != null) {
            g.writeFieldName("before");
            g.writeRawValue(new Utf8Json(c.before().json()));
        }
        g.writeArrayFieldStart("unchanged");
        for (String u : c.unchanged()) {
            g.writeString(u);
        }
        g.writeEndArray();
        g.writeObjectFieldStart("interval");
        g.writeNumberField("start_ms", c.intervalStartMs());
        g.writeNumberField("end_ms", c.intervalEndMs());
        g.writeEndObject();
        g.writeStringField("first_position", c.firstPosition());
        g.writeStringField("last_position", c.lastPosition());
        g.writeStringField("transaction", c.transaction());
        g.writeNumberField("commit_ms", c.commitMs());
        g.writeNumberField("raw_changes", c.rawChanges());
        if (c.snapshot()) {
            g.writeBooleanField("snapshot", true);
        }
        g.writeStringField("mode", c.mode().name().toLowerCase(Locale.ROOT));
        g.writeObjectFieldStart("stages_ms");
        g.writeNumberField("source_commit", c.stages().sourceCommitMs());
        g.writeNumberField("captured", c.stages().capturedMs());
        g.writeNumberField("kafka_append", c.stages().kafkaAppendMs());
        g.writeNumberField("emitted", c.stages().emittedMs());
        g.writeEndObject();
        if (c.generatorCommitMicros() != null) {
            g.writeNumberField("generator_commit_us", c.generatorCommitMicros());
        }
        // last, so a reader that knows the schema id can stop before the column list
        g.writeStringField("schema_id", Long.toHexString(c.schema().id()));
        g.writeFieldName("columns");
        g.writeRawValue(new Utf8Json(c.schema().json()));
        g.writeEndObject();
    }

    /**
     * JSON text already encoded as UTF-8. The codec's generator writes UTF-8, and copies these
     * bytes into its buffer as they are; as a {@code String}, every row image and column list would
     * be decoded and encoded again, about half of what encoding a net change costs.
     */
    private static final class Utf8Json implements SerializableString {
        private final byte[] json;

        Utf8Json(byte[] json) {
            this.json = json;
        }

        private SerializedString text() {
            return new SerializedString(getValue());
        }

        @Override
        public String getValue() {
            return new String(json, StandardCharsets.UTF_8);
        }

        @Override
        public int charLength() {
            return getValue().length();
        }

        @Override
        public char[] asQuotedChars() {
            return text().asQuotedChars();
        }

        @Override
        public byte[] asUnquotedUTF8() {
            return json;
        }

        @Override
        public byte[] asQuotedUTF8() {
            return text().asQuotedUTF8();
        }

        @Override
        public int appendQuotedUTF8(byte[] buffer, int offset) {
            return text().appendQuotedUTF8(buffer, offset);
        }

        @Override
        public int appendQuoted(char[] buffer, int offset) {
            return text().appendQuoted(buffer, offset);
        }

        @Override
        public int appendUnquotedUTF8(byte[] buffer, int offset) {
            if (offset + json.length > buffer.length) {
                return -1;
            }
            System.arraycopy(json, 0, buffer, offset, json.length);
            return json.length;
        }

        @Override
        public int appendUnquoted(char[] buffer, int offset) {
            return text().appendUnquoted(buffer, offset);
        }

        @Override
        public int writeQuotedUTF8(OutputStream out) throws IOException {
            return text().writeQuotedUTF8(out);
        }

        @Override
        public int writeUnquotedUTF8(OutputStream out) throws IOException {
            out.write(json);
            return json.length;
        }

        @Override
        public int putQuotedUTF8(ByteBuffer buffer) throws IOException {
            return text().putQuotedUTF8(buffer);
        }

        @Override
        public int putUnquotedUTF8(ByteBuffer buffer) {
            if (json.length > buffer.remaining()) {
                return -1;
            }
            buffer.put(json);
            return json.length;
        }
    }

    /**
     * Decodes a value of the net-changes topic.
     *
     * @throws MalformedRecordException when the bytes are not a net change or marker
     */
    public static NetChangeRecord decode(byte[] value) {
        if (value == null) {
            throw new MalformedRecordException("null value");
        }
        try (JsonParser p = FACTORY.createParser(value)) {
            p.setCodec(MAPPER);
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new MalformedRecordException("not a JSON object");
            }
            Fields f = new Fields();
            fields:
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken t = p.nextToken();
                switch (name) {
                    case "marker" -> {
                        JsonNode m = p.readValueAsTree();
                        return new IntervalMarker(
                                required(m, "task").asInt(),
                                required(m, "tasks").asInt(),
                                required(m, "closed_through").asLong(),
                                required(m, "source_ms").asLong(),
                                m.path("windows").asText(""));
                    }
                    case "table_event" -> {
                        JsonNode e = p.readValueAsTree();
                        JsonNode interval = required(e, "interval");
                        return new TableEvent(
                                TableEvent.Kind.ofCode(required(e, "kind").asText()),
                                required(e, "table").asText(),
                                required(e, "position").asText(),
                                e.path("transaction").asText(""),
                                required(e, "commit_ms").asLong(),
                                required(interval, "start_ms").asLong(),
                                required(interval, "end_ms").asLong(),
                                e.hasNonNull("new_name") ? e.get("new_name").asText() : null,
                                e.hasNonNull("column") ? e.get("column").asText() : null,
                                e.hasNonNull("new_column") ? e.get("new_column").asText() : null,
                                e.hasNonNull("detail") ? e.get("detail").asText() : null);
                    }
                    case "after" -> f.after = image(p, t, value, "after");
                    case "before" -> f.before = image(p, t, value, "before");
                    case "table" -> f.table = text(p, t);
                    case "op" -> f.op = text(p, t);
                    case "key" -> {
                        if (t == JsonToken.START_OBJECT) {
                            f.key = p.readValueAsTree();
                        } else if (t != JsonToken.VALUE_NULL) {
                            throw new MalformedRecordException("'key' is not an object");
                        }
                    }
                    case "unchanged" -> f.unchanged = texts(p, t, name);
                    case "interval" -> f.interval = longs(p, t, name, INTERVAL_FIELDS);
                    case "first_position" -> f.firstPosition = position(p, t, name);
                    case "last_position" -> f.lastPosition = position(p, t, name);
                    case "transaction" -> f.transaction = text(p, t);
                    case "commit_ms" -> f.commitMs = number(p, t, name);
                    case "raw_changes" -> f.rawChanges = number(p, t, name);
                    case "snapshot" -> f.snapshot = t == JsonToken.VALUE_TRUE;
                    case "mode" -> f.mode = text(p, t);
                    case "stages_ms" -> f.stages = longs(p, t, name, STAGE_FIELDS);
                    case "generator_commit_us" -> f.generator = number(p, t, name);
                    case "schema_id" -> f.schemaId = Long.parseUnsignedLong(p.getText(), 16);
                    case "columns" -> {
                        Schemas.Described known =
                                f.schemaId == null ? null : SCHEMAS.get(f.schemaId);
                        if (known != null) {
                            f.schema = known;
                            // the column list is the last field: nothing after it to read
                            break fields;
                        } else {
                            JsonNode cols = p.readValueAsTree();
                            List<ColumnSpec> list = Schemas.fromJson(cols);
                            Schemas.Described d =
                                    f.schemaId == null
                                            ? Schemas.describe(list)
                                            : new Schemas.Described(
                                                    list,
                                                    f.schemaId,
                                                    MAPPER.writeValueAsBytes(cols));
                            if (SCHEMAS.size() > MAX_CACHED_SCHEMAS) {
                                SCHEMAS.clear();
                            }
                            SCHEMAS.put(d.id(), d);
                            f.schema = d;
                        }
                    }
                    // a field this reader does not know: a newer writer's, skipped
                    default -> p.skipChildren();
                }
            }
            return f.toChange();
        } catch (MalformedRecordException e) {
            throw e;
        } catch (IOException e) {
            throw new MalformedRecordException("not JSON: " + e.getMessage());
        } catch (RuntimeException e) {
            throw new MalformedRecordException(e.toString());
        }
    }

    private static RowImage image(JsonParser p, JsonToken t, byte[] value, String field)
            throws IOException {
        if (t == JsonToken.START_OBJECT) {
            int start = (int) p.currentTokenLocation().getByteOffset();
            p.skipChildren();
            int end = (int) p.currentTokenLocation().getByteOffset() + 1;
            return RowImage.ofJson(Arrays.copyOfRange(value, start, end));
        } else if (t != JsonToken.VALUE_NULL) {
            throw new MalformedRecordException("'" + field + "' is not an object");
        }
        return null;
    }

    private static final String[] INTERVAL_FIELDS = {"start_ms", "end_ms"};
    private static final String[] STAGE_FIELDS = {
        "source_commit", "captured", "kafka_append", "emitted"
    };

    /** A scalar's text; null for JSON null, and for an object or array (skipped). */
    private static String text(JsonParser p, JsonToken t) throws IOException {
        if (t.isStructStart()) {
            p.skipChildren();
            return null;
        }
        return t == JsonToken.VALUE_NULL ? null : p.getText();
    }

    /** A number (or a number's text); null for JSON null. */
    private static Long number(JsonParser p, JsonToken t, String field) throws IOException {
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        if (t.isStructStart()) {
            throw new MalformedRecordException("'" + field + "' is not a number");
        }
        return p.getValueAsLong();
    }

    private static String position(JsonParser p, JsonToken t, String field) throws IOException {
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        if (t != JsonToken.VALUE_STRING || p.getText().isEmpty()) {
            p.skipChildren();
            throw new MalformedRecordException("'" + field + "' is not a source position");
        }
        return p.getText();
    }

    /** An array of texts; null for JSON null. */
    private static List<String> texts(JsonParser p, JsonToken t, String field) throws IOException {
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        if (t != JsonToken.START_ARRAY) {
            throw new MalformedRecordException("'" + field + "' is not an array");
        }
        List<String> out = new ArrayList<>();
        for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
            if (e == null) {
                throw new MalformedRecordException("'" + field + "' ends early");
            }
            String v = text(p, e);
            out.add(v == null ? "null" : v);
        }
        return out;
    }

    /**
     * The named number fields of an object, in {@code names}' order; a field it lacks is null. Null
     * for JSON null.
     */
    private static Long[] longs(JsonParser p, JsonToken t, String field, String[] names)
            throws IOException {
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        if (t != JsonToken.START_OBJECT) {
            throw new MalformedRecordException("'" + field + "' is not an object");
        }
        Long[] out = new Long[names.length];
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            int i = names.length - 1;
            while (i >= 0 && !names[i].equals(name)) {
                i--;
            }
            if (i < 0) {
                p.skipChildren();
            } else {
                out[i] = number(p, v, name);
            }
        }
        return out;
    }

    /** Fields collected while reading a net change. */
    private static final class Fields {
        RowImage after;
        RowImage before;
        Long schemaId;
        Schemas.Described schema;
        String table;
        String op;
        ObjectNode key;
        List<String> unchanged;
        Long[] interval;
        String firstPosition;
        String lastPosition;
        String transaction;
        Long commitMs;
        Long rawChanges;
        boolean snapshot;
        String mode;
        Long[] stages;
        Long generator;

        NetChange toChange() {
            if (schema == null) {
                throw new MalformedRecordException("missing field 'columns'");
            }
            Long[] interval = req(this.interval, "interval");
            Long[] stages = req(this.stages, "stages_ms");
            return new NetChange(
                    req(table, "table"),
                    NetOperation.ofCode(req(op, "op")),
                    req(key, "key"),
                    after,
                    before,
                    unchanged == null ? new ArrayList<>() : unchanged,
                    schema,
                    req(interval[0], "start_ms"),
                    req(interval[1], "end_ms"),
                    req(firstPosition, "first_position"),
                    req(lastPosition, "last_position"),
                    transaction == null ? "" : transaction,
                    req(commitMs, "commit_ms"),
                    Math.toIntExact(req(rawChanges, "raw_changes")),
                    snapshot,
                    mode == null
                            ? NetChangeMode.ALL
                            : NetChangeMode.valueOf(mode.toUpperCase(Locale.ROOT)),
                    new StageTimes(
                            orZero(stages[0]),
                            orZero(stages[1]),
                            orZero(stages[2]),
                            orZero(stages[3])),
                    generator);
        }

        private static <T> T req(T value, String name) {
            if (value == null) {
                throw new MalformedRecordException("missing field '" + name + "'");
            }
            return value;
        }

        private static long orZero(Long v) {
            return v == null ? 0 : v;
        }
    }

    private static JsonNode required(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            throw new MalformedRecordException("missing field '" + field + "'");
        }
        return v;
    }
}
