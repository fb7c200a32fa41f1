package dev.cdclab.sink.warehouse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.cdclab.change.ColumnSpec;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.Locale;

/**
 * Writes a Debezium JSON value as the text a warehouse casts to the column's type. Time values
 * follow Debezium's {@code time.precision.mode=adaptive_time_microseconds}, decimals its {@code
 * decimal.handling.mode} (string or precise), bytes its base64 encoding, intervals its ISO 8601
 * text ({@code interval.handling.mode=string}) or microseconds. PostgreSQL's edge values keep their
 * meaning: {@code ±infinity} dates and timestamps, {@code 24:00:00}, years past 9999, years before
 * Christ, and numeric {@code NaN}/{@code ±Infinity} in PostgreSQL's spelling. An array is a JSON
 * array of its elements' texts; a point is {@code {"x":..,"y":..}}; a bit string its digits; a type
 * Debezium does not know, its PostgreSQL text.
 */
public final class ValueText {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /** Debezium 3.7's epoch days for PostgreSQL's date {@code infinity} and {@code -infinity}. */
    static final long DATE_POSITIVE_INFINITY = 2146033979L;

    static final long DATE_NEGATIVE_INFINITY = -2147472691L;

    /**
     * Debezium 3.7's epoch days for {@code infinity} and {@code -infinity} inside a {@code date[]}
     * (its array path reads them through {@code java.sql.Date}).
     */
    static final long ARRAY_DATE_POSITIVE_INFINITY = -622191234L;

    static final long ARRAY_DATE_NEGATIVE_INFINITY = -625821272L;

    /** Debezium 3.7's text for {@code -infinity} inside a {@code timestamptz[]}. */
    static final String ARRAY_TIMESTAMPTZ_NEGATIVE_INFINITY = "+292269055-12-02T23:00:00.000000Z";

    private static final long MICROS_PER_DAY = 86_400_000_000L;

    private static final ObjectMapper JSON = new ObjectMapper();

    // year of era, then the era as DuckDB writes it: DuckDB and PostgreSQL both read this back,
    // while PostgreSQL refuses ISO's signed years and DuckDB reads "0044-03-15 BC" as AD 44
    private static final DateTimeFormatter BC_DATE =
            DateTimeFormatter.ofPattern("yyyy-MM-dd '(BC)'", Locale.ROOT);
    private static final DateTimeFormatter BC_TIMESTAMP =
            DateTimeFormatter.ofPattern("yyyy-MM-dd '(BC)' HH:mm:ss.SSSSSS", Locale.ROOT);

    private ValueText() {}

