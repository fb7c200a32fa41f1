package dev.cdclab.pipeline.verify;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cdclab.sink.warehouse.ColumnKind;
import dev.cdclab.sink.warehouse.ValueText;
import java.math.BigDecimal;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.postgresql.util.PGInterval;

/**
 * Reads a value from either database and writes it in one canonical text form, so the source and
 * the warehouse compare equal exactly when they hold the same value.
 */
final class CanonicalValue {
    private static final double DAYS_PER_MONTH = 365.25 / 12.0;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern TIMESTAMP_TEXT =
            Pattern.compile(
                    "(\\d{4,})-(\\d\\d)-(\\d\\d)[ T](\\d\\d):(\\d\\d):(\\d\\d)(\\.\\d{1,9})?"
                            + "\\s*(Z|[+-]\\d\\d(?::\\d\\d){0,2})?\\s*(\\(?BC\\)?)?");

    private CanonicalValue() {}

    /**
     * Reads a column: PostgreSQL arrays as JSON arrays (the warehouse holds Debezium's JSON),
     * {@code money} as a plain number, {@code timetz} at UTC; everything else by its kind.
     */
    static String read(ResultSet rs, int i, TableColumn column) throws SQLException {
        String type = column.sourceType();
        if (type.startsWith("_")) {
            return array(rs.getObject(i));
        }
        String v = read(rs, i, column.kind());
        if (v == null) {
            return null;
        }
        return switch (type) {
            case "money" -> money(v);
            case "timetz" -> timeAtUtc(v);
            default -> v;
        };
    }

    private static String array(Object o) throws SQLException {
        if (o == null) {
            return null;
        }
        try {
            if (o instanceof Array a) {
                return JSON.writeValueAsString(a.getArray());
            }
            String s = o.toString().trim();
            return s.startsWith("[") ? JSON.readTree(s).toString() : s;
        } catch (JsonProcessingException e) {
            return o.toString();
        }
    }

    /** {@code $1,234.11}, {@code -$0.50} or {@code ($0.50)} as a plain number. */
    private static String money(String v) {
        String s = v.trim();
        boolean negative = s.startsWith("-") || s.startsWith("(");
        String digits = s.replaceAll("[^0-9.]", "");
        try {
            BigDecimal d = new BigDecimal(digits);
            d = negative ? d.negate() : d;
            return d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString();
        } catch (NumberFormatException e) {
            return v;
        }
    }

    /** {@code 13:51:30.123789+02} and {@code 11:51:30.123789Z} both as {@code 11:51:30.123789Z}. */
    private static String timeAtUtc(String v) {
        String s = v.trim();
        // PostgreSQL writes offsets as +02 or +05:30; OffsetTime wants +02:00
        if (s.matches(".*[+-]\\d\\d$")) {
            s = s + ":00";
        }
        try {
            return OffsetTime.parse(s)
                    .withOffsetSameInstant(ZoneOffset.UTC)
                    .truncatedTo(ChronoUnit.MICROS)
                    .toString();
        } catch (DateTimeParseException e) {
            return v;
        }
    }

