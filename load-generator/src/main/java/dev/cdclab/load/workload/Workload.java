package dev.cdclab.load.workload;

import dev.cdclab.load.dialect.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * A transaction mix against a fixed set of tables. {@link #plan} is a pure function of the seed and
 * the transaction number, so the same seed yields the same statements whatever the thread count.
 */
public interface Workload {
    /** Row changes per second the large-transaction workloads' default rates aim at. */
    double DEFAULT_ROWS_PER_SECOND = 4_000;

    /** Name as the papers use it, e.g. {@code W3}. */
    String name();

    /** One line on what it does. */
    String description();

    /** The source database's SQL it speaks. */
    SqlDialect dialect();

    /** Tables it writes, unqualified (in the connection's default schema). */
    List<String> tables();

    /** Drops and creates its tables (and triggers). */
    void createSchema(Connection c) throws SQLException;

    /** Rows loaded by {@link #prefill}. */
    long prefillRows();

    /**
     * Loads the starting rows with the database's fastest path.
     *
     * @param progress receives the number of rows loaded so far
     * @return rows loaded
     */
    long prefill(Connection c, LongConsumer progress) throws SQLException;

    /** The statements of transaction number {@code i} (0-based). */
    TxPlan plan(long i);

    /**
     * Transactions per second {@code run} drives when no rate is given: one that a two-core machine
     * sustains with the default pipeline (1,000 for the small-transaction workloads, about {@link
     * #DEFAULT_ROWS_PER_SECOND} row changes per second for the large ones).
     */
    default double defaultRate() {
        return 1000;
    }
}
