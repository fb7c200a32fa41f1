package dev.cdclab.sink.warehouse;

import dev.cdclab.change.ColumnSpec;
import java.util.Locale;

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
    BOOLEAN,
    TEXT,
    DATE,
    TIMESTAMP,
    TIMESTAMPTZ,
    TIME,
    BYTES,
    UUID,
    JSON,
    /** PostgreSQL intervals, stored as microseconds. */
    INTERVAL_MICROS;

    /** Largest decimal precision the warehouses take. */
    public static final int MAX_DECIMAL_PRECISION = 38;

    /** Classifies a column from its source type (PostgreSQL names, upper case) and Connect type. */
    public static ColumnKind of(ColumnSpec c) {
        ColumnKind bySource = ofSourceType(c.sourceType(), c.length(), c.scale());
        if (bySource != null) {
            return bySource;
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
            case "io.debezium.data.Uuid":
                return UUID;
            case "io.debezium.data.Json":
                return JSON;
            default:
                break;
        }
        return switch (c.connectType() == null ? "string" : c.connectType()) {
            case "int8", "int16" -> INT16;
            case "int32" -> INT32;
            case "int64" -> INT64;
            case "float32" -> FLOAT32;
            case "float64" -> FLOAT64;
            case "boolean" -> BOOLEAN;
            case "bytes" -> BYTES;
            default -> TEXT;
        };
    }

    /** Classifies a PostgreSQL type name ({@code pg_type.typname}, any case); null when unknown. */
    public static ColumnKind ofSourceType(String type, Integer precision, Integer scale) {
        if (type == null) {
            return null;
        }
        String t = type.toUpperCase(Locale.ROOT);
        if (t.startsWith("_")) {
            return TEXT;
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
            case "MONEY" -> NUMERIC_TEXT;
            case "BOOL" -> BOOLEAN;
            case "TEXT",
                    "VARCHAR",
                    "BPCHAR",
                    "CHAR",
                    "NAME",
                    "CITEXT",
                    "XML",
                    "INET",
                    "CIDR",
                    "MACADDR" ->
                    TEXT;
            case "DATE" -> DATE;
            case "TIMESTAMP" -> TIMESTAMP;
            case "TIMESTAMPTZ" -> TIMESTAMPTZ;
            case "TIME" -> TIME;
            case "BYTEA" -> BYTES;
            case "UUID" -> UUID;
            case "JSON", "JSONB" -> JSON;
            case "INTERVAL" -> INTERVAL_MICROS;
            default -> null;
        };
    }
}
