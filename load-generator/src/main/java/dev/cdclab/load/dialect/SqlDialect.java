package dev.cdclab.load.dialect;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/** What differs between source databases for the load generator: types, DDL, bulk load. */
public interface SqlDialect {

    /** A short name, e.g. {@code postgresql}. */
    String name();

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
