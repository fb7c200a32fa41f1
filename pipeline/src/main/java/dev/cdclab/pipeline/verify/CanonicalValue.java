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
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
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
    // PostgreSQL writes the era last ("... 10:00:00+00 BC"), DuckDB right after the date
    // ("0044-03-15 (BC) 10:00:00")
    private static final Pattern TIMESTAMP_TEXT =
            Pattern.compile(
                    "(\\d{4,})-(\\d\\d)-(\\d\\d)(\\s*\\(?BC\\)?)?[ T](\\d\\d):(\\d\\d):(\\d\\d)"
                            + "(\\.\\d{1,9})?\\s*(Z|[+-]\\d\\d(?::\\d\\d){0,2})?\\s*(\\(?BC\\)?)?");
    private static final Pattern DATE_TEXT =
            Pattern.compile("(\\d{4,})-(\\d\\d)-(\\d\\d)\\s*(\\(?BC\\)?)?");
    private static final Pattern TIME_TZ_TEXT =
            Pattern.compile(
                    "(\\d\\d):(\\d\\d)(?::(\\d\\d)(\\.\\d{1,9})?)?\\s*"
                            + "(Z|[+-]\\d\\d(?::?\\d\\d){0,2})");
    private static final long NANOS_PER_DAY = 86_400_000_000_000L;

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

    /**
     * {@code 13:51:30.123789+02} and {@code 11:51:30.123789Z} both as {@code 11:51:30.123789Z}.
     * PostgreSQL's {@code 24:00:00+02} is {@code 22:00Z}, as Debezium sends it; only {@code
     * 24:00:00+00} stays {@code 24:00Z} (Debezium's {@code 24:00:00Z}).
     */
    static String timeAtUtc(String v) {
        Matcher m = TIME_TZ_TEXT.matcher(v.trim());
        if (!m.matches()) {
            return v;
        }
        int hour = Integer.parseInt(m.group(1));
        int minute = Integer.parseInt(m.group(2));
        int second = m.group(3) == null ? 0 : Integer.parseInt(m.group(3));
        String fraction = m.group(4) == null ? "" : m.group(4).substring(1);
        long nanos =
                fraction.isEmpty() ? 0 : Long.parseLong((fraction + "00000000").substring(0, 9));
        long local = ((hour * 60L + minute) * 60 + second) * 1_000_000_000L + nanos;
        int offset = offsetSeconds(m.group(5));
        if (hour > 24 || minute > 59 || second > 59 || local > NANOS_PER_DAY) {
            return v;
        }
        if (local == NANOS_PER_DAY && offset == 0) {
            return "24:00Z";
        }
        long utc = Math.floorMod(local - offset * 1_000_000_000L, NANOS_PER_DAY);
        return LocalTime.ofNanoOfDay(utc).truncatedTo(ChronoUnit.MICROS) + "Z";
    }

    /** {@code Z}, {@code +02}, {@code +05:30}, {@code -03:30:15} or {@code +0530} in seconds. */
    private static int offsetSeconds(String offset) {
        if (offset.equals("Z")) {
            return 0;
        }
        String digits = offset.substring(1).replace(":", "");
        int seconds = Integer.parseInt(digits.substring(0, 2)) * 3600;
        if (digits.length() >= 4) {
            seconds += Integer.parseInt(digits.substring(2, 4)) * 60;
        }
        if (digits.length() >= 6) {
            seconds += Integer.parseInt(digits.substring(4, 6));
        }
        return offset.charAt(0) == '-' ? -seconds : seconds;
    }

    /**
     * A date as PostgreSQL ({@code 0044-03-15 BC}) or DuckDB ({@code 0044-03-15 (BC)}) writes it:
     * years before Christ in ISO's proleptic numbering ({@code -0043-03-15}), everything else as
     * written.
     */
    static String date(String text) {
        Matcher m = DATE_TEXT.matcher(text.trim());
        if (!m.matches() || m.group(4) == null) {
            return text;
        }
        return LocalDate.of(
                        1 - Integer.parseInt(m.group(1)),
                        Integer.parseInt(m.group(2)),
                        Integer.parseInt(m.group(3)))
                .toString();
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
                String s = rs.getString(i);
                return s == null ? null : date(s);
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
     * A timestamp as PostgreSQL or DuckDB write it: years past 9999 without a sign, {@code BC} at
     * the end (PostgreSQL) or {@code (BC)} after the date (DuckDB), an offset when it has one (UTC
     * when not).
     */
    static OffsetDateTime parseText(String text) {
        Matcher m = TIMESTAMP_TEXT.matcher(text.trim());
        if (!m.matches()) {
            throw new DateTimeParseException("not a timestamp", text, 0);
        }
        int year = Integer.parseInt(m.group(1));
        if (m.group(4) != null || m.group(10) != null) {
            year = 1 - year;
        }
        String fraction = m.group(8) == null ? "" : m.group(8).substring(1);
        int nanos =
                fraction.isEmpty() ? 0 : Integer.parseInt((fraction + "00000000").substring(0, 9));
        ZoneOffset offset =
                m.group(9) == null || m.group(9).isEmpty()
                        ? ZoneOffset.UTC
                        : ZoneOffset.of(m.group(9).equals("Z") ? "Z" : m.group(9));
        return OffsetDateTime.of(
                year,
                Integer.parseInt(m.group(2)),
                Integer.parseInt(m.group(3)),
                Integer.parseInt(m.group(5)),
                Integer.parseInt(m.group(6)),
                Integer.parseInt(m.group(7)),
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
