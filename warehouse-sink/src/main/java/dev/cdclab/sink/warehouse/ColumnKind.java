package dev.cdclab.sink.warehouse;

import dev.cdclab.change.ColumnSpec;
import java.util.Locale;
import java.util.Set;

/**
 * What a source column holds, independent of any warehouse: decides the warehouse type, how a
 * Debezium value is written as text, and how values are compared during verification.
 */
public enum ColumnKind {
    INT16,
    INT32,
    INT64,
    FLOAT32,
    FLOAT64,
    /** Fixed precision and scale that fit the warehouse's decimal type. */
    DECIMAL,
    /** Numbers without a usable precision; stored as exact text. */
    NUMERIC_TEXT,
    /** PostgreSQL's {@code money}: a decimal with the currency's fraction digits. */
    MONEY,
    BOOLEAN,
    TEXT,
    DATE,
    TIMESTAMP,
    TIMESTAMPTZ,
    TIME,
    BYTES,
    UUID,
    JSON,
    /** Intervals as months, days and time, from Debezium's ISO 8601 text. */
    INTERVAL,
    /** Intervals as Debezium's microseconds ({@code interval.handling.mode=numeric}). */
    INTERVAL_MICROS,
    /** {@code bit(n)} (n > 1) and {@code varbit}: a string of bits. */
    BITS,
    XML,
    TSVECTOR,
    /** {@code inet}, {@code cidr}, {@code macaddr}, {@code macaddr8}. */
    NETWORK,
    /** PostgreSQL's built-in range types. */
    RANGE,
    /** PostgreSQL's {@code point}. */
    POINT,
    /** A one-dimensional array of an element kind ({@link #elementOf}). */
    ARRAY;

    /** Largest decimal precision the warehouses take. */
    public static final int MAX_DECIMAL_PRECISION = 38;

    /** Digits of {@code money}: its range is ±92233720368547758.07. */
    public static final int MONEY_PRECISION = 19;

    /** PostgreSQL's built-in range types, which a PostgreSQL warehouse has too. */
    public static final Set<String> RANGE_TYPES =
            Set.of("int4range", "int8range", "numrange", "daterange", "tsrange", "tstzrange");

    /**
     * Classifies a column from its Connect type and Debezium's semantic name, then its source type
     * (PostgreSQL names, upper case), then its Connect type alone.
     */
    public static ColumnKind of(ColumnSpec c) {
        String connect = c.connectType() == null ? "string" : c.connectType();
        if ("array".equals(connect)) {
            // an array whose element type is not recorded stays its JSON text
            return c.elementConnectType() == null ? TEXT : ARRAY;
        }
        String semantic = c.semanticType() == null ? "" : c.semanticType();
        switch (semantic) {
            case "io.debezium.time.Date":
                return DATE;
            case "io.debezium.time.Timestamp":
            case "io.debezium.time.MicroTimestamp":
            case "io.debezium.time.NanoTimestamp":
                return TIMESTAMP;
            case "io.debezium.time.ZonedTimestamp":
                return TIMESTAMPTZ;
            case "io.debezium.time.Time":
            case "io.debezium.time.MicroTime":
            case "io.debezium.time.NanoTime":
                return TIME;
            case "io.debezium.time.Interval":
                return INTERVAL;
            case "io.debezium.time.MicroDuration":
                return INTERVAL_MICROS;
            case "io.debezium.data.Uuid":
                return UUID;
            case "io.debezium.data.Json":
                return JSON;
            case "io.debezium.data.Bits":
                return BITS;
            case "io.debezium.data.Xml":
                return XML;
            case "io.debezium.data.Tsvector":
                return TSVECTOR;
            case "io.debezium.data.geometry.Point":
                return POINT;
            case "io.debezium.data.Enum":
                return TEXT;
            default:
                break;
        }
        String source = c.sourceType() == null ? "" : c.sourceType();
        if (!source.startsWith("_")) {
            ColumnKind bySource = ofSourceType(source, c.length(), c.scale());
            if (bySource != null && bySource != ARRAY) {
                return bySource;
            }
        }
        return switch (connect) {
            case "int8", "int16" -> INT16;
            case "int32" -> INT32;
            case "int64" -> INT64;
            // Connect's JSON schemas name them float and double; its Schema.Type, float32/64
            case "float", "float32" -> FLOAT32;
            case "double", "float64" -> FLOAT64;
            case "boolean" -> BOOLEAN;
            // a type Debezium does not know (include.unknown.datatypes) arrives as the bytes of
            // its text form; only bytea, or bytes without a source type, are binary
            case "bytes" -> isUnknownType(c) ? TEXT : BYTES;
            default -> TEXT;
        };
    }

