package dev.cdclab.pipeline.verify;

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

    @Override
    public List<TableColumn> columns(Connection c, TableName t) throws SQLException {
        List<TableColumn> cols = new ArrayList<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "WITH k AS (SELECT i.indkey::int2[] AS cols FROM pg_index i WHERE"
                                + " i.indrelid = ?::regclass AND (i.indisprimary OR"
                                + " i.indisreplident) ORDER BY i.indisprimary DESC LIMIT 1) SELECT"
                                + " a.attname, t.typname, information_schema._pg_numeric_precision("
                                + "a.atttypid, a.atttypmod), information_schema._pg_numeric_scale("
                                + "a.atttypid, a.atttypmod), coalesce(a.attnum = ANY ((SELECT cols"
                                + " FROM k)::int2[]), false) FROM pg_attribute a JOIN pg_type t ON t.oid ="
                                + " a.atttypid WHERE a.attrelid = ?::regclass AND a.attnum > 0"
                                + " AND NOT a.attisdropped ORDER BY a.attnum")) {
            ps.setString(1, qualified(t));
            ps.setString(2, qualified(t));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Integer precision = (Integer) rs.getObject(3);
                    Integer scale = (Integer) rs.getObject(4);
                    ColumnKind kind = ColumnKind.ofSourceType(rs.getString(2), precision, scale);
                    cols.add(
                            new TableColumn(
                                    rs.getString(1),
                                    kind == null ? ColumnKind.TEXT : kind,
                                    rs.getBoolean(5),
                                    rs.getString(2).toLowerCase(Locale.ROOT)));
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
