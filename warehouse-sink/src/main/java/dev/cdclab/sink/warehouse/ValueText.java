package dev.cdclab.sink.warehouse;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cdclab.change.ColumnSpec;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.Base64;

/**
 * Writes a Debezium JSON value as the text a warehouse casts to the column's type. Time values
 * follow Debezium's {@code time.precision.mode=adaptive_time_microseconds}, decimals its {@code
 * decimal.handling.mode} (string or precise), bytes its base64 encoding.
 */
public final class ValueText {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private ValueText() {}

    /** Text for the value, or null for SQL NULL. */
    public static String of(ColumnSpec column, ColumnKind kind, JsonNode v) {
        if (v == null || v.isNull() || v.isMissingNode()) {
            return null;
        }
        String semantic = column.semanticType() == null ? "" : column.semanticType();
        switch (semantic) {
            case "io.debezium.time.Date":
                return LocalDate.ofEpochDay(v.asLong()).toString();
            case "io.debezium.time.Timestamp":
                return timestampMicros(v.asLong() * 1000, kind);
            case "io.debezium.time.MicroTimestamp":
                return timestampMicros(v.asLong(), kind);
            case "io.debezium.time.NanoTimestamp":
                return timestampMicros(Math.floorDiv(v.asLong(), 1000), kind);
            case "io.debezium.time.Time":
                return LocalTime.ofNanoOfDay(v.asLong() * 1_000_000).toString();
            case "io.debezium.time.MicroTime":
                return LocalTime.ofNanoOfDay(v.asLong() * 1000).toString();
            case "io.debezium.time.NanoTime":
                return LocalTime.ofNanoOfDay(v.asLong()).toString();
            case "io.debezium.time.MicroDuration":
                return Long.toString(v.asLong());
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

    private static String timestampMicros(long micros, ColumnKind kind) {
        long seconds = Math.floorDiv(micros, 1_000_000);
        int nanos = (int) Math.floorMod(micros, 1_000_000) * 1000;
        if (kind == ColumnKind.TIMESTAMPTZ) {
            return Instant.ofEpochSecond(seconds, nanos).toString();
        }
        return LocalDateTime.ofEpochSecond(seconds, nanos, ZoneOffset.UTC).toString();
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
