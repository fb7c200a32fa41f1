package dev.cdclab.change;

/**
 * Headers of the record the capture stage writes when a snapshot finds a table empty (it sends no
 * row for it): the table and the snapshot's log position, which the net-change app turns into a
 * table event that removes the rows the warehouse holds from before the snapshot.
 */
public final class EmptyTableHeaders {
    /**
     * The table, as Debezium names it ({@code schema.table}; SQL Server: {@code db.schema.table}).
     */
    public static final String TABLE = "cdclab.empty-table";

    /** A PostgreSQL snapshot's LSN, as a decimal number. */
    public static final String LSN = "cdclab.lsn";

    /** A SQL Server snapshot's commit LSN. */
    public static final String COMMIT_LSN = "cdclab.commit_lsn";

    private EmptyTableHeaders() {}
}