    static String read(ResultSet rs, int i, ColumnKind kind) throws SQLException {
        switch (kind) {
            case INT16, INT32, INT64 -> {
                long v = rs.getLong(i);
                return rs.wasNull() ? null : Long.toString(v);
            }
            case FLOAT32 -> {
                float v = rs.getFloat(i);
                return rs.wasNull() ? null : Float.toString(v);
            }
            case FLOAT64 -> {
                double v = rs.getDouble(i);
                return rs.wasNull() ? null : Double.toString(v);
            }
            case DECIMAL, NUMERIC_TEXT -> {
                String s = rs.getString(i);
                if (s == null) {
                    return null;
                }
                try {
                    BigDecimal d = new BigDecimal(s.trim());
                    return d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString();
                } catch (NumberFormatException e) {
                    return s.trim();
                }
            }
            case BOOLEAN -> {
                boolean v = rs.getBoolean(i);
                return rs.wasNull() ? null : Boolean.toString(v);
            }
            case DATE -> {
                return rs.getString(i);
            }
            case TIMESTAMP, TIMESTAMPTZ -> {
                // read as text on both sides: the JDBC drivers' objects cannot hold infinity
                String text = rs.getString(i);
                if (text == null || text.equals("infinity") || text.equals("-infinity")) {
                    return text;
                }
                OffsetDateTime t = parseText(text);
                return kind == ColumnKind.TIMESTAMP
                        ? t.toLocalDateTime().truncatedTo(ChronoUnit.MICROS).toString()
                        : t.toInstant().truncatedTo(ChronoUnit.MICROS).toString();
            }
            case TIME -> {
                String s = rs.getString(i);
                if (s == null) {
                    return null;
                }
                s = s.trim();
                // PostgreSQL's time holds 24:00:00, which LocalTime does not
                return s.startsWith("24:00:00")
                        ? "24:00"
                        : LocalTime.parse(s).truncatedTo(ChronoUnit.MICROS).toString();
            }
            case BYTES -> {
                byte[] b = rs.getBytes(i);
                return b == null ? null : ValueText.hex(b);
            }
            case UUID -> {
                Object o = rs.getObject(i);
                return o == null ? null : o.toString().toLowerCase(Locale.ROOT);
            }
            case INTERVAL_MICROS -> {
                Object o = rs.getObject(i);
                if (o == null) {
                    return null;
                }
                if (o instanceof PGInterval iv) {
                    return Long.toString(micros(iv));
                }
                return Long.toString(((Number) o).longValue());
            }
            default -> {
                return rs.getString(i);
            }
        }
    }

    /**
     * A timestamp as PostgreSQL or DuckDB write it: years past 9999 without a sign, {@code BC} or
     * {@code (BC)} after it, an offset when it has one (UTC when not).
     */
    static OffsetDateTime parseText(String text) {
        Matcher m = TIMESTAMP_TEXT.matcher(text.trim());
        if (!m.matches()) {
            throw new DateTimeParseException("not a timestamp", text, 0);
        }
        int year = Integer.parseInt(m.group(1));
        if (m.group(9) != null) {
            year = 1 - year;
        }
        String fraction = m.group(7) == null ? "" : m.group(7).substring(1);
        int nanos =
                fraction.isEmpty() ? 0 : Integer.parseInt((fraction + "00000000").substring(0, 9));
        ZoneOffset offset =
                m.group(8) == null || m.group(8).isEmpty()
                        ? ZoneOffset.UTC
                        : ZoneOffset.of(m.group(8).equals("Z") ? "Z" : m.group(8));
        return OffsetDateTime.of(
                year,
                Integer.parseInt(m.group(2)),
                Integer.parseInt(m.group(3)),
                Integer.parseInt(m.group(4)),
                Integer.parseInt(m.group(5)),
                Integer.parseInt(m.group(6)),
                nanos,
                offset);
    }

    /** NaN or an infinity, as PostgreSQL spells them. */
    static boolean isSpecialNumber(String canonical) {
        return "NaN".equals(canonical)
                || "Infinity".equals(canonical)
                || "-Infinity".equals(canonical);
    }

    /** Debezium's MicroDuration: months count as 365.25/12 days. */
    private static long micros(PGInterval iv) {
        double days =
                iv.getYears() * 12 * DAYS_PER_MONTH
                        + iv.getMonths() * DAYS_PER_MONTH
                        + iv.getDays();
        double seconds =
                days * 86400 + iv.getHours() * 3600.0 + iv.getMinutes() * 60.0 + iv.getSeconds();
        return Math.round(seconds * 1_000_000);
    }

    static String utc(long epochMs) {
        return Instant.ofEpochMilli(epochMs).atOffset(ZoneOffset.UTC).toString();
    }
}