    /** Text for the value, or null for SQL NULL. */
    public static String of(ColumnSpec column, ColumnKind kind, JsonNode v) {
        if (v == null || v.isNull() || v.isMissingNode()) {
            return null;
        }
        switch (kind) {
            case ARRAY:
                if (v.isArray()) {
                    return array(column, v);
                }
                break;
            case BITS:
                if (v.isTextual()) {
                    return bits(column, Base64.getDecoder().decode(v.asText()));
                }
                break;
            case POINT:
                if (v.isObject()) {
                    return "{\"x\":" + v.path("x") + ",\"y\":" + v.path("y") + "}";
                }
                break;
            case TEXT:
                if (v.isTextual() && ColumnKind.isUnknownType(column)) {
                    return new String(
                            Base64.getDecoder().decode(v.asText()), StandardCharsets.UTF_8);
                }
                break;
            default:
                break;
        }
        String semantic = column.semanticType() == null ? "" : column.semanticType();
        switch (semantic) {
            case "io.debezium.time.Date":
                return date(v.asLong());
            case "io.debezium.time.Timestamp":
                return timestampMillis(v.asLong(), kind);
            case "io.debezium.time.MicroTimestamp":
                return timestampMicros(v.asLong(), kind);
            case "io.debezium.time.NanoTimestamp":
                return timestampMicros(Math.floorDiv(v.asLong(), 1000), kind);
            case "io.debezium.time.Time":
                return timeMicros(v.asLong() * 1000);
            case "io.debezium.time.MicroTime":
                return timeMicros(v.asLong());
            case "io.debezium.time.NanoTime":
                return timeMicros(v.asLong() / 1000);
            case "io.debezium.time.ZonedTimestamp":
                return v.isTextual() ? zonedTimestamp(v.asText()) : v.asText();
            case "io.debezium.time.MicroDuration":
                // ISO text in a column that holds microseconds: the connector's interval mode
                // changed after the warehouse column was made
                return v.isTextual()
                        ? Long.toString(Iso8601Interval.parse(v.asText()).debeziumMicros())
                        : Long.toString(v.asLong());
            case "io.debezium.time.Interval":
                return Iso8601Interval.parse(v.asText()).sqlText();
            case "org.apache.kafka.connect.data.Decimal":
                if (v.isTextual() && kind != ColumnKind.BYTES) {
                    return decodeDecimal(v.asText(), column.scale());
                }
                break;
            case "io.debezium.data.VariableScaleDecimal":
                if (v.isObject()) {
                    return decodeDecimal(v.path("value").asText(), v.path("scale").asInt());
                }
                break;
            default:
                break;
        }
        if ((kind == ColumnKind.DECIMAL
                        || kind == ColumnKind.NUMERIC_TEXT
                        || kind == ColumnKind.MONEY)
                && v.isTextual()) {
            return specialNumber(v.asText());
        }
        if (kind == ColumnKind.BYTES && v.isTextual()) {
            return hex(Base64.getDecoder().decode(v.asText()));
        }
        if (v.isTextual()) {
            return v.asText();
        }
        if (v.isNumber() || v.isBoolean()) {
            return v.asText();
        }
        return v.toString();
    }

    /**
     * An array as a JSON array of its elements' texts (each as {@link #of} writes a value of the
     * element's kind, or null), which the dialects cast element by element. A nested array (one
     * Debezium sends for a multi-dimensional array) is written as its JSON text.
     */
    private static String array(ColumnSpec column, JsonNode v) {
        ColumnSpec element = column.element();
        ColumnKind elementKind = ColumnKind.of(element);
        ArrayNode out = JSON.createArrayNode();
        for (JsonNode e : v) {
            out.add(e.isContainerNode() ? e.toString() : element(element, elementKind, e));
        }
        return out.toString();
    }

    /** An array element: Debezium's array path has its own spellings of the infinities. */
    private static String element(ColumnSpec element, ColumnKind kind, JsonNode e) {
        if (kind == ColumnKind.DATE && e.isNumber()) {
            if (e.asLong() == ARRAY_DATE_POSITIVE_INFINITY) {
                return "infinity";
            }
            if (e.asLong() == ARRAY_DATE_NEGATIVE_INFINITY) {
                return "-infinity";
            }
        }
        if (kind == ColumnKind.TIMESTAMPTZ
                && e.isTextual()
                && ARRAY_TIMESTAMPTZ_NEGATIVE_INFINITY.equals(e.asText())) {
            return "-infinity";
        }
        return of(element, kind, e);
    }

    /**
     * Debezium's {@code Bits}: the bit string's value as little-endian bytes. A {@code bit(n)} is
     * padded to its n digits; a {@code varbit} has lost its leading zeros, and an all-zero one is
     * written {@code 0} (a DuckDB BIT cannot be empty).
     */
    private static String bits(ColumnSpec column, byte[] littleEndian) {
        byte[] bigEndian = new byte[littleEndian.length];
        for (int i = 0; i < littleEndian.length; i++) {
            bigEndian[i] = littleEndian[littleEndian.length - 1 - i];
        }
        BigInteger value = new BigInteger(1, bigEndian);
        String digits = value.signum() == 0 ? "" : value.toString(2);
        boolean fixed = "BIT".equalsIgnoreCase(column.sourceType());
        if (fixed && column.length() != null && digits.length() < column.length()) {
            digits = "0".repeat(column.length() - digits.length()) + digits;
        }
        return digits.isEmpty() ? "0" : digits;
    }

