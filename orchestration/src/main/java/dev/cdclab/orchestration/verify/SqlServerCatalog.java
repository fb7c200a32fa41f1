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
import java.util.stream.Collectors;

/** SQL Server's catalog: {@code sys.tables}, {@code sys.columns}, {@code sys.index_columns}. */
final class SqlServerCatalog implements SourceCatalog {
    @Override
    public List<TableName> tables(Connection c, List<String> schemas) throws SQLException {
        String in = schemas.stream().map(s -> "?").collect(Collectors.joining(", "));
        List<TableName> out = new ArrayList<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT s.name, t.name FROM sys.tables t JOIN sys.schemas s ON s.schema_id"
                                + " = t.schema_id WHERE t.is_ms_shipped = 0 AND s.name IN ("
                                + in
                                + ") ORDER BY s.name, t.name")) {
            for (int i = 0; i < schemas.size(); i++) {
                ps.setString(i + 1, schemas.get(i));
            }
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
                        "SELECT col.name, ty.name, col.precision, col.scale, CASE WHEN EXISTS"
                                + " (SELECT 1 FROM sys.indexes i JOIN sys.index_columns ic ON"
                                + " ic.object_id = i.object_id AND ic.index_id = i.index_id WHERE"
                                + " i.object_id = col.object_id AND i.is_primary_key = 1 AND"
                                + " ic.column_id = col.column_id) THEN 1 ELSE 0 END FROM"
                                + " sys.columns col JOIN sys.types ty ON ty.user_type_id ="
                                + " col.user_type_id WHERE col.object_id = OBJECT_ID(?) ORDER BY"
                                + " col.column_id")) {
            ps.setString(1, qualified(t));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    cols.add(
                            new TableColumn(
                                    rs.getString(1),
                                    kind(rs.getString(2), rs.getInt(3), rs.getInt(4)),
                                    rs.getInt(5) == 1));
                }
            }
        }
        return cols;
    }

    /** How a SQL Server type's values compare. */
    static ColumnKind kind(String type, int precision, int scale) {
        return switch (type.toLowerCase(Locale.ROOT)) {
            case "tinyint", "smallint" -> ColumnKind.INT16;
            case "int" -> ColumnKind.INT32;
            case "bigint" -> ColumnKind.INT64;
            case "real" -> ColumnKind.FLOAT32;
            case "float" -> ColumnKind.FLOAT64;
            case "decimal", "numeric" ->
                    precision > 0 && precision <= ColumnKind.MAX_DECIMAL_PRECISION
                            ? ColumnKind.DECIMAL
                            : ColumnKind.NUMERIC_TEXT;
            case "money", "smallmoney" -> ColumnKind.NUMERIC_TEXT;
            case "bit" -> ColumnKind.BOOLEAN;
            case "date" -> ColumnKind.DATE;
            case "datetime", "datetime2", "smalldatetime" -> ColumnKind.TIMESTAMP;
            case "datetimeoffset" -> ColumnKind.TIMESTAMPTZ;
            case "time" -> ColumnKind.TIME;
            case "binary", "varbinary", "image", "timestamp", "rowversion" -> ColumnKind.BYTES;
            case "uniqueidentifier" -> ColumnKind.UUID;
            default -> ColumnKind.TEXT;
        };
    }

    @Override
    public String quote(String identifier) {
        return "[" + identifier.replace("]", "]]") + "]";
    }

    @Override
    public String orderBy(TableColumn key) {
        boolean text = key.kind() == ColumnKind.TEXT || key.kind() == ColumnKind.JSON;
        return quote(key.name()) + (text ? " COLLATE Latin1_General_100_BIN2" : "");
    }

    @Override
    public String notCaptured(Connection c, TableName t) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT is_tracked_by_cdc FROM sys.tables WHERE object_id = OBJECT_ID(?)")) {
            ps.setString(1, qualified(t));
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1)
                        ? null
                        : "CDC is not enabled on it (sys.sp_cdc_enable_table)";
            }
        }
    }
}
