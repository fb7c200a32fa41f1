package dev.cdclab.sink.warehouse;

import dev.cdclab.change.ColumnSpec;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * Everything that differs between warehouses, behind one interface (after kafka-connect-jdbc's
 * dialects): types, DDL, staging and the set-based merge.
 */
public interface WarehouseDialect {

    /** A short name for reports, e.g. {@code duckdb}. */
    String name();

    /** Opens a connection with auto-commit off. */
    Connection connect(String url, String user, String password) throws SQLException;

    /** Work a warehouse runs beside its writer; stopped before the writer's connection closes. */
    interface Upkeep extends AutoCloseable {
        /** Stops the work and releases what it holds. */
        @Override
        void close();
    }

    /** Starts the work this warehouse runs beside the writer on {@code writer}: none by default. */
    default Upkeep startUpkeep(Connection writer) throws SQLException {
        return () -> {};
    }

    /** The warehouse type for a column. */
    String sqlType(ColumnKind kind, ColumnSpec column);

    /** Creates the {@code cdc_lab} schema with its tombstone and progress tables. */
    void createMetadataTables(Connection c) throws SQLException;

    /** Column name to type of an existing table; empty when the table does not exist. */
    Map<String, String> existingColumns(Connection c, TableName table) throws SQLException;

    /**
     * Creates a table for the columns plus the {@code _cdc_lsn} and {@code _cdc_commit_ms} columns.
     */
    void createTable(Connection c, TableName table, List<ColumnSpec> columns) throws SQLException;

    /** Adds a column that appeared at the source, its rows holding its declared default. */
    void addColumn(Connection c, TableName table, ColumnSpec column) throws SQLException;

    /**
     * Drops the trailing spaces of a text column's values written before {@code before}, as
     * PostgreSQL's cast of {@code char(n)} to {@code varchar} or {@code text} did to them: values
     * written since were made under the new type, and keep theirs.
     *
     * @return the rows changed
     */
    default long trimTrailingSpaces(Connection c, TableName table, String column, String before)
            throws SQLException {
        String q = MergeSql.quote(column);
        try (java.sql.PreparedStatement s =
                c.prepareStatement(
                        "UPDATE "
                                + MergeSql.qualified(table)
                                + " SET "
                                + q
                                + " = rtrim("
                                + q
                                + ", ' ') WHERE "
                                + q
                                + " LIKE '% ' AND (_cdc_lsn IS NULL OR _cdc_lsn < ?)")) {
            s.setString(1, before);
            return s.executeUpdate();
        }
    }

    /**
     * Adds a column whose rows there were hold {@code value} (staged text, as {@link ValueText}
     * writes it; null for NULL).
     */
    void addColumn(Connection c, TableName table, ColumnSpec column, String value)
            throws SQLException;

    /**
     * Stages the rows and merges them into the table in the current transaction: deletes remove the
     * row, other rows are upserted, and a row is only touched when its log position is newer than
     * the stored one (or than the key's tombstone). Columns the warehouse table has and the source
     * no longer does ({@code warehouseOnly}) hold NULL in every row written. Returns how many
     * warehouse rows were written.
     *
     * @param newer true when every staged row's position is past {@link #newestPosition} of the
     *     table (as written in this transaction too): no stored row or tombstone can be newer, and
     *     a dialect may skip the comparisons
     */
    long merge(
            Connection c,
            TableName table,
            List<ColumnSpec> columns,
            List<String> warehouseOnly,
            List<StagedRow> rows,
            boolean newer)
            throws SQLException;

    /**
     * Inserts rows into a table that holds none of their keys and no tombstones (an initial load
     * into a table created for it), each row an insert; a dialect may write them in bulk.
     *
     * @return rows written
     */
    default long insertNew(
            Connection c, TableName table, List<ColumnSpec> columns, List<StagedRow> rows)
            throws SQLException {
        return merge(c, table, columns, List.of(), rows, true);
    }

    /** One table's staged changes, as {@link #merge} takes them, for {@link #mergeAll}. */
    record MergeRequest(
            TableName table,
            List<ColumnSpec> columns,
            List<String> warehouseOnly,
            List<StagedRow> rows,
            boolean newer) {}

    /**
     * {@link #merge} of each, in order, in the open transaction; a dialect may stage them together.
     *
     * @return rows written
     */
    default long mergeAll(Connection c, List<MergeRequest> merges) throws SQLException {
        long written = 0;
        for (MergeRequest m : merges) {
            written += merge(c, m.table(), m.columns(), m.warehouseOnly(), m.rows(), m.newer());
        }
        return written;
    }

    /**
     * The newest position the table's rows and tombstones hold; null for none. Changes past it can
     * only be newer than anything stored.
     */
    String newestPosition(Connection c, TableName table) throws SQLException;