    /** Debezium's string-mode spelling of numeric specials, back to PostgreSQL's. */
    private static String specialNumber(String s) {
        return switch (s) {
            case "NAN" -> "NaN";
            case "POSITIVE_INFINITY" -> "Infinity";
            case "NEGATIVE_INFINITY" -> "-Infinity";
            default -> s;
        };
    }

    private static String date(long epochDay) {
        if (epochDay == DATE_POSITIVE_INFINITY || epochDay >= Integer.MAX_VALUE) {
            return "infinity";
        }
        if (epochDay == DATE_NEGATIVE_INFINITY || epochDay <= Integer.MIN_VALUE) {
            return "-infinity";
        }
        LocalDate d = LocalDate.ofEpochDay(epochDay);
        return d.getYear() <= 0 ? d.format(BC_DATE) : withoutPlus(d.toString());
    }

    private static String timeMicros(long micros) {
        // PostgreSQL's time holds 24:00:00, one past the last LocalTime
        if (micros == MICROS_PER_DAY) {
            return "24:00:00";
        }
        return LocalTime.ofNanoOfDay(micros * 1000).toString();
    }

    private static String timestampMillis(long millis, ColumnKind kind) {
        // Debezium's millisecond infinity (PGStatement.DATE_POSITIVE_INFINITY and its negative)
        if (millis >= 9223372036825200000L) {
            return "infinity";
        }
        if (millis <= -9223372036832400000L) {
            return "-infinity";
        }
        return timestampMicros(millis * 1000, kind);
    }

    private static String timestampMicros(long micros, ColumnKind kind) {
        if (micros == Long.MAX_VALUE) {
            return "infinity";
        }
        if (micros == Long.MIN_VALUE) {
            return "-infinity";
        }
        long seconds = Math.floorDiv(micros, 1_000_000);
        int nanos = (int) Math.floorMod(micros, 1_000_000) * 1000;
        LocalDateTime t = LocalDateTime.ofEpochSecond(seconds, nanos, ZoneOffset.UTC);
        if (t.getYear() <= 0) {
            return t.format(BC_TIMESTAMP) + (kind == ColumnKind.TIMESTAMPTZ ? "Z" : "");
        }
        if (kind == ColumnKind.TIMESTAMPTZ) {
            return withoutPlus(Instant.ofEpochSecond(seconds, nanos).toString());
        }
        return withoutPlus(t.toString());
    }

    /** Debezium's ISO text; a year before 1 (ISO's {@code 0000} is 1 BC) in the era spelling. */
    private static String zonedTimestamp(String iso) {
        boolean signed =
                iso.length() > 1 && iso.charAt(0) == '-' && Character.isDigit(iso.charAt(1));
        if (!signed && !iso.startsWith("0000")) {
            return withoutPlus(iso);
        }
        return OffsetDateTime.parse(iso)
                        .withOffsetSameInstant(ZoneOffset.UTC)
                        .toLocalDateTime()
                        .format(BC_TIMESTAMP)
                + "Z";
    }

    /** ISO-8601 writes years past 9999 with a sign that the warehouses' date parsers refuse. */
    private static String withoutPlus(String iso) {
        return iso.startsWith("+") ? iso.substring(1) : iso;
    }

    private static String decodeDecimal(String base64, Integer scale) {
        byte[] b = Base64.getDecoder().decode(base64);
        return new BigDecimal(new BigInteger(b), scale == null ? 0 : scale).toPlainString();
    }

    /** Upper-case hex digits; warehouses decode them into binary values. */
    public static String hex(byte[] bytes) {
        StringBuilder sb = new StringBuilder(bytes.length * 2);
        for (byte x : bytes) {
            sb.append(HEX[(x >> 4) & 0xF]).append(HEX[x & 0xF]);
        }
        return sb.toString();
    }
}
