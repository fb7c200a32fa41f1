package dev.cdclab.streams.debezium;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cdclab.change.ColumnSpec;
import dev.cdclab.change.MalformedRecordException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads Debezium change events written by Kafka Connect's {@code JsonConverter} (value schemas
 * enabled; key schemas either way). The value's schema is parsed once per distinct schema and
 * cached, so the per-event cost is the payload only.
 */
public final class DebeziumEventReader {
    /** Debezium's default {@code unavailable.value.placeholder}. */
    public static final String DEFAULT_PLACEHOLDER = "__debezium_unavailable_value";

    /** Key field Debezium's {@code ByLogicalTableRouter} adds; not a column. */
    public static final String ROUTER_KEY_FIELD = "__dbz__physicalTableIdentifier";

    private static final int MAX_CACHED_SCHEMAS = 256;

    private final ObjectMapper mapper;
    private final JsonFactory factory;
    private final String placeholder;
    private final String placeholderBase64;
    private final String generatorColumn;
    private final Map<SchemaBytes, List<ColumnSpec>> schemaCache =
            new LinkedHashMap<>(64, 0.75f, true) {
                private static final long serialVersionUID = 1L;

                @Override
                protected boolean removeEldestEntry(Map.Entry<SchemaBytes, List<ColumnSpec>> e) {
                    return size() > MAX_CACHED_SCHEMAS;
                }
            };
    private final Map<KeyedSchema, List<ColumnSpec>> keyedCache = new LinkedHashMap<>();

    /**
     * @param placeholder the connector's {@code unavailable.value.placeholder}
     * @param generatorColumn name of the load generator's timestamp column (epoch microseconds), or
     *     null
     */
    public DebeziumEventReader(String placeholder, String generatorColumn) {
        this.mapper = new ObjectMapper();
        this.factory = mapper.getFactory();
        this.placeholder = placeholder;
        this.placeholderBase64 =
                Base64.getEncoder().encodeToString(placeholder.getBytes(StandardCharsets.UTF_8));
        this.generatorColumn = generatorColumn;
    }

    /**
     * Reads one change event.
     *
     * @return the event, or null for a tombstone (null value)
     * @throws MalformedRecordException when the record is not a Debezium change event with a schema
     */
    public ChangeEvent read(byte[] keyBytes, byte[] value, long recordTimestamp) {
        if (value == null) {
            return null;
        }
        int schemaStart = -1;
        int schemaEnd = -1;
        JsonNode payload = null;
        try (JsonParser p = factory.createParser(value)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new MalformedRecordException("change event is not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken t = p.nextToken();
                if ("schema".equals(field) && t == JsonToken.START_OBJECT) {
                    schemaStart = (int) p.currentTokenLocation().getByteOffset();
                    p.skipChildren();
                    schemaEnd = (int) p.currentTokenLocation().getByteOffset() + 1;
                } else if ("payload".equals(field)) {
                    payload = p.readValueAsTree();
                } else {
                    p.skipChildren();
                }
            }
        } catch (IOException e) {
            throw new MalformedRecordException("change event is not JSON: " + e.getMessage());
        }
        if (payload == null || schemaStart < 0) {
            throw new MalformedRecordException(
                    "change event has no schema/payload envelope; the connector's value converter"
                            + " must be JsonConverter with value.converter.schemas.enable=true");
        }
        if (payload.isNull()) {
            return null;
        }
        List<ColumnSpec> columns = columnsOf(value, schemaStart, schemaEnd);
        return toEvent(readKey(keyBytes), payload, columns, recordTimestamp);
    }

    private ObjectNode readKey(byte[] keyBytes) {
        if (keyBytes == null) {
            throw new MalformedRecordException(
                    "change event has no key; the table needs a primary key (or REPLICA IDENTITY"
                            + " with a unique index)");
        }
        JsonNode k;
        try {
            k = mapper.readTree(keyBytes);
        } catch (IOException e) {
            throw new MalformedRecordException("key is not JSON: " + e.getMessage());
        }
        if (k != null && k.has("schema") && k.has("payload") && k.size() == 2) {
            k = k.get("payload");
        }
        if (k == null || !k.isObject()) {
            throw new MalformedRecordException("key is not a JSON object");
        }
        ObjectNode key = (ObjectNode) k;
        // added by Debezium's ByLogicalTableRouter to keep keys of routed tables apart
        key.remove(ROUTER_KEY_FIELD);
        return key;
    }

    private ChangeEvent toEvent(
            ObjectNode key, JsonNode payload, List<ColumnSpec> columns, long recordTimestamp) {
        String opText = payload.path("op").asText("");
        if (opText.length() != 1 || "cudr".indexOf(opText.charAt(0)) < 0) {
            throw new MalformedRecordException("unsupported op '" + opText + "'");
        }
        char op = opText.charAt(0);
        JsonNode source = payload.get("source");
        if (source == null || !source.isObject()) {
            throw new MalformedRecordException("change event has no source block");
        }
        String table = source.path("schema").asText() + "." + source.path("table").asText();
        JsonNode afterNode = payload.get("after");
        ObjectNode after = null;
        List<String> unavailable = List.of();
        Long generator = null;
        if (op != 'd') {
            if (afterNode == null || !afterNode.isObject()) {
                throw new MalformedRecordException("'" + op + "' event without an after image");
            }
            after = (ObjectNode) afterNode;
            unavailable = unavailableColumns(after);
            if (generatorColumn != null) {
                JsonNode g = after.get(generatorColumn);
                if (g != null && g.canConvertToLong()) {
                    generator = g.asLong();
                }
            }
        }
        long commitMs = source.path("ts_ms").asLong(recordTimestamp);
        return new ChangeEvent(
                table,
                key,
                op,
                after,
                unavailable,
                keyedColumns(columns, key),
                source.path("lsn").asLong(0),
                source.path("txId").asLong(0),
                commitMs,
                payload.path("ts_ms").asLong(commitMs),
                recordTimestamp,
                generator);
    }

