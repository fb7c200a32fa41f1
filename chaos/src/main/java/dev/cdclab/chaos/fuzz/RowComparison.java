package dev.cdclab.chaos.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A comparison of source and warehouse tables written apart from {@code verify}: each side renders
 * every value as text with its own SQL, and the texts are compared by what they mean for the
 * column's source type (a number as a number, a JSON document as its tree, an instant as epoch
 * microseconds). Rows are matched by the source's key, or compared as multisets where the table has
 * none. Types it cannot render the same on both sides ({@code interval}) are left to {@code
 * verify}.
 */
final class RowComparison {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final boolean duckDb;

    RowComparison(boolean duckDb) {
        this.duckDb = duckDb;
    }

    /** A source column: its name and {@code format_type}. */
    private record SourceColumn(String name, String type) {}

    /**
     * The differences of one table, at most {@code max}; empty when it matches.
     *
     * @param table the table's name in schema {@code public}
     */
    List<String> compare(Connection src, Connection wh, String table, int max) throws SQLException {
        List<SourceColumn> cols = new ArrayList<>();
        List<String> key = new ArrayList<>();
        try (PreparedStatement ps =
                src.prepareStatement(
                        "SELECT a.attname, format_type(a.atttypid, a.atttypmod), COALESCE(a.attnum"
                                + " = ANY (i.indkey), false) FROM pg_attribute a JOIN pg_class c ON"
                                + " c.oid = a.attrelid JOIN pg_namespace n ON n.oid ="
                                + " c.relnamespace LEFT JOIN pg_index i ON i.indrelid = c.oid AND"
                                + " i.indisprimary WHERE n.nspname = 'public' AND c.relname = ? AND"
                                + " a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    SourceColumn c = new SourceColumn(rs.getString(1), rs.getString(2));
                    if (rendered(c.type()) != null) {
                        cols.add(c);
                    }
                    if (rs.getBoolean(3)) {
                        key.add(c.name());
                    }
                }
            }
        }
        if (cols.isEmpty()) {
            return List.of();
        }
        Map<String, Integer> source = rows(src, table, cols, key, false);
        Map<String, Integer> warehouse;
        try {
            warehouse = rows(wh, table, cols, key, duckDb);
        } catch (SQLException e) {
            if (source.isEmpty()) {
                // a table never written: nothing was captured, nothing is in the warehouse
                return List.of();
            }
            return List.of("table " + table + ": cannot be read in the warehouse: " + oneLine(e));
        }
        List<String> out = new ArrayList<>();
        if (!key.isEmpty()) {
            Map<String, String> s = byKey(source, key.size());
            Map<String, String> w = byKey(warehouse, key.size());
            for (var e : s.entrySet()) {
                String other = w.get(e.getKey());
                if (other == null) {
                    out.add(table + " key " + e.getKey() + ": missing in the warehouse");
                } else if (!sameRow(e.getValue(), other, cols, key.size())) {
                    out.add(
                            table
                                    + " key "
                                    + e.getKey()
                                    + ": source ("
                                    + normalizeKey(e.getValue())
                                    + "), warehouse ("
                                    + normalizeKey(other)
                                    + ")");
                }
                if (out.size() >= max) {
                    return out;
                }
            }
            for (String k : w.keySet()) {
                if (!s.containsKey(k)) {
                    out.add(table + " key " + k + ": only in the warehouse");
                    if (out.size() >= max) {
                        return out;
                    }
                }
            }
            return out;
        }
        Map<String, Integer> left = normalized(source, cols);
        Map<String, Integer> right = normalized(warehouse, cols);
        for (var e : left.entrySet()) {
            int n = right.getOrDefault(e.getKey(), 0);
            if (n != e.getValue()) {
                out.add(
                        table
                                + " row "
                                + e.getKey()
                                + ": "
                                + e.getValue()
                                + " in the source, "
                                + n
                                + " in the warehouse");
                if (out.size() >= max) {
                    return out;
                }
            }
        }
        for (var e : right.entrySet()) {
            if (!left.containsKey(e.getKey())) {
                out.add(table + " row " + e.getKey() + ": only in the warehouse");
                if (out.size() >= max) {
                    return out;
                }
            }
        }
        return out;
    }

    /** Rows as {@code key\u0000value\u0001value...}, counted (duplicates of a keyless table). */
    private static Map<String, Integer> rows(
            Connection c, String table, List<SourceColumn> cols, List<String> key, boolean duck)
            throws SQLException {
        List<SourceColumn> ordered = new ArrayList<>();
        for (String k : key) {
            for (SourceColumn col : cols) {
                if (col.name().equals(k)) {
                    ordered.add(col);
                }
            }
        }
        for (SourceColumn col : cols) {
            if (!key.contains(col.name())) {
                ordered.add(col);
            }
        }
        StringBuilder select = new StringBuilder("SELECT ");
        for (int i = 0; i < ordered.size(); i++) {
            String q = "\"" + ordered.get(i).name().replace("\"", "\"\"") + "\"";
            select.append(i == 0 ? "" : ", ").append(render(q, ordered.get(i).type(), duck));
        }
        select.append(" FROM \"public\".\"").append(table.replace("\"", "\"\"")).append('"');
        Map<String, Integer> out = new HashMap<>();
        boolean auto = c.getAutoCommit();
        try (Statement s = c.createStatement()) {
            if (auto && !duck) {
                c.setAutoCommit(false);
            }
            s.setFetchSize(5_000);
            try (ResultSet rs = s.executeQuery(select.toString())) {
                int n = ordered.size();
                while (rs.next()) {
                    StringBuilder row = new StringBuilder();
                    for (int i = 1; i <= n; i++) {
                        if (i > 1) {
                            row.append(i == key.size() + 1 ? '\u0000' : '\u0001');
                        }
                        String v = rs.getString(i);
                        row.append(v == null ? "\u0002" : v);
                    }
                    if (key.isEmpty()) {
                        row.insert(0, '\u0000');
                    }
                    out.merge(row.toString(), 1, Integer::sum);
                }
            }
        } finally {
            if (auto && !duck) {
                c.commit();
                c.setAutoCommit(true);
            }
        }
        // the columns' order, for the comparison
        cols.clear();
        cols.addAll(ordered);
        return out;
    }

    /** How each side renders a column of source type {@code type}; null for one left out. */
    private static String rendered(String type) {
        return render("x", type, false);
    }

    private static String render(String q, String type, boolean duck) {
        String t = type.toLowerCase(Locale.ROOT);
        if (t.startsWith("interval")) {
            return null;
        }
        if (t.equals("timestamp with time zone")) {
            return duck
                    ? "CASE WHEN isinf("
                            + q
                            + ") THEN CAST("
                            + q
                            + " AS VARCHAR) ELSE CAST(epoch_us("
                            + q
                            + ") AS VARCHAR) END"
                    : "CASE WHEN isfinite("
                            + q
                            + ") THEN ((extract(epoch FROM "
                            + q
                            + ") * 1000000)::bigint)::text ELSE "
                            + q
                            + "::text END";
        }
        if (t.equals("bytea")) {
            return duck ? "lower(hex(" + q + "))" : "encode(" + q + ", 'hex')";
        }
        if (t.endsWith("[]")) {
            return duck ? "CAST(to_json(" + q + ") AS VARCHAR)" : "array_to_json(" + q + ")::text";
        }
        if (t.equals("inet")) {
            // inet's cast to text keeps the /32 of a host address its output leaves out
            return duck ? "CAST(" + q + " AS VARCHAR)" : output(q);
        }
        if (t.startsWith("character(")) {
            // char(n)'s cast to text drops its padding; its output keeps it, as the event does
            return duck ? "CAST(" + q + " AS VARCHAR)" : output(q);
        }
        return duck ? "CAST(" + q + " AS VARCHAR)" : q + "::text";
    }

    /** A value's output function's text; NULL stays NULL (format's %s makes it empty). */
    private static String output(String q) {
        return "CASE WHEN " + q + " IS NULL THEN NULL ELSE format('%s', " + q + ") END";
    }

    private static Map<String, String> byKey(Map<String, Integer> rows, int keyColumns) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String row : rows.keySet()) {
            int sep = row.indexOf('\u0000');
            String k = sep < 0 ? row : row.substring(0, sep);
            String rest = sep < 0 ? "" : row.substring(sep + 1);
            out.put(normalizeKey(k), rest);
        }
        return out;
    }

    private static String normalizeKey(String k) {
        return k.replace("\u0001", ", ").replace("\u0002", "NULL");
    }

    private Map<String, Integer> normalized(Map<String, Integer> rows, List<SourceColumn> cols) {
        Map<String, Integer> out = new HashMap<>();
        rows.forEach(
                (row, n) -> {
                    String[] values = row.substring(1).split("\u0001", -1);
                    StringBuilder sb = new StringBuilder("(");
                    for (int i = 0; i < values.length && i < cols.size(); i++) {
                        sb.append(i == 0 ? "" : ", ")
                                .append(canonical(values[i], cols.get(i).type()));
                    }
                    out.merge(sb.append(')').toString(), n, Integer::sum);
                });
        return out;
    }

    private boolean sameRow(String a, String b, List<SourceColumn> cols, int keyColumns) {
        if (cols.size() == keyColumns) {
            return true;
        }
        String[] x = a.split("\u0001", -1);
        String[] y = b.split("\u0001", -1);
        if (x.length != y.length) {
            return false;
        }
        for (int i = 0; i < x.length; i++) {
            String type = cols.get(keyColumns + i).type();
            if (!Objects.equals(canonical(x[i], type), canonical(y[i], type))) {
                return false;
            }
        }
        return true;
    }

    /** A value's text in one form for its source type, whichever side rendered it. */
    String canonical(String v, String type) {
        if (v.equals("\u0002")) {
            return "NULL";
        }
        String t = type.toLowerCase(Locale.ROOT);
        try {
            if (t.startsWith("numeric")) {
                if (v.equalsIgnoreCase("nan")) {
                    return duckDb && !t.equals("numeric") ? "NULL" : "NaN";
                }
                return new BigDecimal(v).stripTrailingZeros().toPlainString();
            }
            if (t.equals("real")) {
                return Float.toString(Float.parseFloat(floatText(v)));
            }
            if (t.equals("double precision")) {
                return Double.toString(Double.parseDouble(floatText(v)));
            }
            if (t.equals("date")) {
                return v.replace(" (BC)", " BC");
            }
            if (t.startsWith("timestamp") || t.startsWith("time")) {
                // DuckDB writes the era after the date ("0044-03-15 (BC) 00:00:00.500000"),
                // PostgreSQL after the time ("0044-03-15 00:00:00.5 BC")
                boolean bc = v.contains(" (BC)") || v.endsWith(" BC");
                String u = v.replace(" (BC)", "");
                if (u.endsWith(" BC")) {
                    u = u.substring(0, u.length() - 3);
                }
                u = u.replaceFirst("(\\.\\d*?)0+$", "$1").replaceFirst("\\.$", "");
                return bc ? u + " BC" : u;
            }
            if (t.equals("jsonb") || t.equals("json") || t.endsWith("[]")) {
                return tree(JSON.readTree(v)).toString();
            }
            if (t.equals("uuid")) {
                return v.toLowerCase(Locale.ROOT);
            }
        } catch (IOException | NumberFormatException e) {
            return v;
        }
        return v;
    }

    private static String floatText(String v) {
        String s = v.trim().toLowerCase(Locale.ROOT);
        return switch (s) {
            case "inf", "infinity", "+inf", "+infinity" -> "Infinity";
            case "-inf", "-infinity" -> "-Infinity";
            case "nan", "-nan" -> "NaN";
            default -> s;
        };
    }

    /** A JSON tree with its numbers as plain decimals, so that 1.50 and 1.5 compare equal. */
    private static JsonNode tree(JsonNode n) {
        if (n.isNumber()) {
            return JSON.getNodeFactory()
                    .textNode(new BigDecimal(n.asText()).stripTrailingZeros().toPlainString());
        }
        if (n.isArray()) {
            var a = JSON.createArrayNode();
            n.forEach(e -> a.add(tree(e)));
            return a;
        }
        if (n.isObject()) {
            var o = JSON.createObjectNode();
            List<String> names = new ArrayList<>();
            n.fieldNames().forEachRemaining(names::add);
            names.sort(null);
            for (String name : names) {
                o.set(name, tree(n.get(name)));
            }
            return o;
        }
        return n;
    }

    private static String oneLine(Exception e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
