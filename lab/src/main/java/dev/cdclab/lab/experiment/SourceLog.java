package dev.cdclab.lab.experiment;

import dev.cdclab.load.run.LoadRunner;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The source's write-ahead log as a run sees it: the bytes written, and what a replication slot
 * retains. PostgreSQL only; on other sources every figure is -1.
 */
final class SourceLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SourceLog.class);

    private final Connection connection;
    private final String slot;

    private SourceLog(Connection connection, String slot) {
        this.connection = connection;
        this.slot = slot;
    }

    /** Opens a connection for reading the log; {@code slot} may be null (capture off). */
    static SourceLog open(LoadRunner.ConnectionFactory connections, String slot) {
        try {
            Connection c = connections.open();
            try (Statement s = c.createStatement()) {
                s.executeQuery("SELECT pg_current_wal_lsn()").close();
            } catch (SQLException e) {
                c.close();
                return new SourceLog(null, slot);
            }
            c.setAutoCommit(true);
            return new SourceLog(c, slot);
        } catch (SQLException e) {
            LOG.warn("cannot read the source's WAL position: {}", e.getMessage());
            return new SourceLog(null, slot);
        }
    }

    /** The current WAL insert position in bytes, -1 when unknown. */
    synchronized long position() {
        if (connection == null) {
            return -1;
        }
        try (Statement s = connection.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')")) {
            return rs.next() ? rs.getLong(1) : -1;
        } catch (SQLException e) {
            return -1;
        }
    }

    /** Bytes of WAL the slot keeps from being recycled, -1 when unknown or no slot. */
    synchronized long retained() {
        if (connection == null || slot == null) {
            return -1;
        }
        try (PreparedStatement ps =
                connection.prepareStatement(
                        "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)"
                                + " FROM pg_replication_slots WHERE slot_name = ?")) {
            ps.setString(1, slot);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        } catch (SQLException e) {
            return -1;
        }
    }

    @Override
    public synchronized void close() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                // closing: nothing to do
            }
        }
    }
}