    /**
     * True when the value is the text form of a type Debezium does not know, sent as bytes: the
     * source type is named, and it is not {@code bytea}.
     */
    public static boolean isUnknownType(ColumnSpec c) {
        String source = c.sourceType() == null ? "" : c.sourceType().toUpperCase(Locale.ROOT);
        return "bytes".equals(c.connectType())
                && c.semanticType() == null
                && !source.isEmpty()
                && !source.equals("BYTES")
                && !source.equals("BYTEA");
    }

    /** The kind of an array column's elements; null when the column is not an {@link #ARRAY}. */
    public static ColumnKind elementOf(ColumnSpec c) {
        ColumnSpec element = c.element();
        return element == null || of(c) != ARRAY ? null : of(element);
    }

    /**
     * Classifies a PostgreSQL type name ({@code pg_type.typname}, any case); null when unknown.
     *
     * @param precision the declared precision, or for bit types the length
     */
    public static ColumnKind ofSourceType(String type, Integer precision, Integer scale) {
        if (type == null) {
            return null;
        }
        String t = type.toUpperCase(Locale.ROOT);
        if (t.startsWith("_")) {
            return ARRAY;
        }
        if (RANGE_TYPES.contains(t.toLowerCase(Locale.ROOT))) {
            return RANGE;
        }
        return switch (t) {
            case "INT2", "SMALLSERIAL" -> INT16;
            case "INT4", "SERIAL", "OID" -> INT32;
            case "INT8", "BIGSERIAL" -> INT64;
            case "FLOAT4" -> FLOAT32;
            case "FLOAT8" -> FLOAT64;
            case "NUMERIC", "DECIMAL" ->
                    precision != null
                                    && precision > 0
                                    && precision <= MAX_DECIMAL_PRECISION
                                    && scale != null
                                    && scale >= 0
                                    && scale <= precision
                            ? DECIMAL
                            : NUMERIC_TEXT;
            case "MONEY" -> MONEY;
            case "BOOL" -> BOOLEAN;
            // Debezium sends bit(1) and varbit(1) as booleans
            case "BIT", "VARBIT" -> precision != null && precision == 1 ? BOOLEAN : BITS;
            case "TEXT", "VARCHAR", "BPCHAR", "CHAR", "NAME", "CITEXT" -> TEXT;
            case "XML" -> XML;
            case "TSVECTOR" -> TSVECTOR;
            case "INET", "CIDR", "MACADDR", "MACADDR8" -> NETWORK;
            case "DATE" -> DATE;
            case "TIMESTAMP" -> TIMESTAMP;
            case "TIMESTAMPTZ" -> TIMESTAMPTZ;
            case "TIME" -> TIME;
            case "BYTEA" -> BYTES;
            case "UUID" -> UUID;
            case "JSON", "JSONB", "HSTORE" -> JSON;
            case "INTERVAL" -> INTERVAL;
            case "POINT" -> POINT;
            default -> null;
        };
    }

    /** Scale of a {@link #MONEY} column: the declared one when there is one, else two digits. */
    public static int moneyScale(ColumnSpec c) {
        Integer length = c.length();
        Integer scale = c.scale();
        return length != null && length <= MONEY_PRECISION && scale != null && scale > 0
                ? scale
                : 2;
    }
}
