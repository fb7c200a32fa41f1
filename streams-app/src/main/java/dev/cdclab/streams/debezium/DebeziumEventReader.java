package dev.cdclab.streams.debezium;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cdclab.change.ChangeKeyFields;
import dev.cdclab.change.ColumnSpec;
import dev.cdclab.change.EmptyTableHeaders;
import dev.cdclab.change.MalformedRecordException;
import dev.cdclab.change.RowImage;
import dev.cdclab.change.Schemas;
import dev.cdclab.change.SourcePosition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Reads Debezium change events written by Kafka Connect's {@code JsonConverter} (value schemas
 * enabled; key schemas either way) in one streaming pass: the row image is kept as the bytes
 * Debezium wrote, and the value schema is parsed once per distinct schema. Both of Debezium's
 * shapes are read: its envelope ({@code before}, {@code after}, {@code source}, {@code op}) and the
 * flat row {@code ExtractNewRecordState} makes of it, with the envelope's fields added as {@code
 * __op}, {@code __ts_ms}, {@code __source_ts_ms}, {@code __lsn}, {@code __txId}, {@code
 * __commit_lsn}, ... ({@code add.fields}).
 */
public final class DebeziumEventReader {
    /** Debezium's default {@code unavailable.value.placeholder}. */
    public static final String DEFAULT_PLACEHOLDER = "__debezium_unavailable_value";

    /** Key field Debezium's {@code ToLogicalTopicRouter} adds; not a column. */
    public static final String ROUTER_KEY_FIELD = ChangeKeyFields.ROUTER;

    private static final int MAX_CACHED_SCHEMAS = 1024;

    /** The column list of an event that has none of its own (a truncate). */
    private static final Schemas.Described NO_COLUMNS = Schemas.describe(List.of());

    private final ObjectMapper mapper = new ObjectMapper();
    private final JsonFactory factory = mapper.getFactory();
    private final String placeholder;
    private final String placeholderBase64;
    private final String generatorColumn;
    private final Map<SchemaBytes, List<ColumnSpec>> schemaCache = new HashMap<>();

    /** Known schemas by a hash of their first bytes, for matching without tokenising. */
    private final Map<Integer, List<KnownSchema>> byPrefix = new HashMap<>();