    private List<String> unavailableColumns(ObjectNode after) {
        List<String> out = null;
        for (Iterator<Map.Entry<String, JsonNode>> it = after.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (isPlaceholder(e.getValue())) {
                if (out == null) {
                    out = new ArrayList<>(2);
                }
                out.add(e.getKey());
            }
        }
        if (out == null) {
            return List.of();
        }
        for (String c : out) {
            after.putNull(c);
        }
        return Collections.unmodifiableList(out);
    }

    private boolean isPlaceholder(JsonNode v) {
        if (v.isTextual()) {
            String s = v.textValue();
            return s.equals(placeholder) || s.equals(placeholderBase64);
        }
        if (v.isArray() && v.size() == 1) {
            return isPlaceholder(v.get(0));
        }
        return false;
    }

    private List<ColumnSpec> columnsOf(byte[] value, int start, int end) {
        SchemaBytes probe = new SchemaBytes(value, start, end);
        List<ColumnSpec> cached = schemaCache.get(probe);
        if (cached != null) {
            return cached;
        }
        List<ColumnSpec> parsed = parseColumns(value, start, end);
        schemaCache.put(probe.copy(), parsed);
        return parsed;
    }

    private List<ColumnSpec> parseColumns(byte[] value, int start, int end) {
        JsonNode schema;
        try {
            schema = mapper.readTree(value, start, end - start);
        } catch (IOException e) {
            throw new MalformedRecordException("unreadable schema: " + e.getMessage());
        }
        JsonNode row = null;
        for (JsonNode f : schema.path("fields")) {
            String name = f.path("field").asText();
            if ("after".equals(name) || ("before".equals(name) && row == null)) {
                row = f;
            }
        }
        if (row == null) {
            throw new MalformedRecordException("schema has no before/after struct");
        }
        List<ColumnSpec> cols = new ArrayList<>();
        for (JsonNode c : row.path("fields")) {
            JsonNode params = c.path("parameters");
            String connectType = c.path("type").asText("string");
            String semantic = c.hasNonNull("name") ? c.get("name").asText() : null;
            String sourceType =
                    params.hasNonNull("__debezium.source.column.type")
                            ? params.get("__debezium.source.column.type").asText()
                            : connectType.toUpperCase(Locale.ROOT);
            cols.add(
                    new ColumnSpec(
                            c.path("field").asText(),
                            sourceType,
                            false,
                            c.path("optional").asBoolean(true),
                            intParam(params, "__debezium.source.column.length"),
                            intParam(params, "__debezium.source.column.scale"),
                            connectType,
                            semantic));
        }
        return Collections.unmodifiableList(cols);
    }

    private static Integer intParam(JsonNode params, String name) {
        JsonNode v = params.get(name);
        if (v == null || v.isNull()) {
            return null;
        }
        try {
            return Integer.valueOf(v.asText());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private List<ColumnSpec> keyedColumns(List<ColumnSpec> columns, ObjectNode key) {
        Set<String> keyNames = new HashSet<>();
        key.fieldNames().forEachRemaining(keyNames::add);
        KeyedSchema ks = new KeyedSchema(columns, keyNames);
        List<ColumnSpec> hit = keyedCache.get(ks);
        if (hit != null) {
            return hit;
        }
        List<ColumnSpec> out = new ArrayList<>(columns.size());
        for (ColumnSpec c : columns) {
            out.add(c.withKey(keyNames.contains(c.name())));
        }
        List<ColumnSpec> result = Collections.unmodifiableList(out);
        if (keyedCache.size() > MAX_CACHED_SCHEMAS) {
            keyedCache.clear();
        }
        keyedCache.put(ks, result);
        return result;
    }

    /** Identity of a parsed schema plus its key columns (list identity is enough: it is cached). */
    private record KeyedSchema(List<ColumnSpec> columns, Set<String> keyNames) {
        @Override
        public boolean equals(Object o) {
            return o instanceof KeyedSchema k
                    && k.columns == columns
                    && k.keyNames.equals(keyNames);
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(columns) * 31 + keyNames.hashCode();
        }
    }

    /** A byte range holding a schema, compared by content. */
    private static final class SchemaBytes {
        private final byte[] bytes;
        private final int from;
        private final int to;
        private final int hash;

        SchemaBytes(byte[] bytes, int from, int to) {
            this.bytes = bytes;
            this.from = from;
            this.to = to;
            int h = 1;
            for (int i = from; i < to; i++) {
                h = 31 * h + bytes[i];
            }
            this.hash = h;
        }

        SchemaBytes copy() {
            return new SchemaBytes(Arrays.copyOfRange(bytes, from, to), 0, to - from);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof SchemaBytes s
                    && s.hash == hash
                    && Arrays.equals(bytes, from, to, s.bytes, s.from, s.to);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
