package dev.cdclab.change;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * JSON form and 64-bit identity of a table's column list. Records carry the id, so readers parse
 * each distinct column list once.
 */
public final class Schemas {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Schemas() {}

    /** A column list with its identity and JSON form; equal when id and columns are. */
    public record Described(List<ColumnSpec> columns, long id, byte[] json) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Described d && d.id == id && d.columns.equals(columns);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(id);
        }

        @Override
        public String toString() {
            return "Schema[" + Long.toHexString(id) + " " + columns + "]";
        }
    }

    /** Describes a column list (id = hash of its JSON). */
    public static Described describe(List<ColumnSpec> columns) {
        byte[] json = toJson(columns);
        return new Described(Collections.unmodifiableList(columns), fingerprint(json), json);
    }

    /** The JSON array of the columns. */
    public static byte[] toJson(List<ColumnSpec> columns) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 * columns.size());
        try (JsonGenerator g = MAPPER.getFactory().createGenerator(out)) {
            write(g, columns);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    static void write(JsonGenerator g, List<ColumnSpec> columns) throws IOException {
        g.writeStartArray();
        for (ColumnSpec col : columns) {
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
            if (col.defaultJson() != null) {
                g.writeFieldName("default");
                g.writeRawValue(col.defaultJson());
            }
            if (col.elementConnectType() != null) {
                g.writeObjectFieldStart("element");
                g.writeStringField("connect_type", col.elementConnectType());
                if (col.elementSemanticType() != null) {
                    g.writeStringField("semantic_type", col.elementSemanticType());
                }
                g.writeEndObject();
            }
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    /** Parses a JSON array of columns. */
    public static List<ColumnSpec> fromJson(JsonNode array) {
        if (array == null || !array.isArray()) {
            throw new MalformedRecordException("'columns' is not an array");
        }
        List<ColumnSpec> columns = new ArrayList<>(array.size());
        for (JsonNode col : array) {
            JsonNode name = col.get("name");
            JsonNode type = col.get("type");
            if (name == null || type == null) {
                throw new MalformedRecordException("column without name or type");
            }
            JsonNode element = col.get("element");
            columns.add(
                    new ColumnSpec(
                            name.asText(),
                            type.asText(),
                            col.path("key").asBoolean(false),
                            col.path("optional").asBoolean(false),
                            col.hasNonNull("length") ? col.get("length").asInt() : null,
                            col.hasNonNull("scale") ? col.get("scale").asInt() : null,
                            col.path("connect_type").asText("string"),
                            col.hasNonNull("semantic_type")
                                    ? col.get("semantic_type").asText()
                                    : null,
                            col.hasNonNull("default") ? col.get("default").toString() : null,
                            element != null && element.hasNonNull("connect_type")
                                    ? element.get("connect_type").asText()
                                    : null,
                            element != null && element.hasNonNull("semantic_type")
                                    ? element.get("semantic_type").asText()
                                    : null));
        }
        return Collections.unmodifiableList(columns);
    }

    /** Parses the JSON bytes of a column array. */
    public static List<ColumnSpec> fromJson(byte[] json) {
        try {
            return fromJson(MAPPER.readTree(json));
        } catch (IOException e) {
            throw new MalformedRecordException("columns are not JSON: " + e.getMessage());
        }
    }

    /** FNV-1a 64 over the bytes, then mixed. */
    public static long fingerprint(byte[] bytes) {
        long h = 0xcbf29ce484222325L;
        for (byte b : bytes) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        return h;
    }
}
