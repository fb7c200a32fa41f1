package dev.cdclab.orchestration.verify;

import dev.cdclab.sink.warehouse.ColumnKind;
import dev.cdclab.sink.warehouse.TableName;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** PostgreSQL's catalog: {@code pg_class}, {@code pg_attribute}, {@code pg_index}. */
final class PostgresCatalog implements SourceCatalog {
    @Override
    public List<TableName> tables(Connection c, List<String> schemas) throws SQLException {
        List<TableName> out = new ArrayList<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid"
                                + " = c.relnamespace WHERE c.relkind IN ('r', 'p') AND NOT"
                                + " c.relispartition AND n.nspname = ANY (?) ORDER BY 1, 2")) {
            ps.setArray(1, c.createArrayOf("text", schemas.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new TableName(rs.getString(1), rs.getString(2)));
                }
            }
        }
        return out;
    }

    /** Precision, scale and length of a type oid and modifier, as information_schema has them. */
    private static String sizes(String oid, String typmod) {
        String args = "(" + oid + ", " + typmod + ")";
        return "information_schema._pg_numeric_precision"
                + args
                + ", information_schema._pg_numeric_scale"
                + args
                + ", information_schema._pg_char_max_length"
                + args;
    }

    /**
     * Generated columns: PostgreSQL before 18 publishes none to logical decoding; 18 publishes
     * stored ones where the publication says {@code publish_generated_columns = stored} (as the one
     * cdc-lab creates does), and never virtual ones.
     */
    @Override
    public java.util.Map<String, String> notLanding(Connection c, TableName t) throws SQLException {
        int version;
        try (java.sql.Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW server_version_num")) {
            rs.next();
            version = Integer.parseInt(rs.getString(1));
        }
        String published =
                version >= 180000
                        ? "EXISTS (SELECT 1 FROM pg_publication p WHERE p.pubgencols = 's' AND"
                                + " (p.puballtables OR EXISTS (SELECT 1 FROM pg_publication_rel r"
                                + " WHERE r.prpubid = p.oid AND r.prrelid = a.attrelid)))"
                        : "false";
        java.util.Map<String, String> out = new java.util.LinkedHashMap<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT a.attname, a.attgenerated, "
                                + published
                                + " FROM pg_attribute a WHERE a.attrelid = ?::regclass AND"
                                + " a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated <> ''"
                                + " ORDER BY a.attnum")) {
            ps.setString(1, qualified(t));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String kind = rs.getString(2);
                    if (version < 180000) {
                        out.put(
                                rs.getString(1),
                                "a generated column: PostgreSQL "
                                        + version / 10000
                                        + " publishes none to logical decoding (18 does)");
                    } else if (kind.equals("v")) {
                        out.put(
                                rs.getString(1),
                                "a virtual generated column: logical decoding publishes none");
                    } else if (!rs.getBoolean(3)) {
                        out.put(
                                rs.getString(1),
                                "a generated column the publication leaves out"
                                        + " (publish_generated_columns is none)");
                    }
                }
            }
        }
        return out;
    }

    @Override
    public List<TableColumn> columns(Connection c, TableName t) throws SQLException {
        List<TableColumn> cols = new ArrayList<>();
        // each column's type, a domain's base type, an array's element type (and its base), and
        // their sizes; a domain has its own modifier, an array's element has the column's
        try (PreparedStatement ps =
                c.prepareStatement(
                        "WITH k AS (SELECT i.indkey::int2[] AS cols FROM pg_index i WHERE"
                                + " i.indrelid = ?::regclass AND (i.indisprimary OR"
                                + " i.indisreplident) ORDER BY i.indisprimary DESC LIMIT 1)"
                                + " SELECT a.attname, t.typname, t.typtype, bt.typname, et.typname,"
                                + " et.typtype, ebt.typname, "
                                + sizes(
                                        "information_schema._pg_truetypid(a.*, t.*)",
                                        "information_schema._pg_truetypmod(a.*, t.*)")
                                + ", "
                                + sizes(
                                        "coalesce(ebt.oid, et.oid)",
                                        "CASE WHEN et.typtype = 'd' THEN et.typtypmod ELSE"
                                                + " a.atttypmod END")
                                + ", coalesce(a.attnum = ANY ((SELECT cols FROM k)::int2[]), false)"
                                + " FROM pg_attribute a"
                                + " JOIN pg_type t ON t.oid = a.atttypid LEFT JOIN pg_type bt ON"
                                + " t.typtype = 'd' AND bt.oid = t.typbasetype LEFT JOIN pg_type et"
                                + " ON t.typcategory = 'A' AND et.oid = t.typelem LEFT JOIN pg_type"
                                + " ebt ON et.typtype = 'd' AND ebt.oid = et.typbasetype WHERE"
                                + " a.attrelid = ?::regclass AND a.attnum > 0 AND NOT"
                                + " a.attisdropped ORDER BY a.attnum")) {
            ps.setString(1, qualified(t));
            ps.setString(2, qualified(t));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String name = rs.getString(1);
                    boolean key = rs.getBoolean(14);
                    String elementType = rs.getString(5);
                    if (elementType != null) {
                        String element = rs.getString(7) != null ? rs.getString(7) : elementType;
                        cols.add(
                                new TableColumn(
                                        name,
                                        ColumnKind.ARRAY,
                                        key,
                                        rs.getString(2).toLowerCase(Locale.ROOT),
                                        new TableColumn(
                                                name,
                                                kind(
                                                        element,
                                                        rs.getString(6),
                                                        (Integer) rs.getObject(11),
                                                        (Integer) rs.getObject(12),
                                                        (Integer) rs.getObject(13)),
                                                false,
                                                element.toLowerCase(Locale.ROOT))));
                        continue;
                    }
                    String type = rs.getString(4) != null ? rs.getString(4) : rs.getString(2);
                    cols.add(
                            new TableColumn(
                                    name,
                                    kind(
                                            type,
                                            rs.getString(3),
                                            (Integer) rs.getObject(8),
                                            (Integer) rs.getObject(9),
                                            (Integer) rs.getObject(10)),
                                    key,
                                    type.toLowerCase(Locale.ROOT)));
                }
            }
        }
        return cols;
    }

    /**
     * A table with neither a key nor {@code REPLICA IDENTITY FULL} is not in the publication (it
     * was excluded), or its updates cannot be captured.
     */
    @Override
    public String notCaptured(Connection c, TableName t) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT c.relreplident FROM pg_class c WHERE c.oid = ?::regclass AND NOT"
                                + " EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND"
                                + " (i.indisprimary OR i.indisreplident))")) {
            ps.setString(1, qualified(t));
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next() && !"f".equals(rs.getString(1))) {
                    return "not captured: no primary key and no REPLICA IDENTITY FULL (excluded by"
                            + " capture.keyless.tables=exclude, or created without cdc-lab's"
                            + " event trigger)";
                }
            }
        }
        return null;
    }

    /**
     * How values of a type (a domain's base type) compare: enums and composite types as their text,
     * and a type the warehouses do not know as its text too.
     */
    static ColumnKind kind(
            String type, String typtype, Integer precision, Integer scale, Integer length) {
        if ("e".equals(typtype) || "c".equals(typtype)) {
            return ColumnKind.TEXT;
        }
        ColumnKind kind =
                ColumnKind.ofSourceType(type, precision != null ? precision : length, scale);
        return kind == null || kind == ColumnKind.ARRAY ? ColumnKind.TEXT : kind;
    }

    /**
     * Arrays as {@code text[]}, so that each element is read in PostgreSQL's text; {@code hstore}
     * (also in arrays) as {@code jsonb}, the form the warehouse holds.
     */
    @Override
    public String select(TableColumn column) {
        String q = quote(column.name());
        if (column.kind() == ColumnKind.ARRAY) {
            return "hstore".equals(column.element().sourceType())
                    ? "CAST(CAST(" + q + " AS jsonb[]) AS text[])"
                    : "CAST(" + q + " AS text[])";
        }
        return "hstore".equals(column.sourceType()) ? "CAST(" + q + " AS jsonb)" : q;
    }

    @Override
    public String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }

    @Override
    public String orderBy(TableColumn key) {
        boolean text = key.kind() == ColumnKind.TEXT || key.kind() == ColumnKind.JSON;
        return quote(key.name()) + (text ? " COLLATE \"C\"" : "");
    }
}
