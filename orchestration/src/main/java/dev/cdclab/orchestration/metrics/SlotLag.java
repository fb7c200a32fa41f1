package dev.cdclab.orchestration.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How far the replication slot's reader (Debezium) is behind the source's WAL, read from the source
 * itself when scraped (at most once a second): bytes between the current WAL position and the
 * position it confirmed, and the walsender's write lag in seconds.
 */
final class SlotLag implements MeterBinder, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SlotLag.class);
    private static final String SQL =
            "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), s.confirmed_flush_lsn)::float8,"
                    + " EXTRACT(EPOCH FROM r.write_lag)::float8, s.active"
                    + " FROM pg_replication_slots s"
                    + " LEFT JOIN pg_stat_replication r ON r.pid = s.active_pid"
                    + " WHERE s.slot_name = ?";

    /** Opens a connection to the source. */
    interface Source {
        Connection connect() throws SQLException;
    }

    private final Source source;
    private final String slot;
    private Connection connection;
    private long readAtMs;
    private double bytes = Double.NaN;
    private double seconds = Double.NaN;

    SlotLag(Source source, String slot) {
        this.source = source;
        this.slot = slot;
    }

    @Override
    public void bindTo(MeterRegistry r) {
        Gauge.builder("cdclab.capture.slot.lag.bytes", this, l -> l.read()[0])
                .description("Source WAL not yet confirmed by the replication slot's reader")
                .tag("slot", slot)
                .register(r);
        Gauge.builder("cdclab.capture.slot.lag.seconds", this, l -> l.read()[1])
                .description("Replication write lag of the slot's reader (0 when idle)")
                .tag("slot", slot)
                .register(r);
    }

    private synchronized double[] read() {
        long now = System.currentTimeMillis();
        if (now - readAtMs >= 1000) {
            readAtMs = now;
            try {
                if (connection == null || connection.isClosed()) {
                    connection = source.connect();
                }
                try (PreparedStatement ps = connection.prepareStatement(SQL)) {
                    ps.setString(1, slot);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) {
                            bytes = rs.getDouble(1);
                            double lag = rs.getDouble(2);
                            // no lag reported while the reader is connected: it is caught up
                            seconds = rs.wasNull() ? (rs.getBoolean(3) ? 0 : Double.NaN) : lag;
                        } else {
                            bytes = Double.NaN;
                            seconds = Double.NaN;
                        }
                    }
                }
            } catch (SQLException e) {
                LOG.debug("Reading the slot's lag failed: {}", e.getMessage());
                bytes = Double.NaN;
                seconds = Double.NaN;
                close();
            }
        }
        return new double[] {bytes, seconds};
    }

    @Override
    public synchronized void close() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                // the source may be gone already
            }
            connection = null;
        }
    }
}
