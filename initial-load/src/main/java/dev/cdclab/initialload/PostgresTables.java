package dev.cdclab.initialload;

import dev.cdclab.change.ColumnSpec;
import dev.cdclab.sink.warehouse.SourceColumnType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The tables of a PostgreSQL source the load reads: the captured schemas' tables (a partitioned
 * table as its root), each column with the type its changes will carry (a domain as its base type),
 * and how to select it so that its text is what the change events carry.
 */
final class PostgresTables {
    /** Element types whose arrays Debezium's PostgreSQL connector does not send (docs/types.md). */
    private static final java.util.Set<String> UNSENT_ARRAYS =
            java.util.Set.of("interval", "money", "xml", "varbit", "point", "name");

    private PostgresTables() {}

    /**
     * The tables of {@code schemas}, in name order, less {@code excluded} ({@code schema.table}).
     */
    static List<SourceTable> of(Connection c, List<String> schemas, List<String> excluded)
            throws SQLException {
        int version;
        try (var s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW server_version_num")) {
            rs.next();
            version = Integer.parseInt(rs.getString(1));
        }
        List<SourceTable> out = new ArrayList<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT c.oid, n.nspname, c.relname, c.relkind FROM pg_class c JOIN"
                                + " pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN"
                                + " ('r', 'p') AND NOT c.relispartition AND n.nspname = ANY (?)"
                                + " ORDER BY 2, 3")) {
            ps.setArray(1, c.createArrayOf("text", schemas.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                List<Object[]> rels = new ArrayList<>();
                while (rs.next()) {
                    rels.add(
                            new Object[] {
                                rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4)
                            });
                }
                for (Object[] r : rels) {
                    String name = r[1] + "." + r[2];
                    if (excluded.contains(name)) {
                        continue;
                    }
                    out.add(table(c, (Long) r[0], (String) r[1], (String) r[2], version));
                }
            }
        }
        return out;
    }

    private static String quote(String id) {
        return "\"" + id.replace("\"", "\"\"") + "\"";
    }

    private static SourceTable table(
            Connection c, long oid, String schema, String table, int version) throws SQLException {
        List<ColumnSpec> cols = new ArrayList<>();
        List<String> selects = new ArrayList<>();
        // the key: the primary key, else the index the replica identity names
        String generated = version >= 120000 ? "a.attgenerated" : "''";
        try (PreparedStatement ps =
                c.prepareStatement(
                        "WITH k AS (SELECT i.indkey::int2[] AS cols FROM pg_index i WHERE"
                                + " i.indrelid = ? AND (i.indisprimary OR i.indisreplident) ORDER"
                                + " BY i.indisprimary DESC LIMIT 1) SELECT a.attname,"
                                + " t.typname, t.typtype, bt.typname, et.typname, ebt.typname,"
                                + " CASE WHEN t.typtype = 'd' THEN t.typtypmod ELSE a.atttypmod"
                                + " END, coalesce(a.attnum = ANY ((SELECT cols FROM k)::int2[]),"
                                + " false), "
                                + generated
                                + " FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid LEFT"
                                + " JOIN pg_type bt ON t.typtype = 'd' AND bt.oid = t.typbasetype"
                                + " LEFT JOIN pg_type et ON t.typcategory = 'A' AND et.oid ="
                                + " t.typelem LEFT JOIN pg_type ebt ON et.typtype = 'd' AND"
                                + " ebt.oid = et.typbasetype WHERE a.attrelid = ? AND a.attnum > 0"
                                + " AND NOT a.attisdropped ORDER BY a.attnum")) {
            ps.setLong(1, oid);
            ps.setLong(2, oid);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String col = rs.getString(1);
                    String gen = rs.getString(9);
                    if (gen != null && !gen.isEmpty() && (version < 180000 || gen.equals("v"))) {
                        // not published to logical decoding: its changes will not carry it
                        continue;
                    }
                    String typname = rs.getString(2);
                    String element = rs.getString(6) != null ? rs.getString(6) : rs.getString(5);
                    if (element != null && UNSENT_ARRAYS.contains(element)) {
                        // Debezium leaves arrays of these out of its events: the table's changes
                        // will not carry the column, so neither does its load
                        continue;
                    }
                    String type =
                            rs.getString(4) != null
                                    ? rs.getString(4)
                                    : rs.getString(5) != null
                                            ? "_"
                                                    + (rs.getString(6) != null
                                                            ? rs.getString(6)
                                                            : rs.getString(5))
                                            : typname;
                    ColumnSpec spec =
                            SourceColumnType.spec(
                                    col,
                                    new SourceColumnType.Detail(
                                            type, rs.getInt(7), null, false, null));
                    boolean key = rs.getBoolean(8);
                    cols.add(
                            new ColumnSpec(
                                    spec.name(),
                                    spec.sourceType(),
                                    key,
                                    !key,
                                    spec.length(),
                                    spec.scale(),
                                    spec.connectType(),
                                    spec.semanticType(),
                                    null,
                                    spec.elementConnectType(),
                                    spec.elementSemanticType()));
                    selects.add(select(quote(col), type));
                }
            }
        }
        long pages;
        List<String> partitions = new ArrayList<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT n.nspname, c.relname, c.relpages, c.relkind FROM"
                                + " pg_partition_tree(?::regclass) p JOIN pg_class c ON c.oid ="
                                + " p.relid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE"
                                + " p.isleaf")) {
            ps.setLong(1, oid);
            pages = 0;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    pages += Math.max(0, rs.getLong(3));
                    if (!(rs.getString(1).equals(schema) && rs.getString(2).equals(table))) {
                        partitions.add(quote(rs.getString(1)) + "." + quote(rs.getString(2)));
                    }
                }
            }
        }
        return new SourceTable(
                schema + "." + table,
                quote(schema) + "." + quote(table),
                cols,
                selects,
                pages,
                partitions);
    }

    /**
     * The select-list expression of a column: its text output, where that is what the change events
     * carry; else the form they carry (a {@code timetz} at UTC, {@code hstore} as JSON).
     */
    private static String select(String q, String type) {
        if (type.startsWith("_") && !select("e", type.substring(1)).equals("e")) {
            // each element as a value of its own; the array's elements in order
            return "CASE WHEN "
                    + q
                    + " IS NULL THEN NULL ELSE ARRAY(SELECT "
                    + select("u.e", type.substring(1))
                    + " FROM unnest("
                    + q
                    + ") WITH ORDINALITY AS u(e, n) ORDER BY u.n) END";
        }
        return switch (type) {
            // at UTC as Debezium sends it; a time at UTC as it is, so that 24:00 stays 24:00
            case "timetz" ->
                    "replace((CASE WHEN extract(timezone FROM "
                            + q
                            + ") = 0 THEN "
                            + q
                            + " ELSE ("
                            + q
                            + ") AT TIME ZONE 'UTC' END)::text, '+00', 'Z')";
            case "hstore" -> "hstore_to_json(" + q + ")";
            default -> q;
        };
    }
}
