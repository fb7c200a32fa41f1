package dev.cdclab.capture;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The source PostgreSQL database as capture sees it: checks it can be captured, creates the
 * heartbeat table, reads the settings every report prints, and tells when streaming has begun.
 */
public final class SourceDatabase {
    /** Settings that decide durability and log throughput; printed with every result. */
    public static final String[] REPORTED_SETTINGS = {
        "server_version",
        "wal_level",
        "fsync",
        "synchronous_commit",
        "full_page_writes",
        "wal_sync_method",
        "wal_compression",
        "wal_buffers",
        "max_wal_size",
        "checkpoint_timeout",
        "shared_buffers"
    };

    private final String jdbcUrl;
    private final Properties props;

    public SourceDatabase(String jdbcUrl, String user, String password) {
        this.jdbcUrl = jdbcUrl;
        this.props = new Properties();
        props.setProperty("user", user);
        if (password != null) {
            props.setProperty("password", password);
        }
        props.setProperty("connectTimeout", "10");
    }

    public static SourceDatabase of(CaptureConfig c) {
        return new SourceDatabase(c.jdbcUrl(), c.get(CaptureConfig.USER), c.password());
    }

    /**
     * Opens a connection.
     *
     * @throws IllegalStateException with one line naming the URL when it cannot connect
     */
    public Connection connect() {
        try {
            return DriverManager.getConnection(jdbcUrl, props);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot connect to source " + jdbcUrl + ": " + e.getMessage(), e);
        }
    }

    /**
     * Checks logical decoding is on and creates the heartbeat table with one row per partition of
     * the changes topic.
     *
     * @throws IllegalStateException naming what is missing
     */
    public void prepare(String topicPrefix, int partitions) {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            String wal = setting(s, "wal_level");
            if (!"logical".equals(wal)) {
                throw new IllegalStateException(
                        "source wal_level is '"
                                + wal
                                + "'; logical decoding needs wal_level=logical");
            }
            s.execute("CREATE SCHEMA IF NOT EXISTS " + CaptureConfig.LAB_SCHEMA);
            s.execute(
                    "CREATE TABLE IF NOT EXISTS "
                            + DebeziumConnectorConfig.HEARTBEAT_TABLE
                            + " (id INT PRIMARY KEY, ts TIMESTAMPTZ NOT NULL)");
            s.execute("DELETE FROM " + DebeziumConnectorConfig.HEARTBEAT_TABLE);
            for (int id : HeartbeatRows.idsFor(topicPrefix, partitions)) {
                s.execute(
                        "INSERT INTO "
                                + DebeziumConnectorConfig.HEARTBEAT_TABLE
                                + " (id, ts) VALUES ("
                                + id
                                + ", now())");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot prepare source: " + e.getMessage(), e);
        }
    }

    /** Prepares for a connector configured by {@code c}. */
    public void prepare(CaptureConfig c) {
        prepare(c.get(CaptureConfig.TOPIC_PREFIX), c.get(CaptureConfig.PARTITIONS));
    }

    /** Current values of {@link #REPORTED_SETTINGS}. */
    public Map<String, String> settings() {
        Map<String, String> out = new LinkedHashMap<>();
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            for (String name : REPORTED_SETTINGS) {
                out.put(name, setting(s, name));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read source settings: " + e.getMessage(), e);
        }
        return out;
    }

    private static String setting(Statement s, String name) throws SQLException {
        try (ResultSet rs = s.executeQuery("SHOW " + name)) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** The source's clock, epoch milliseconds (commit times are taken from it). */
    public long nowMs() {
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read source clock: " + e.getMessage(), e);
        }
    }

    /**
     * Waits until Debezium streams: its heartbeat action query only runs after the snapshot.
     *
     * @throws IllegalStateException on timeout
     */
    public void awaitStreaming(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String sql = "SELECT max(ts) FROM " + DebeziumConnectorConfig.HEARTBEAT_TABLE;
        try (Connection c = connect();
                PreparedStatement ps = c.prepareStatement(sql)) {
            Object initial;
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                initial = rs.getObject(1);
            }
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    Object now = rs.getObject(1);
                    if (now != null && !now.equals(initial)) {
                        return;
                    }
                }
                Thread.sleep(100);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read heartbeat table: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        throw new IllegalStateException(
                "capture did not start streaming within " + timeout.toSeconds() + "s");
    }

    /** Drops the replication slot (after the connector is gone), so WAL is not retained. */
    public void dropSlot(String slot) {
        dropSlot(slot, Duration.ZERO);
    }

    /**
     * Drops the replication slot once no walsender holds it, waiting up to {@code wait} for the
     * connector's task to let go; no error when it does not exist.
     *
     * @throws IllegalStateException when it is still active after {@code wait}
     */
    public void dropSlot(String slot, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        try (Connection c = connect();
                PreparedStatement active =
                        c.prepareStatement(
                                "SELECT active FROM pg_replication_slots WHERE slot_name = ?");
                PreparedStatement drop = c.prepareStatement("SELECT pg_drop_replication_slot(?)")) {
            active.setString(1, slot);
            while (true) {
                try (ResultSet rs = active.executeQuery()) {
                    if (!rs.next()) {
                        return;
                    }
                    if (!rs.getBoolean(1)) {
                        break;
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "replication slot " + slot + " is still in use; not dropped");
                }
                Thread.sleep(100);
            }
            drop.setString(1, slot);
            drop.execute();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot drop slot " + slot + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while dropping slot " + slot, e);
        }
    }

    /** Drops a publication if it exists. */
    public void dropPublication(String publication) {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("DROP PUBLICATION IF EXISTS \"" + publication.replace("\"", "\"\"") + "\"");
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot drop publication " + publication + ": " + e.getMessage(), e);
        }
    }
}
