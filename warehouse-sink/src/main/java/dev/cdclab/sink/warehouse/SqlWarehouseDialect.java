package dev.cdclab.sink.warehouse;

import static dev.cdclab.sink.warehouse.MergeSql.qualified;
import static dev.cdclab.sink.warehouse.MergeSql.quote;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cdclab.change.ColumnSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** What the SQL warehouses share: catalog lookups and DDL through information_schema. */
abstract class SqlWarehouseDialect implements WarehouseDialect {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Override
    public Map<String, String> existingColumns(Connection c, TableName t) throws SQLException {
        Map<String, String> cols = new LinkedHashMap<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT column_name, data_type FROM information_schema.columns WHERE"
                                + " table_schema = ? AND table_name = ? ORDER BY ordinal_position")) {
            ps.setString(1, t.schema());
            ps.setString(2, t.table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    cols.put(rs.getString(1), rs.getString(2));
                }
            }
        }
        return cols;
    }

    /**
     * Type of the {@code _cdc_lsn} column: text that compares byte by byte, as {@link
     * dev.cdclab.change.SourcePosition}'s sortable forms need.
     */
    protected abstract String positionType();

    /** Table constraints after the columns, e.g. {@code , PRIMARY KEY (id)}; empty for none. */
    protected abstract String constraints(List<ColumnSpec> columns);

    /** A staged text expression cast to the column's warehouse type. */
    protected abstract String cast(String expr, ColumnKind kind, ColumnSpec column);

    @Override
    public void createTable(Connection c, TableName t, List<ColumnSpec> columns)
            throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS " + quote(t.schema()));
            s.execute(
                    "CREATE TABLE IF NOT EXISTS "
                            + qualified(t)
                            + " ("
                            + MergeSql.columnDefinitions(columns, this::sqlType, positionType())
                            + constraints(columns)
                            + ")");
        }
    }

    @Override
    public void addColumn(Connection c, TableName t, ColumnSpec col) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(
                    "ALTER TABLE "
                            + qualified(t)
                            + " ADD COLUMN IF NOT EXISTS "
                            + quote(col.name())
                            + " "
                            + sqlType(ColumnKind.of(col), col)
                            + defaultClause(col));
        }
    }

    /**
     * {@code DEFAULT <value>} for a column the source declares with one: the rows that were there
     * before the column was added hold it, in the source and so in the warehouse.
     */
    String defaultClause(ColumnSpec col) {
        if (col.defaultJson() == null) {
            return "";
        }
        ColumnKind kind = ColumnKind.of(col);
        if (kind == ColumnKind.ARRAY) {
            // an array's cast is a subquery (PostgreSQL) or a lambda, which a DEFAULT cannot hold
            return "";
        }
        String text;
        try {
            text = ValueText.of(col, kind, MAPPER.readTree(col.defaultJson()));
        } catch (IOException e) {
            throw new UncheckedIOException("default of column " + col.name(), e);
        }
        return text == null ? "" : " DEFAULT " + cast(MergeSql.literal(text), kind, col);
    }

    /** Identity of a table's staging layout: names, key flags and kinds of its columns. */
    protected static String signature(TableName t, List<ColumnSpec> columns) {
        return t
                + "|"
                + columns.stream()
                        .map(col -> col.name() + (col.key() ? "*" : "") + ":" + ColumnKind.of(col))
                        .collect(Collectors.joining(","));
    }
}