    /**
     * True when {@link #merge} is cheaper for changes known to be newer than the table: only then
     * does the writer look up {@link #newestPosition} (a scan).
     */
    default boolean mergesFasterWhenNewer() {
        return false;
    }

    /**
     * Removes the tombstones of deletes the source committed before {@code commitMs}: replays that
     * old no longer come (the sink's retention), and the tombstones would only grow.
     *
     * @return tombstones removed
     */
    long pruneTombstones(Connection c, long commitMs) throws SQLException;

    /**
     * True when a warehouse column of type {@code existing}, as the catalog spells it, is the type
     * {@link #sqlType} spells {@code wanted}.
     */
    boolean sameType(String existing, String wanted);

    /**
     * The source column's type changed: the warehouse column takes the new one. Its values are cast
     * in place when every one casts; otherwise the old column is kept, renamed {@code
     * <name>__was_<old type>}, and a new one added.
     *
     * @return the name the old values are kept under, or null when they were cast in place
     */
    String changeColumnType(Connection c, TableName table, ColumnSpec column, String oldType)
            throws SQLException;

    /**
     * Applies changes of a table without a key, in the order given: an insert adds a row, a delete
     * removes exactly one row equal to the old image, an update replaces exactly one. A delete or
     * update that finds no such row changes nothing (an update inserts its new row), and is
     * counted. Returns how many warehouse rows were written.
     */
    KeylessOutcome applyKeyless(
            Connection c, TableName table, List<ColumnSpec> columns, List<KeylessRow> rows)
            throws SQLException;

    /**
     * What {@link #applyKeyless} did.
     *
     * @param firstUnmatched the index of the first change that found no row equal to its old image;
     *     -1 when every one found its row
     */
    record KeylessOutcome(long rowsWritten, long unmatched, int firstUnmatched) {}

    /**
     * Removes every row written before {@code position} (and rows without a position), and the
     * table's tombstones before it: the table as a {@code TRUNCATE} there leaves it.
     *
     * @return rows removed
     */
    long emptyBefore(Connection c, TableName table, String position) throws SQLException;

    /** The table's state; {@link TableState#NONE} when none was saved. */
    TableState loadTableState(Connection c, TableName table) throws SQLException;

    /** Saves the table's state, in the current transaction. */
    void saveTableState(Connection c, TableName table, TableState state) throws SQLException;

    /**
     * Renames a warehouse table, into another schema too, with its tombstones (those of {@code to}
     * go); a table already named {@code to} must not exist. The names' states are the caller's.
     */
    void renameTable(Connection c, TableName from, TableName to) throws SQLException;

    /** Renames a column of a warehouse table; a column already named {@code to} must not exist. */
    void renameColumn(Connection c, TableName table, String from, String to) throws SQLException;

    /**
     * Brings the connection back to a state where a new transaction can begin, after a commit or a
     * rollback failed (a driver may think a transaction is open that the database has ended).
     */
    default void recover(Connection c) throws SQLException {
        c.rollback();
    }

    /** Forgets a table's state and tombstones (it no longer exists under that name). */
    void forgetTable(Connection c, TableName table) throws SQLException;

    /** Every table with a state saved, for verification and reports. */
    Map<TableName, TableState> tableStates(Connection c) throws SQLException;

    /**
     * The source table's key columns are now those marked in {@code columns} (none: it has no key);
     * a warehouse that enforces keys follows.
     */
    default void keyChanged(Connection c, TableName table, List<ColumnSpec> columns)
            throws SQLException {}

    /** The transaction was rolled back: forget what was created in it. */
    default void rolledBack() {}

    /** The transaction committed, on {@code c}. */
    default void committed(Connection c) {}

    /** Records how far the warehouse is complete, in the current transaction. */
    void saveProgress(Connection c, long appliedThroughMs, long committedAtMs) throws SQLException;

    /**
     * Makes {@code reader} (a connection of its own, not the writer's) run {@code sql} in a
     * transaction that cannot write, or refuses {@code sql} if this warehouse cannot promise that.
     *
     * @throws ReadOnlyQuery.RefusedException when {@code sql} is not one read-only statement
     */
    void beginReadOnly(Connection reader, String sql) throws SQLException;

    /** Picks the dialect for a JDBC URL. */
    static WarehouseDialect forUrl(String url) {
        if (url.startsWith("jdbc:duckdb:")) {
            return new DuckDbDialect();
        }
        if (url.startsWith("jdbc:postgresql:")) {
            return new PostgresWarehouseDialect();
        }
        throw new IllegalArgumentException("no warehouse dialect for " + url);
    }
}
