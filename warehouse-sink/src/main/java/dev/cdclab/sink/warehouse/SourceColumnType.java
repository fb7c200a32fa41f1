package dev.cdclab.sink.warehouse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.cdclab.change.ColumnSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A column as a PostgreSQL source's DDL log names it ({@code pg_type.typname} and {@code
 * atttypmod}), for a column added or retyped while no row of its table changes: the warehouse takes
 * it at the DDL's position instead of at the next change. The column is described as Debezium's
 * events describe it, so that the next change finds it as it expects; its default, in PostgreSQL's
 * text, is written as the text the warehouse's casts take.
 */
public final class SourceColumnType {
    private static final ObjectMapper JSON = new ObjectMapper();

    private SourceColumnType() {}

    /** The detail of an ADD_COLUMN or ALTER_COLUMN_TYPE event, read. */
    public record Detail(
            String typeName,
            int typeMod,
            String defaultText,
            boolean volatileDefault,
            String oldTypeText) {

        /**
         * True for a change from {@code char(n)} to a type of text without padding: PostgreSQL's
         * cast drops the trailing spaces the old values had.
         */
        boolean dropsPadding() {
            return oldTypeText != null
                    && (oldTypeText.startsWith("character(") || oldTypeText.equals("character"))
                    && !typeName.equalsIgnoreCase("bpchar");
        }
    }

    static Detail detail(String json) {
        try {
            JsonNode d = JSON.readTree(json == null ? "{}" : json);
            return new Detail(
                    d.path("type_name").asText(""),
                    d.path("type_mod").asInt(-1),
                    d.hasNonNull("default_text") ? d.get("default_text").asText() : null,
                    d.path("volatile_default").asBoolean(false),
                    d.hasNonNull("old_type_text") ? d.get("old_type_text").asText() : null);
        } catch (IOException e) {
            throw new UncheckedIOException("unreadable column detail " + json, e);
        }
    }

    /** The column, as Debezium's events describe one of its type. */
    public static ColumnSpec spec(String name, Detail d) {
        String type = d.typeName().toUpperCase(Locale.ROOT);
        if (type.startsWith("_")) {
            ColumnSpec element = scalar(name, type.substring(1), d.typeMod());
            return new ColumnSpec(
                    name,
                    type,
                    false,
                    true,
                    element.length(),
                    element.scale(),
                    "array",
                    null,
                    null,
                    element.connectType(),
                    element.semanticType());
        }
        return scalar(name, type, d.typeMod());
    }

    private static ColumnSpec scalar(String name, String type, int typmod) {
        Integer length = null;
        Integer scale = null;
        if ((type.equals("NUMERIC") || type.equals("DECIMAL")) && typmod >= 4) {
            length = ((typmod - 4) >> 16) & 0xffff;
            scale = (typmod - 4) & 0xffff;
        } else if ((type.equals("VARCHAR") || type.equals("BPCHAR")) && typmod >= 4) {
            length = typmod - 4;
        } else if ((type.equals("BIT") || type.equals("VARBIT")) && typmod > 0) {
            length = typmod;
        }
        ColumnKind kind = ColumnKind.ofSourceType(type, length, scale);
        String connect = "string";
        String semantic = null;
        if (kind != null) {
            switch (kind) {
                case INT16 -> connect = "int16";
                case INT32 -> connect = "int32";
                case INT64 -> connect = "int64";
                case FLOAT32 -> connect = "float";
                case FLOAT64 -> connect = "double";
                case BOOLEAN -> connect = "boolean";
                case BYTES -> connect = "bytes";
                case DATE -> {
                    connect = "int32";
                    semantic = "io.debezium.time.Date";
                }
                case TIMESTAMP -> {
                    connect = "int64";
                    semantic = "io.debezium.time.MicroTimestamp";
                }
                case TIMESTAMPTZ -> semantic = "io.debezium.time.ZonedTimestamp";
                case TIME -> {
                    connect = "int64";
                    semantic = "io.debezium.time.MicroTime";
                }
                case UUID -> semantic = "io.debezium.data.Uuid";
                case JSON -> semantic = "io.debezium.data.Json";
                case INTERVAL -> semantic = "io.debezium.time.Interval";
                default -> {}
            }
        }
        return new ColumnSpec(name, type, false, true, length, scale, connect, semantic);
    }