    private static final byte[] PAYLOAD_FIELD = ",\"payload\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SCHEMA_FIELD = "{\"schema\":".getBytes(StandardCharsets.US_ASCII);
    private static final int PREFIX = 256;

    /** A schema seen before, as the exact bytes JsonConverter writes. */
    private record KnownSchema(byte[] bytes, List<ColumnSpec> columns) {}

    private final Map<KeyedSchema, Schemas.Described> keyedCache = new HashMap<>();

    /**
     * @param placeholder the connector's {@code unavailable.value.placeholder}
     * @param generatorColumn name of the load generator's timestamp column (epoch microseconds), or
     *     null
     */
    public DebeziumEventReader(String placeholder, String generatorColumn) {
        this.placeholder = placeholder;
        this.placeholderBase64 =
                Base64.getEncoder().encodeToString(placeholder.getBytes(StandardCharsets.UTF_8));
        this.generatorColumn = generatorColumn;
    }

    /** What one pass over the payload found. */
    private static final class Payload {
        char op;
        String schema;
        String table;
        long sourceTsMs = Long.MIN_VALUE;
        Long lsn;
        Long txId;
        String commitLsn;
        String changeLsn;
        Long eventSerialNo;
        String sequence;
        String snapshot;
        long capturedMs = Long.MIN_VALUE;
        int afterStart = -1;
        int afterEnd = -1;
        boolean afterNull = true;
        int beforeStart = -1;
        int beforeEnd = -1;
        List<String> unavailable = List.of();
        Long generator;
        boolean seenSource;
        boolean nullPayload;
        boolean flat;
        long tooLargeBytes;
    }

    /**
     * The field capture's converter writes, with the row's size, in place of the images of a row
     * over {@code max.row.bytes}.
     */
    public static final String TOO_LARGE_FIELD = dev.cdclab.config.RowLimit.TOO_LARGE_FIELD;

    /** Prefix {@code ExtractNewRecordState} gives the fields it adds. */
    public static final String FLAT_PREFIX = "__";

    /**
     * The record the capture stage writes when a snapshot finds a table empty, as an event at the
     * snapshot's position marked {@link ChangeEvent.SnapshotRow#EMPTY_TABLE}; null when {@code
     * headers} do not name such a table.
     *
     * @throws MalformedRecordException when they name one without a readable position
     */
    public ChangeEvent emptyTable(Headers headers, long recordTimestamp) {
        String table = header(headers, EmptyTableHeaders.TABLE);
        if (table == null) {
            return null;
        }
        String[] parts = table.split("\\.");
        if (parts.length < 2) {
            throw new MalformedRecordException("empty table '" + table + "' has no schema");
        }
        String name = parts[parts.length - 2] + "." + parts[parts.length - 1];
        String commitLsn = header(headers, EmptyTableHeaders.COMMIT_LSN);
        String lsn = header(headers, EmptyTableHeaders.LSN);
        String position;
        long windowKey;
        if (commitLsn != null) {
            position = SourcePosition.sqlServer(commitLsn, null, null);
            windowKey = SourcePosition.sqlServerCommitOrder(commitLsn);
        } else if (lsn != null) {
            try {
                windowKey = Long.parseLong(lsn);
            } catch (NumberFormatException e) {
                throw new MalformedRecordException("empty table's LSN '" + lsn + "' is not one");
            }
            position = SourcePosition.postgres(windowKey);
        } else {
            throw new MalformedRecordException("empty table '" + table + "' has no position");
        }
        return new ChangeEvent(
                name,
                mapper.createObjectNode(),
                'r',
                null,
                null,
                List.of(),
                null,
                position,
                "",
                0,
                windowKey,
                false,
                recordTimestamp,
                recordTimestamp,
                recordTimestamp,
                null,
                ChangeEvent.SnapshotRow.EMPTY_TABLE);
    }

    private static String header(Headers headers, String name) {
        Header h = headers.lastHeader(name);
        return h == null || h.value() == null
                ? null
                : new String(h.value(), StandardCharsets.UTF_8);
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
        KnownSchema known = matchKnownSchema(value);
        if (known != null) {
            int payloadStart = SCHEMA_FIELD.length + known.bytes().length + PAYLOAD_FIELD.length;
            Payload pl = new Payload();
            try (JsonParser p =
                    factory.createParser(value, payloadStart, value.length - payloadStart)) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    return null;
                }
                if (t != JsonToken.START_OBJECT) {
                    throw new MalformedRecordException("payload is not an object");
                }
                int start = (int) p.currentTokenLocation().getByteOffset();
                readPayload(p, pl);
                if (pl.flat) {
                    flatRange(pl, start, (int) p.currentTokenLocation().getByteOffset() + 1);
                }
            } catch (IOException e) {
                throw new MalformedRecordException("change event is not JSON: " + e.getMessage());
            }
            return toEvent(keyBytes, value, pl, known.columns(), recordTimestamp, payloadStart);
        }
        int schemaStart = -1;
        int schemaEnd = -1;
        Payload pl = null;
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
                    pl = new Payload();
                    if (t == JsonToken.VALUE_NULL) {
                        pl.nullPayload = true;
                    } else if (t == JsonToken.START_OBJECT) {
                        int start = (int) p.currentTokenLocation().getByteOffset();
                        readPayload(p, pl);
                        if (pl.flat) {
                            flatRange(
                                    pl, start, (int) p.currentTokenLocation().getByteOffset() + 1);
                        }
                    } else {
                        throw new MalformedRecordException("payload is not an object");
                    }
                } else {
                    p.skipChildren();
                }
            }
        } catch (IOException e) {
            throw new MalformedRecordException("change event is not JSON: " + e.getMessage());
        }
        if (pl == null || schemaStart < 0) {
            throw new MalformedRecordException(
                    "change event has no schema/payload envelope; the connector's value converter"
                            + " must be JsonConverter with value.converter.schemas.enable=true");
        }
        if (pl.nullPayload) {
            return null;
        }
        List<ColumnSpec> columns = columnsOf(value, schemaStart, schemaEnd);
        remember(value, schemaStart, schemaEnd, columns);
        return toEvent(keyBytes, value, pl, columns, recordTimestamp, 0);
    }

    /**
     * A flat row is the after image of a create or update, and the before image of a delete (a
     * rewritten delete carries the old row, all of it under {@code REPLICA IDENTITY FULL}).
     */
    private static void flatRange(Payload pl, int start, int end) {
        if (pl.op == 'd') {
            pl.beforeStart = start;
            pl.beforeEnd = end;
        } else {
            pl.afterStart = start;
            pl.afterEnd = end;
        }
    }

    private ChangeEvent toEvent(
            byte[] keyBytes,
            byte[] value,
            Payload pl,
            List<ColumnSpec> columns,
            long recordTimestamp,
            int offset) {
        if ("cudrt".indexOf(pl.op) < 0) {
            throw new MalformedRecordException("unsupported op '" + pl.op + "'");
        }
        if (!pl.seenSource || pl.table == null) {
            throw new MalformedRecordException("change event has no source block");
        }
        RowImage after = null;
        if (pl.tooLargeBytes > 0) {
            // the images stayed behind: only where the row was, and how large
            pl.afterStart = -1;
            pl.beforeStart = -1;
        } else if (pl.op != 'd' && pl.op != 't') {
            if (pl.afterNull) {
                throw new MalformedRecordException("'" + pl.op + "' event without an after image");
            }
            after =
                    RowImage.ofJson(
                            Arrays.copyOfRange(
                                    value, offset + pl.afterStart, offset + pl.afterEnd));
        }
        RowImage before =
                pl.beforeStart < 0
                        ? null
                        : RowImage.ofJson(
                                Arrays.copyOfRange(
                                        value, offset + pl.beforeStart, offset + pl.beforeEnd));
        ObjectNode key = pl.op == 't' ? mapper.createObjectNode() : readKey(keyBytes);
        long commitMs = pl.sourceTsMs == Long.MIN_VALUE ? recordTimestamp : pl.sourceTsMs;
        String position;
        String transaction;
        long transactionNumber;
        long windowKey = Long.MIN_VALUE;
        boolean noCommitBefore = false;
        if (pl.commitLsn != null) {
            position = SourcePosition.sqlServer(pl.commitLsn, pl.changeLsn, pl.eventSerialNo);
            transaction = pl.commitLsn;
            transactionNumber = SourcePosition.sqlServerTransactionNumber(pl.commitLsn);
            windowKey = SourcePosition.sqlServerCommitOrder(pl.commitLsn);
        } else if (pl.lsn != null) {
            transactionNumber = pl.txId == null ? 0 : pl.txId;
            transaction = Long.toString(transactionNumber);
            Long lastCommit = lastCommit(pl.sequence);
            // a snapshot read has no commit before it: the snapshot's own position orders it
            windowKey = lastCommit != null ? lastCommit : pl.lsn;
            noCommitBefore = lastCommit == null && pl.op != 'r';
            position = SourcePosition.postgres(windowKey, pl.lsn);
        } else if (pl.op == 'r') {
            // a row of an incremental snapshot: read while streaming, logged nowhere; the
            // net-change app places it after the last position its partition has seen
            position = null;
            transactionNumber = 0;
            transaction = "";
        } else {
            throw new MalformedRecordException(
                    "change event has no readable source position (source.lsn or"
                            + " source.commit_lsn)");
        }
        return new ChangeEvent(
                pl.schema + "." + pl.table,
                key,
                pl.op,
                after,
                before,
                pl.unavailable,
                pl.op == 't' ? NO_COLUMNS : keyed(columns, key),
                position,
                transaction,
                transactionNumber,
                windowKey,
                noCommitBefore,
                commitMs,
                pl.capturedMs == Long.MIN_VALUE ? commitMs : pl.capturedMs,
                recordTimestamp,
                pl.op == 'd' ? null : pl.generator,
                pl.op == 'r'
                        ? ChangeEvent.SnapshotRow.of(pl.snapshot)
                        : ChangeEvent.SnapshotRow.NONE,
                pl.tooLargeBytes);
    }

    /**
     * The first element of PostgreSQL's {@code source.sequence}, {@code ["<last commit>","<lsn>"]}:
     * the position of the last commit before the event's transaction; null when absent.
     */
    static Long lastCommit(String sequence) {
        if (sequence == null) {
            return null;
        }
        int q1 = sequence.indexOf('"');
        if (q1 < 0 || sequence.startsWith("[null")) {
            return null;
        }
        int q2 = sequence.indexOf('"', q1 + 1);
        try {
            return q2 > q1 ? Long.parseLong(sequence.substring(q1 + 1, q2)) : null;
        } catch (NumberFormatException e) {
            throw new MalformedRecordException(
                    "source.sequence '" + sequence + "' is not readable");
        }
    }

    /**
     * JsonConverter writes {@code {"schema":<schema>,"payload":<payload>}}; when the schema part is
     * byte-for-byte one seen before, the payload can be read without tokenising the schema.
     */
    private KnownSchema matchKnownSchema(byte[] value) {
        if (value.length < SCHEMA_FIELD.length + PREFIX || !startsWith(value, 0, SCHEMA_FIELD)) {
            return null;
        }
        List<KnownSchema> candidates = byPrefix.get(prefixHash(value, SCHEMA_FIELD.length));
        if (candidates == null) {
            return null;
        }
        for (KnownSchema k : candidates) {
            int end = SCHEMA_FIELD.length + k.bytes().length;
            if (value.length > end + PAYLOAD_FIELD.length
                    && Arrays.equals(
                            value, SCHEMA_FIELD.length, end, k.bytes(), 0, k.bytes().length)
                    && startsWith(value, end, PAYLOAD_FIELD)) {
                return k;
            }
        }
        return null;
    }

    private void remember(byte[] value, int start, int end, List<ColumnSpec> columns) {
        if (start != SCHEMA_FIELD.length
                || end - start < PREFIX
                || !startsWith(value, 0, SCHEMA_FIELD)
                || !startsWith(value, end, PAYLOAD_FIELD)) {
            return;
        }
        if (byPrefix.size() >= MAX_CACHED_SCHEMAS) {
            byPrefix.clear();
        }
        byPrefix.computeIfAbsent(prefixHash(value, start), h -> new ArrayList<>(1))
                .add(new KnownSchema(Arrays.copyOfRange(value, start, end), columns));
    }

    private static int prefixHash(byte[] b, int from) {
        int h = 1;
        for (int i = from; i < from + PREFIX; i++) {
            h = 31 * h + b[i];
        }
        return h;
    }

    private static boolean startsWith(byte[] b, int at, byte[] prefix) {
        return b.length >= at + prefix.length
                && Arrays.equals(b, at, at + prefix.length, prefix, 0, prefix.length);
    }

    private void readPayload(JsonParser p, Payload pl) throws IOException {
        List<String> unavailable = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            if (field.equals(TOO_LARGE_FIELD)) {
                pl.tooLargeBytes = p.getValueAsLong(1);
                continue;
            }
            if (field.startsWith(FLAT_PREFIX)) {
                if (readFlatField(p, t, field.substring(FLAT_PREFIX.length()), pl)) {
                    pl.flat = true;
                    continue;
                }
            }
            switch (field) {
                case "op" -> {
                    String op = p.getText();
                    pl.op = op.length() == 1 ? op.charAt(0) : '?';
                }
                case "ts_ms" -> pl.capturedMs = p.getValueAsLong(Long.MIN_VALUE);
                case "after" -> {
                    if (t == JsonToken.START_OBJECT) {
                        pl.afterNull = false;
                        pl.afterStart = (int) p.currentTokenLocation().getByteOffset();
                        scanAfter(p, pl);
                        pl.afterEnd = (int) p.currentTokenLocation().getByteOffset() + 1;
                    } else {
                        p.skipChildren();
                    }
                }
                case "before" -> {
                    if (t == JsonToken.START_OBJECT) {
                        pl.beforeStart = (int) p.currentTokenLocation().getByteOffset();
                        p.skipChildren();
                        pl.beforeEnd = (int) p.currentTokenLocation().getByteOffset() + 1;
                    } else {
                        p.skipChildren();
                    }
                }
                case "source" -> {
                    if (t != JsonToken.START_OBJECT) {
                        p.skipChildren();
                        break;
                    }
                    pl.seenSource = true;
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String sf = p.currentName();
                        JsonToken st = p.nextToken();
                        if (!readSourceField(p, st, sf, pl)
                                && (st == JsonToken.START_OBJECT || st == JsonToken.START_ARRAY)) {
                            p.skipChildren();
                        }
                    }
                }
                default -> {
                    // a column of a flat row, or an envelope field this reader does not need
                    if (scanColumn(p, field, t, pl)) {
                        if (unavailable == null) {
                            unavailable = new ArrayList<>(2);
                        }
                        unavailable.add(field);
                    }
                }
            }
        }
        if (pl.flat) {
            pl.seenSource = pl.table != null;
            pl.afterNull = pl.op == 'd';
            if (unavailable != null) {
                pl.unavailable = Collections.unmodifiableList(unavailable);
            }
        }
    }

    /** One field of the {@code source} block; false when it is not one this reader uses. */
    private static boolean readSourceField(JsonParser p, JsonToken t, String field, Payload pl)
            throws IOException {
        switch (field) {
            case "schema" -> pl.schema = p.getValueAsString();
            case "table" -> pl.table = p.getValueAsString();
            case "ts_ms" -> pl.sourceTsMs = p.getValueAsLong(Long.MIN_VALUE);
            case "lsn" -> pl.lsn = numberOrNull(p, t);
            case "txId" -> pl.txId = numberOrNull(p, t);
            case "commit_lsn" -> pl.commitLsn = textOrNull(p, t);
            case "change_lsn" -> pl.changeLsn = textOrNull(p, t);
            case "event_serial_no" -> pl.eventSerialNo = numberOrNull(p, t);
            case "sequence" -> pl.sequence = textOrNull(p, t);
            case "snapshot" -> pl.snapshot = textOrNull(p, t);
            default -> {
                return false;
            }
        }
        return true;
    }

    private static Long numberOrNull(JsonParser p, JsonToken t) throws IOException {
        if (t == JsonToken.VALUE_NUMBER_INT) {
            return p.getLongValue();
        }
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
            p.skipChildren();
        }
        throw new MalformedRecordException(
                "source." + p.currentName() + " is not an integer: " + t);
    }

    private static String textOrNull(JsonParser p, JsonToken t) throws IOException {
        if (t == JsonToken.VALUE_STRING) {
            return p.getText();
        }
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
            p.skipChildren();
        }
        throw new MalformedRecordException("source." + p.currentName() + " is not a string: " + t);
    }

    /** One field {@code ExtractNewRecordState} added; false when it is not one of those. */
    private static boolean readFlatField(JsonParser p, JsonToken t, String name, Payload pl)
            throws IOException {
        switch (name) {
            case "op" -> {
                String op = p.getText();
                pl.op = op.length() == 1 ? op.charAt(0) : '?';
            }
            case "ts_ms" -> pl.capturedMs = p.getValueAsLong(Long.MIN_VALUE);
            case "source_ts_ms" -> pl.sourceTsMs = p.getValueAsLong(Long.MIN_VALUE);
            case "deleted" -> {
                // rewrite mode marks deletes; __op says the same
            }
            default -> {
                return readSourceField(p, t, name, pl);
            }
        }
        return true;
    }

    /** Walks the after image: finds placeholders and the generator column. */
    private void scanAfter(JsonParser p, Payload pl) throws IOException {
        List<String> unavailable = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String col = p.currentName();
            JsonToken t = p.nextToken();
            if (scanColumn(p, col, t, pl)) {
                if (unavailable == null) {
                    unavailable = new ArrayList<>(2);
                }
                unavailable.add(col);
            }
        }
        if (unavailable != null) {
            pl.unavailable = Collections.unmodifiableList(unavailable);
        }
    }

    /**
     * Reads past one column's value, noting the generator column; true when the value is the
     * unavailable-value placeholder.
     */
    private boolean scanColumn(JsonParser p, String col, JsonToken t, Payload pl)
            throws IOException {
        if (t == JsonToken.VALUE_STRING) {
            return isPlaceholder(p.getText());
        } else if (t == JsonToken.START_ARRAY) {
            JsonToken first = p.nextToken();
            if (first == JsonToken.VALUE_STRING && isPlaceholder(p.getText())) {
                if (p.nextToken() == JsonToken.END_ARRAY) {
                    return true;
                }
                p.skipChildren();
                skipRestOfArray(p);
            } else if (first != JsonToken.END_ARRAY) {
                p.skipChildren();
                skipRestOfArray(p);
            }
        } else if (t == JsonToken.START_OBJECT) {
            p.skipChildren();
        } else if (t != null && t.isNumeric() && col.equals(generatorColumn)) {
            pl.generator = p.getLongValue();
        }
        return false;
    }

    private static void skipRestOfArray(JsonParser p) throws IOException {
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY && t != null) {
            p.skipChildren();
        }
    }

    private boolean isPlaceholder(String s) {
        return s.equals(placeholder) || s.equals(placeholderBase64);
    }

    /**
     * The key's columns; empty for a table without a key (Debezium sends no key, or only the
     * router's source identifier).
     */
    private ObjectNode readKey(byte[] keyBytes) {
        if (keyBytes == null) {
            return mapper.createObjectNode();
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
        if (k == null || k.isNull()) {
            return mapper.createObjectNode();
        }
        if (!k.isObject()) {
            throw new MalformedRecordException("key is not a JSON object");
        }
        ObjectNode key = (ObjectNode) k;
        // added by Debezium's ToLogicalTopicRouter to keep keys of routed tables apart
        key.remove(ROUTER_KEY_FIELD);
        // added by the capture stage to keep a keyless table's events on one partition
        key.remove(ChangeKeyFields.KEYLESS_TABLE);
        return key;
    }

    private List<ColumnSpec> columnsOf(byte[] value, int start, int end) {
        SchemaBytes probe = new SchemaBytes(value, start, end);
        List<ColumnSpec> cached = schemaCache.get(probe);
        if (cached != null) {
            return cached;
        }
        List<ColumnSpec> parsed = parseColumns(value, start, end);
        if (schemaCache.size() >= MAX_CACHED_SCHEMAS) {
            schemaCache.clear();
        }
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
        boolean flat = false;
        for (JsonNode f : schema.path("fields")) {
            String name = f.path("field").asText();
            if ("after".equals(name) || ("before".equals(name) && row == null)) {
                row = f;
            } else if ((FLAT_PREFIX + "op").equals(name)) {
                flat = true;
            }
        }
        if (flat) {
            // ExtractNewRecordState: the row's columns are the schema's own fields
            row = schema;
        }
        if (row == null) {
            throw new MalformedRecordException("schema has no before/after struct");
        }
        List<ColumnSpec> cols = new ArrayList<>();
        for (JsonNode c : row.path("fields")) {
            if (flat && c.path("field").asText().startsWith(FLAT_PREFIX)) {
                continue;
            }
            JsonNode params = c.path("parameters");
            String connectType = c.path("type").asText("string");
            String semantic = c.hasNonNull("name") ? c.get("name").asText() : null;
            // an array's elements say what its values are: a list of epoch days is a date[]
            JsonNode items =
                    "array".equals(connectType) ? c.path("items") : MissingNode.getInstance();
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
                            semantic,
                            c.hasNonNull("default") ? c.get("default").toString() : null,
                            items.isObject() ? items.path("type").asText("string") : null,
                            items.hasNonNull("name") ? items.get("name").asText() : null));
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

    private Schemas.Described keyed(List<ColumnSpec> columns, ObjectNode key) {
        Set<String> keyNames = new HashSet<>();
        key.fieldNames().forEachRemaining(keyNames::add);
        KeyedSchema ks = new KeyedSchema(columns, keyNames);
        Schemas.Described hit = keyedCache.get(ks);
        if (hit != null) {
            return hit;
        }
        List<ColumnSpec> out = new ArrayList<>(columns.size());
        for (ColumnSpec c : columns) {
            out.add(c.withKey(keyNames.contains(c.name())));
        }
        Schemas.Described d = Schemas.describe(out);
        if (keyedCache.size() >= MAX_CACHED_SCHEMAS) {
            keyedCache.clear();
        }
        keyedCache.put(ks, d);
        return d;
    }

    /** Identity of a parsed schema plus its key columns (list identity: lists are cached). */
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

    /**
     * A byte range holding a schema, compared by content. The hash samples the range; equality
     * compares it all (a vectorised memcmp).
     */
    private static final class SchemaBytes {
        private final byte[] bytes;
        private final int from;
        private final int to;
        private final int hash;

        SchemaBytes(byte[] bytes, int from, int to) {
            this.bytes = bytes;
            this.from = from;
            this.to = to;
            int len = to - from;
            int h = len;
            int step = Math.max(1, len / 64);
            for (int i = from; i < to; i += step) {
                h = 31 * h + bytes[i];
            }
            for (int i = Math.max(from, to - 32); i < to; i++) {
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
