package dev.cdclab.pipeline.verify;

import dev.cdclab.sink.warehouse.ColumnKind;
import dev.cdclab.sink.warehouse.ValueText;
import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import org.postgresql.util.PGInterval;

/**
 * Reads a value from either database and writes it in one canonical text form, so the source and
 * the warehouse compare equal exactly when they hold the same value.
 */
final class CanonicalValue {
    private static final double DAYS_PER_MONTH = 365.25 / 12.0;

    private CanonicalValue() {}

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
            case TIMESTAMP -> {
                Object o = rs.getObject(i);
                if (o == null) {
                    return null;
                }
                LocalDateTime t =
                        o instanceof Timestamp ts
                                ? ts.toLocalDateTime()
                                : o instanceof LocalDateTime l
                                        ? l
                                        : LocalDateTime.parse(o.toString().replace(' ', 'T'));
                return t.truncatedTo(ChronoUnit.MICROS).toString();
            }
            case TIMESTAMPTZ -> {
                Object o = rs.getObject(i);
                if (o == null) {
                    return null;
                }
                Instant t;
                if (o instanceof OffsetDateTime odt) {
                    t = odt.toInstant();
                } else if (o instanceof Timestamp ts) {
                    t = ts.toInstant();
                } else {
                    t = rs.getObject(i, OffsetDateTime.class).toInstant();
                }
                return t.truncatedTo(ChronoUnit.MICROS).toString();
            }
            case TIME -> {
                String s = rs.getString(i);
                return s == null
                        ? null
                        : LocalTime.parse(s.trim()).truncatedTo(ChronoUnit.MICROS).toString();
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