    /**
     * The text a warehouse cast takes for a value in PostgreSQL's text output, of a column of
     * {@code spec}; null for NULL, and for a kind whose text this cannot read (the column is then
     * added without it, and the table marked).
     *
     * @throws IllegalArgumentException when the value's kind is one this cannot carry
     */
    public static String staged(ColumnSpec spec, String pgText) {
        if (pgText == null) {
            return null;
        }
        ColumnKind kind = ColumnKind.of(spec);
        return switch (kind) {
            // a bit(1), which Debezium sends as a boolean, is written 1 or 0
            case BOOLEAN -> pgText.startsWith("t") || pgText.equals("1") ? "true" : "false";
            case BYTES -> pgText.startsWith("\\x") ? pgText.substring(2) : pgText;
            case MONEY -> pgText.replaceAll("[^0-9.\\-]", "");
            case ARRAY -> array(spec, pgText);
            case POINT -> {
                String[] xy = pgText.replaceAll("[()\\s]", "").split(",");
                yield "{\"x\":" + xy[0] + ",\"y\":" + xy[1] + "}";
            }
            // the DDL log writes intervals in ISO 8601, as Debezium sends them
            case INTERVAL ->
                    ValueText.of(
                            spec,
                            kind,
                            com.fasterxml.jackson.databind.node.TextNode.valueOf(pgText));
            case INTERVAL_MICROS, BITS ->
                    throw new IllegalArgumentException(kind + " defaults are not carried");
            case DATE, TIMESTAMP, TIMESTAMPTZ -> beforeChrist(pgText, kind);
            default -> pgText;
        };
    }

    /**
     * PostgreSQL's ISO text of a date or timestamp before year 1 ({@code 0044-03-15 BC}, {@code
     * 4714-11-24 00:00:00+00 BC}) in the era spelling the change events' values are staged in
     * ({@code 0044-03-15 (BC)}, {@code 4714-11-24 (BC) 00:00:00Z}): DuckDB reads PostgreSQL's
     * spelling as a year of our era. Other text is returned as it is.
     */
    public static String beforeChrist(String pgText, ColumnKind kind) {
        if (!pgText.endsWith(" BC")) {
            return pgText;
        }
        String t = pgText.substring(0, pgText.length() - 3);
        int space = t.indexOf(' ');
        if (space < 0) {
            return t + " (BC)";
        }
        String time = t.substring(space + 1);
        if (kind == ColumnKind.TIMESTAMPTZ && time.endsWith("+00")) {
            time = time.substring(0, time.length() - 3) + "Z";
        }
        return t.substring(0, space) + " (BC) " + time;
    }

    /** A one-dimensional array's text, {@code {a,"b c",NULL}}, as a JSON array of its texts. */
    private static String array(ColumnSpec spec, String pgText) {
        ColumnSpec element = spec.element();
        List<String> items = elements(pgText);
        ArrayNode out = JSON.createArrayNode();
        for (String item : items) {
            if (item == null) {
                out.addNull();
            } else {
                out.add(element == null ? item : staged(element, item));
            }
        }
        return out.toString();
    }

    static List<String> elements(String text) {
        String t = text.trim();
        if (!t.startsWith("{") || !t.endsWith("}")) {
            throw new IllegalArgumentException("not a one-dimensional array: " + text);
        }
        List<String> out = new ArrayList<>();
        String body = t.substring(1, t.length() - 1);
        if (body.isEmpty()) {
            return out;
        }
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        boolean wasQuoted = false;
        for (int i = 0; i < body.length(); i++) {
            char ch = body.charAt(i);
            if (quoted) {
                if (ch == '\\' && i + 1 < body.length()) {
                    cur.append(body.charAt(++i));
                } else if (ch == '"') {
                    quoted = false;
                } else {
                    cur.append(ch);
                }
            } else if (ch == '"') {
                quoted = true;
                wasQuoted = true;
            } else if (ch == ',') {
                out.add(!wasQuoted && cur.toString().equals("NULL") ? null : cur.toString());
                cur.setLength(0);
                wasQuoted = false;
            } else if (ch == '{') {
                throw new IllegalArgumentException("not a one-dimensional array: " + text);
            } else {
                cur.append(ch);
            }
        }
        out.add(!wasQuoted && cur.toString().equals("NULL") ? null : cur.toString());
        return out;
    }
}
