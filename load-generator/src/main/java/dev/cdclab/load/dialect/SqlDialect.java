package dev.cdclab.load.dialect;

import dev.cdclab.config.SourceKind;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/** What differs between source databases for the load generator: types, DDL, bulk load. */
public interface SqlDialect {

    /** The dialect of a kind of source. */
    static SqlDialect of(SourceKind kind) {
        return switch (kind) {
            case POSTGRES -> new PostgresDialect();
            case SQLSERVER -> new SqlServerDialect();
        };
    }

    /** A short name, e.g. {@code postgresql}. */
    String name();

    /**
     * True for an error after which the transaction is worth running again, as a client would: a
     * deadlock victim, a serialization failure, a lock timeout. The transaction was rolled back.
     */
    boolean isRetryable(SQLException e);

    /**
     * Rows of {@code columns} values one multi-row {@code INSERT} may carry (SQL Server takes at
     * most 2,100 parameters and 1,000 rows per statement).
     */
    default int maxRowsPerInsert(int columns) {
        return 1000;
    }

    /** Type of 64-bit integer keys and counters. */
    String bigint();

    /** Type of 32-bit integers. */
    String integer();

    /** Variable-length text of at most {@code n} characters. */
    String varchar(int n);

    /** Unbounded text. */
    String text();

    /** Exact decimal. */
    String decimal(int precision, int scale);

    /** Timestamp with time zone. */
    String timestamptz();

    /** Double-precision float. */
    String float8();

    /** Quotes an identifier. */
    String quote(String identifier);

    /** Drops a table if it exists (with its triggers). */
    String dropTable(String table);

    /**
     * DDL that makes every insert into {@code table} update {@code column} of the same row to
     * {@code value} when the insert left it null, inside the inserting transaction.
     */
    List<String> updateOnInsertTrigger(String table, String keyColumn, String column, String value);

    /**
     * Loads rows as fast as the database allows (COPY for PostgreSQL).
     *
     * @param rows values per row, in {@code columns} order; null for SQL NULL
     * @return rows loaded
     */
    long bulkLoad(Connection c, String table, List<String> columns, Iterable<Object[]> rows)
            throws SQLException;
}
