package dev.cdclab.change;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * A row image as the JSON object Debezium wrote, kept as bytes and parsed only when a value is
 * needed: most stages pass images along without looking inside.
 */
public final class RowImage {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final byte[] json;
    private volatile ObjectNode tree;

    private RowImage(byte[] json, ObjectNode tree) {
        this.json = json;
        this.tree = tree;
    }

    /** Wraps the bytes of a JSON object (not copied). */
    public static RowImage ofJson(byte[] json) {
        return new RowImage(json, null);
    }

    /** Wraps a tree. */
    public static RowImage of(ObjectNode tree) {
        try {
            return new RowImage(MAPPER.writeValueAsBytes(tree), tree);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The JSON object's bytes (do not modify). */
    public byte[] json() {
        return json;
    }

    /** The parsed object. */
    public ObjectNode tree() {
        ObjectNode t = tree;
        if (t == null) {
            try {
                JsonNode n = MAPPER.readTree(json);
                if (!(n instanceof ObjectNode o)) {
                    throw new MalformedRecordException("row image is not a JSON object");
                }
                t = o;
            } catch (IOException e) {
                throw new MalformedRecordException("row image is not JSON: " + e.getMessage());
            }
            tree = t;
        }
        return t;
    }

    /** One column's value, or null when absent. */
    public JsonNode get(String column) {
        return tree().get(column);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RowImage r && r.tree().equals(tree());
    }

    @Override
    public int hashCode() {
        return tree().hashCode();
    }

    @Override
    public String toString() {
        return new String(json, StandardCharsets.UTF_8);
    }
}
