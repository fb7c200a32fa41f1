package dev.cdclab.orchestration.verify;

import dev.cdclab.config.SourceKind;
import dev.cdclab.sink.warehouse.TableName;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * What verification asks a source's catalog, in that source's SQL: its tables, their columns with
 * the kind values are compared as, how names are quoted, and how keys sort byte by byte.
 */
public interface SourceCatalog {
    /** The catalog of a kind of source. */
    static SourceCatalog of(SourceKind kind) {
        return switch (kind) {
            case POSTGRES -> new PostgresCatalog();
            case SQLSERVER -> new SqlServerCatalog();
        };
    }

    /** Base tables in the schemas, in name order. */
    List<TableName> tables(Connection c, List<String> schemas) throws SQLException;

    /** A table's columns in order, key columns marked. */
    List<TableColumn> columns(Connection c, TableName t) throws SQLException;

    /**
     * The table's columns its source cannot send, by name, each with why (PostgreSQL: generated
     * columns its logical decoding does not publish); empty when every column can land.
     */
    default java.util.Map<String, String> notLanding(Connection c, TableName t)
            throws SQLException {
        return java.util.Map.of();
    }

    /** A quoted identifier. */
    String quote(String identifier);

    /** {@code schema.table}, both quoted. */
    default String qualified(TableName t) {
        return quote(t.schema()) + "." + quote(t.table());
    }

    /**
     * The select-list expression that reads a column in the form {@link CanonicalValue} compares;
     * the quoted name unless a type needs another.
     */
    default String select(TableColumn column) {
        return quote(column.name());
    }

    /** An ORDER BY term for a key column that sorts text by its bytes, as the warehouse does. */
    String orderBy(TableColumn key);

    /**
     * Why the table is not captured, so there is nothing to compare (SQL Server: CDC is not on for
     * it); null when it is captured.
     */
    default String notCaptured(Connection c, TableName t) throws SQLException {
        return null;
    }
}
