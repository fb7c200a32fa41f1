package dev.cdclab.orchestration.verify;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.TextNode;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
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
    private static final ObjectMapper EXACT_JSON =
            new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    private static final Pattern INTERVAL_PART =
            Pattern.compile(
                    "([+-]?\\d+)\\s+(years?|months?|mons?|days?)"
                            + "|([+-])?(\\d+):(\\d{2}):(\\d{2}(?:\\.\\d+)?)");
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
     * Reads a column: arrays element by element (from a SQL array of element texts, or the JSON
     * text an older mapping stored), {@code money} as a plain number, {@code timetz} at UTC;
     * everything else by its kind.
     */
    static String read(ResultSet rs, int i, TableColumn column) throws SQLException {
        if (column.kind() == ColumnKind.ARRAY) {
            return array(rs.getObject(i), column.element());
        }
        String v = read(rs, i, column.kind());
        if (v == null) {
            return null;
        }
        return "timetz".equals(column.sourceType()) ? timeAtUtc(v) : v;
    }

    /**
     * An array as a JSON array of its elements' canonical texts ({@link #text}); nested arrays (a
     * multi-dimensional array) nest.
     */
    static String array(Object o, TableColumn element) throws SQLException {
        if (o == null) {
            return null;
        }
        Object[] items;
        if (o instanceof Array a) {
            items = (Object[]) a.getArray();
        } else if (o instanceof Object[] given) {
            items = given;
        } else {
            String s = o.toString().trim();
            if (!s.startsWith("[")) {
                return s;
            }
            try {
                items = jsonItems(JSON.readTree(s));
            } catch (JsonProcessingException e) {
                return s;
            }
        }
        ArrayNode out = JSON.createArrayNode();
        addItems(out, items, element);
        return out.toString();
    }

    private static void addItems(ArrayNode out, Object[] items, TableColumn element)
            throws SQLException {
        for (Object item : items) {
            if (item == null) {
                out.addNull();
            } else if (item instanceof Object[] nested) {
                addItems(out.addArray(), nested, element);
            } else if (item instanceof Array nested) {
                addItems(out.addArray(), (Object[]) nested.getArray(), element);
            } else {
                out.add(text(item.toString(), element));
            }
        }
    }

    /** A JSON array's items as texts: strings as they are, other values as their JSON. */
    private static Object[] jsonItems(JsonNode array) {
        Object[] items = new Object[array.size()];
        for (int i = 0; i < items.length; i++) {
            JsonNode n = array.get(i);
            items[i] =
                    n.isNull() ? null : n.isArray() ? jsonItems(n) : n.isTextual() ? n.asText() : n;
        }
        return items;
    }

    /**
     * One value given as text (an array element, as either database writes it) in canonical form.
     */
    static String text(String v, TableColumn column) {
        String s = v.trim();
        try {
            return switch (column.kind()) {
                case INT16, INT32, INT64 -> Long.toString(Long.parseLong(s));
                case FLOAT32 -> Float.toString((float) parseDouble(s));
                case FLOAT64 -> Double.toString(parseDouble(s));
                case DECIMAL, NUMERIC_TEXT, MONEY -> number(s);
                case BOOLEAN ->
                        Boolean.toString(s.equals("t") || s.equals("1") || s.equals("true"));
                case DATE -> date(s);
                case TIMESTAMP, TIMESTAMPTZ -> timestamp(s, column.kind());
                case TIME -> "timetz".equals(column.sourceType()) ? timeAtUtc(s) : time(s);
                case BYTES -> (s.startsWith("\\x") ? s.substring(2) : s).toUpperCase(Locale.ROOT);
                case UUID -> s.toLowerCase(Locale.ROOT);
                case JSON -> json(v);
                case INTERVAL -> interval(s);
                case BITS -> bits(s);
                case POINT -> point(s);
                case RANGE -> range(s, column.sourceType());
                default ->
                        switch (column.sourceType()) {
                            case "timetz" -> timeAtUtc(v);
                            // char(n)'s padding does not count (PostgreSQL's text[] drops it)
                            case "bpchar" -> v.stripTrailing();
                            // inet's text() has the netmask a host address's output leaves out
                            case "inet" -> hostAddress(s);
                            default -> v;
                        };
            };
        } catch (RuntimeException e) {
            return v;
        }
    }

    private static String hostAddress(String inet) {
        if (inet.endsWith("/32") && inet.indexOf(':') < 0) {
            return inet.substring(0, inet.length() - 3);
        }
        return inet.endsWith("/128") && inet.indexOf(':') >= 0
                ? inet.substring(0, inet.length() - 4)
                : inet;
    }

    /** PostgreSQL's {@code NaN}, {@code Infinity}; DuckDB's {@code nan}, {@code inf}. */
    private static double parseDouble(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "nan" -> Double.NaN;
            case "inf", "infinity", "+inf", "+infinity" -> Double.POSITIVE_INFINITY;
            case "-inf", "-infinity" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(s);
        };
    }

    /** A number without trailing zeros; {@code money}'s currency text too. */
    private static String number(String s) {
        if (s.startsWith("$") || s.startsWith("-$") || s.startsWith("(")) {
            return money(s);
        }
        try {
            BigDecimal d = new BigDecimal(s);
            return d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString();
        } catch (NumberFormatException e) {
            return s;
        }
    }

    private static String timestamp(String s, ColumnKind kind) {
        if (s.equals("infinity") || s.equals("-infinity")) {
            return s;
        }
        OffsetDateTime t = parseText(s);
        return kind == ColumnKind.TIMESTAMP
                ? t.toLocalDateTime().truncatedTo(ChronoUnit.MICROS).toString()
                : t.toInstant().truncatedTo(ChronoUnit.MICROS).toString();
    }

    private static String time(String s) {
        // PostgreSQL's time holds 24:00:00, which LocalTime does not
        return s.startsWith("24:00:00")
                ? "24:00"
                : LocalTime.parse(s).truncatedTo(ChronoUnit.MICROS).toString();
    }

    /**
     * A JSON value with its object keys sorted and numbers without trailing zeros: {@code json}
     * keeps its text, {@code jsonb} and DuckDB's JSON may reorder keys and respace.
     */
    static String json(String text) {
        try {
            StringBuilder sb = new StringBuilder();
            json(EXACT_JSON.readTree(text), sb);
            return sb.toString();
        } catch (JsonProcessingException e) {
            return text;
        }
    }

    private static void json(JsonNode n, StringBuilder sb) {
        if (n.isObject()) {
            TreeMap<String, JsonNode> sorted = new TreeMap<>();
            n.fields().forEachRemaining(e -> sorted.put(e.getKey(), e.getValue()));
            sb.append('{');
            boolean first = true;
            for (Map.Entry<String, JsonNode> e : sorted.entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                sb.append(TextNode.valueOf(e.getKey())).append(':');
                json(e.getValue(), sb);
            }
            sb.append('}');
        } else if (n.isArray()) {
            sb.append('[');
            for (int i = 0; i < n.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                json(n.get(i), sb);
            }
            sb.append(']');
        } else if (n.isNumber()) {
            sb.append(number(n.decimalValue().toString()));
        } else {
            sb.append(n);
        }
    }

    /**
     * An interval as PostgreSQL ({@code 1 year 2 mons 3 days 04:05:06.789}) or DuckDB ({@code 1
     * year 2 months 3 days 04:05:06.789}) writes it, as its months, days and microseconds.
     */
    static String interval(String text) {
        Matcher m = INTERVAL_PART.matcher(text);
        long months = 0;
        long days = 0;
        BigDecimal micros = BigDecimal.ZERO;
        int end = 0;
        while (m.find()) {
            if (!text.substring(end, m.start()).isBlank()) {
                return text;
            }
            end = m.end();
            if (m.group(1) != null) {
                long n = Long.parseLong(m.group(1));
                String unit = m.group(2);
                if (unit.startsWith("year")) {
                    months += 12 * n;
                } else if (unit.startsWith("mon")) {
                    months += n;
                } else {
                    days += n;
                }
            } else {
                BigDecimal seconds =
                        new BigDecimal(m.group(4))
                                .multiply(BigDecimal.valueOf(3600))
                                .add(new BigDecimal(m.group(5)).multiply(BigDecimal.valueOf(60)))
                                .add(new BigDecimal(m.group(6)));
                micros = seconds.movePointRight(6);
                if ("-".equals(m.group(3))) {
                    micros = micros.negate();
                }
            }
        }
        if (!text.substring(end).isBlank()) {
            return text;
        }
        return months + " months " + days + " days " + micros.toBigInteger() + " us";
    }

    /** A bit string without its leading zeros: Debezium's event drops those of a varbit. */
    static String bits(String s) {
        int first = 0;
        while (first < s.length() && s.charAt(first) == '0') {
            first++;
        }
        return s.substring(first);
    }

    /**
     * A point as PostgreSQL ({@code (1.5,2.5)}) or as the JSON of DuckDB's struct (or of Debezium's
     * value) writes it, as {@code (x,y)}.
     */
    static String point(String s) {
        double x;
        double y;
        if (s.startsWith("{")) {
            JsonNode n;
            try {
                n = JSON.readTree(s);
            } catch (JsonProcessingException e) {
                return s;
            }
            x = n.path("x").asDouble();
            y = n.path("y").asDouble();
        } else {
            String inner = s.replaceAll("[()\\s]", "");
            int comma = inner.indexOf(',');
            x = parseDouble(inner.substring(0, comma));
            y = parseDouble(inner.substring(comma + 1));
        }
        return "(" + x + "," + y + ")";
    }

    /**
     * A built-in range with each bound in canonical form: the source may write a {@code tstzrange}
     * in another time zone than Debezium's event did.
     */
    static String range(String s, String rangeType) {
        if (s.equals("empty") || s.length() < 3) {
            return s;
        }
        char open = s.charAt(0);
        char close = s.charAt(s.length() - 1);
        String body = s.substring(1, s.length() - 1);
        List<String> bounds = new ArrayList<>(2);
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < body.length(); i++) {
            char ch = body.charAt(i);
            if (ch == '\\' && i + 1 < body.length()) {
                cur.append(body.charAt(++i));
            } else if (ch == '"') {
                if (quoted && i + 1 < body.length() && body.charAt(i + 1) == '"') {
                    cur.append('"');
                    i++;
                } else {
                    quoted = !quoted;
                }
            } else if (ch == ',' && !quoted) {
                bounds.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(ch);
            }
        }
        bounds.add(cur.toString());
        if (bounds.size() != 2) {
            return s;
        }
        ColumnKind subtype =
                switch (rangeType == null ? "" : rangeType) {
                    case "int4range", "int8range" -> ColumnKind.INT64;
                    case "numrange" -> ColumnKind.NUMERIC_TEXT;
                    case "daterange" -> ColumnKind.DATE;
                    case "tsrange" -> ColumnKind.TIMESTAMP;
                    case "tstzrange" -> ColumnKind.TIMESTAMPTZ;
                    default -> ColumnKind.TEXT;
                };
        TableColumn bound = new TableColumn("", subtype, false);
        return open
                + (bounds.get(0).isEmpty() ? "" : text(bounds.get(0), bound))
                + ","
                + (bounds.get(1).isEmpty() ? "" : text(bounds.get(1), bound))
                + close;
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

    /**
     * A floating-point value as a driver returns it: a number, or text in the warehouse's own
     * spelling where the column holds text ({@code -inf}, {@code nan}).
     */
    private static Number floatValue(Object o) {
        if (o instanceof Number n) {
            return n;
        }
        String t = o.toString().trim().toLowerCase(Locale.ROOT);
        return switch (t) {
            case "inf", "+inf", "infinity", "+infinity" -> Double.POSITIVE_INFINITY;
            case "-inf", "-infinity" -> Double.NEGATIVE_INFINITY;
            case "nan", "-nan" -> Double.NaN;
            default -> Double.parseDouble(t);
        };
    }

    static String read(ResultSet rs, int i, ColumnKind kind) throws SQLException {
        switch (kind) {
            case INT16, INT32, INT64 -> {
                long v = rs.getLong(i);
                return rs.wasNull() ? null : Long.toString(v);
            }
            case FLOAT32 -> {
                Object o = rs.getObject(i);
                return o == null ? null : Float.toString(floatValue(o).floatValue());
            }
            case FLOAT64 -> {
                Object o = rs.getObject(i);
                return o == null ? null : Double.toString(floatValue(o).doubleValue());
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
            case MONEY, JSON, INTERVAL, BITS, POINT, RANGE -> {
                String s = rs.getString(i);
                return s == null ? null : text(s, new TableColumn("", kind, false));
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
