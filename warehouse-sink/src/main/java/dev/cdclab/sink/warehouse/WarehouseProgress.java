package dev.cdclab.sink.warehouse;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The warehouse's own record of how far it is complete ({@code cdc_lab.progress}), committed with
 * every warehouse transaction, and while the source is quiet about once a second: what a reader in
 * another process waits on.
 */
public final class WarehouseProgress {
    private static final String UNDEFINED_TABLE = "42P01";

    private WarehouseProgress() {}

    /**
     * The source commit time (epoch ms) through which the warehouse holds every change, or {@link
     * Long#MIN_VALUE} before the first commit.
     *
     * @throws SQLException when the warehouse cannot be read
     */
    public static long appliedThroughMs(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT max(applied_through_ms) FROM cdc_lab.progress WHERE id = 1")) {
            if (rs.next()) {
                long v = rs.getLong(1);
                return rs.wasNull() ? Long.MIN_VALUE : v;
            }
            return Long.MIN_VALUE;
        } catch (SQLException e) {
            if (UNDEFINED_TABLE.equals(e.getSQLState())) {
                // no sink has written yet
                return Long.MIN_VALUE;
            }
            throw e;
        }
    }
}
