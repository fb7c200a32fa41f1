package dev.cdclab.capture;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.postgresql.PGProperty;
import org.postgresql.replication.LogSequenceNumber;

/**
 * A logical replication slot created with its snapshot exported ({@code CREATE_REPLICATION_SLOT ...
 * EXPORT_SNAPSHOT}): transactions that import the snapshot ({@code SET TRANSACTION SNAPSHOT}) see
 * the database exactly as of the slot's consistent point, where the slot's stream begins. The
 * snapshot can be imported while this is open; close it once every reader has.
 *
 * @param slot the slot's name
 * @param snapshot the exported snapshot's name
 * @param consistentPoint the LSN the slot streams from
 */
public record ExportedSlot(
        Connection replication, String slot, String snapshot, long consistentPoint)
        implements AutoCloseable {

    /**
     * Creates {@code slot} for pgoutput over a replication connection of its own.
     *
     * @throws SQLException when the slot cannot be created (it exists, or the user may not)
     */
    static ExportedSlot create(String jdbcUrl, Properties props, String slot) throws SQLException {
        Properties p = new Properties();
        p.putAll(props);
        PGProperty.REPLICATION.set(p, "database");
        PGProperty.PREFER_QUERY_MODE.set(p, "simple");
        PGProperty.ASSUME_MIN_SERVER_VERSION.set(p, "10");
        Connection c = DriverManager.getConnection(jdbcUrl, p);
        try (Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "CREATE_REPLICATION_SLOT \""
                                        + slot.replace("\"", "\"\"")
                                        + "\" LOGICAL pgoutput EXPORT_SNAPSHOT")) {
            rs.next();
            return new ExportedSlot(
                    c,
                    rs.getString(1),
                    rs.getString(3),
                    LogSequenceNumber.valueOf(rs.getString(2)).asLong());
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** Ends the export: the snapshot can no longer be imported; the slot stays. */
    @Override
    public void close() throws SQLException {
        replication.close();
    }
}
