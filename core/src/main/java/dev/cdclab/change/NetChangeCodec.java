package dev.cdclab.change;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * JSON encoding of the net-changes topic. Keys are {@code schema.table/<key json>} for net changes
 * and {@code __marker__/<task>} for interval markers; values are JSON objects documented in the
 * README.
 */
public final class NetChangeCodec {
    /** Key prefix of interval markers. */
    public static final String MARKER_KEY_PREFIX = "__marker__/";

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonFactory FACTORY = MAPPER.getFactory();

    private NetChangeCodec() {}

    /** The shared mapper (thread-safe once configured). */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    public static byte[] key(NetChange change) {
        return change.tableKey().getBytes(StandardCharsets.UTF_8);
    }

    public static byte[] key(IntervalMarker marker) {
        return (MARKER_KEY_PREFIX + marker.task()).getBytes(StandardCharsets.UTF_8);
    }

    public static byte[] encode(NetChangeRecord record) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            if (record instanceof NetChange c) {
                write(g, c);
            } else if (record instanceof IntervalMarker m) {
                g.writeStartObject();
                g.writeObjectFieldStart("marker");
                g.writeNumberField("task", m.task());
                g.writeNumberField("tasks", m.tasks());
                g.writeNumberField("closed_through_ms", m.closedThroughMs());
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
            MAPPER.writeTree(g, c.after());
        }
        g.writeArrayFieldStart("unchanged");
        for (String u : c.unchanged()) {
            g.writeString(u);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("columns");
        for (ColumnSpec col : c.columns()) {
            g.writeStartObject();
            g.writeStringField("name", col.name());
            g.writeStringField("type", col.sourceType());
            if (col.key()) {
                g.writeBooleanField("key", true);
            }
            if (col.optional()) {
                g.writeBooleanField("optional", true);
            }
            if (col.length() != null) {
                g.writeNumberField("length", col.length());
            }
            if (col.scale() != null) {
                g.writeNumberField("scale", col.scale());
            }
            g.writeStringField("connect_type", col.connectType());
            if (col.semanticType() != null) {
                g.writeStringField("semantic_type", col.semanticType());
            }
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeObjectFieldStart("interval");
        g.writeNumberField("start_ms", c.intervalStartMs());
        g.writeNumberField("end_ms", c.intervalEndMs());
        g.writeEndObject();
        g.writeNumberField("first_lsn", c.firstLsn());
        g.writeNumberField("last_lsn", c.lastLsn());
        g.writeNumberField("tx_id", c.txId());
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
        g.writeEndObject();
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
        JsonNode n;
        try {
            n = MAPPER.readTree(value);
        } catch (IOException e) {
            throw new MalformedRecordException("not JSON: " + e.getMessage());
        }
        if (n == null || !n.isObject()) {
            throw new MalformedRecordException("not a JSON object");
        }
        try {
            JsonNode marker = n.get("marker");
            if (marker != null) {
                return new IntervalMarker(
                        required(marker, "task").asInt(),
                        required(marker, "tasks").asInt(),
                        required(marker, "closed_through_ms").asLong());
            }
            return readChange(n);
        } catch (RuntimeException e) {
            if (e instanceof MalformedRecordException m) {
                throw m;
            }
            throw new MalformedRecordException(e.toString());
        }
    }

    private static NetChange readChange(JsonNode n) {
        List<String> unchanged = new ArrayList<>();
        JsonNode un = n.get("unchanged");
        if (un != null) {
            un.forEach(u -> unchanged.add(u.asText()));
        }
        List<ColumnSpec> columns = new ArrayList<>();
        for (JsonNode col : required(n, "columns")) {
            columns.add(
                    new ColumnSpec(
                            required(col, "name").asText(),
                            required(col, "type").asText(),
                            col.path("key").asBoolean(false),
                            col.path("optional").asBoolean(false),
                            col.hasNonNull("length") ? col.get("length").asInt() : null,
                            col.hasNonNull("scale") ? col.get("scale").asInt() : null,
                            col.path("connect_type").asText("string"),
                            col.hasNonNull("semantic_type")
                                    ? col.get("semantic_type").asText()
                                    : null));
        }
        JsonNode key = required(n, "key");
        JsonNode after = n.get("after");
        if (!key.isObject()) {
            throw new MalformedRecordException("'key' is not an object");
        }
        if (after != null && !after.isNull() && !after.isObject()) {
            throw new MalformedRecordException("'after' is not an object");
        }
        JsonNode interval = required(n, "interval");
        JsonNode stages = required(n, "stages_ms");
        JsonNode gen = n.get("generator_commit_us");
        NetOperation op = NetOperation.ofCode(required(n, "op").asText());
        return new NetChange(
                required(n, "table").asText(),
                op,
                (ObjectNode) key,
                after == null || after.isNull() ? null : (ObjectNode) after,
                unchanged,
                columns,
                required(interval, "start_ms").asLong(),
                required(interval, "end_ms").asLong(),
                required(n, "first_lsn").asLong(),
                required(n, "last_lsn").asLong(),
                n.path("tx_id").asLong(0),
                required(n, "commit_ms").asLong(),
                required(n, "raw_changes").asInt(),
                n.path("snapshot").asBoolean(false),
                NetChangeMode.valueOf(n.path("mode").asText("all").toUpperCase(Locale.ROOT)),
                new StageTimes(
                        stages.path("source_commit").asLong(),
                        stages.path("captured").asLong(),
                        stages.path("kafka_append").asLong(),
                        stages.path("emitted").asLong()),
                gen == null || gen.isNull() ? null : gen.asLong());
    }

    private static JsonNode required(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull() && !field.equals("after")) {
            throw new MalformedRecordException("missing field '" + field + "'");
        }
        return v;
    }
}
