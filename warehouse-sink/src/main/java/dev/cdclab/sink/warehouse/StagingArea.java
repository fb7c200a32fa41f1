package dev.cdclab.sink.warehouse;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Where sinks that share a net-change topic's partitions leave the changes they released, for the
 * one sink that commits them: each sink stages its partitions' closed intervals ({@code
 * cdc_lab.staged_changes}) and says through which interval end each partition is staged ({@code
 * cdc_lab.staged_through}); the committer, the holder of a session advisory lock, takes every
 * staged change up to the lowest of those ends and applies them in one warehouse transaction. A
 * source transaction split over several sinks' partitions becomes visible whole. PostgreSQL only.
 */
public final class StagingArea {
    /** Advisory lock class of the committer lock (its object is the topic's hash). */
    private static final int COMMITTER_LOCK_CLASS = 0x63646c63;

    private final Connection c;
    private final String topic;
    private boolean committer;
    private long nextTry = System.nanoTime();

    /**
     * On the writer's connection, so that taking staged changes and applying them is one commit.
     */
    StagingArea(Connection c, String topic) {
        this.c = c;
        this.topic = topic;
    }

    /** Creates the staging tables if missing; in the caller's transaction. */
    static void createTables(Statement s) throws SQLException {
        s.execute(
                "CREATE TABLE IF NOT EXISTS cdc_lab.staged_changes (topic TEXT, part INTEGER,"
                        + " off BIGINT, interval_end BIGINT, record BYTEA, PRIMARY KEY (topic,"
                        + " part, off))");
        s.execute(
                "CREATE TABLE IF NOT EXISTS cdc_lab.staged_through (topic TEXT, part INTEGER,"
                        + " through_ms BIGINT, source_ms BIGINT, PRIMARY KEY (topic, part))");
    }

    /** A released change and where it was read. */
    public record Entry(int partition, long offset, long intervalEndMs, byte[] record) {}

    /** The bound every partition is staged through, and the source time it stands for. */
    public record Bound(long throughMs, long sourceMs) {}

    /**
     * True when this connection holds the committer lock of the topic, taking it if it is free. The
     * lock is the session's: it goes with the connection, so a killed committer's successor takes
     * it at its next try (at most one a second).
     */
    public boolean committer() throws SQLException {
        if (!committer && System.nanoTime() - nextTry >= 0) {
            nextTry = System.nanoTime() + 1_000_000_000L;
            try (PreparedStatement ps =
                    c.prepareStatement("SELECT pg_try_advisory_lock(?, hashtext(?))")) {
                ps.setInt(1, COMMITTER_LOCK_CLASS);
                ps.setString(2, topic);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    committer = rs.getBoolean(1);
                }
            }
            c.commit();
        }
        return committer;
    }

    /**
     * Stages {@code entries} (a change read again after a rebalance is staged once) and records the
     * partitions' staged bounds, and commits.
     *
     * @throws SQLException after rolling back
     */
    public void stage(List<Entry> entries, Map<Integer, Long> through, long sourceMs)
            throws SQLException {
        try {
            insert(entries, through, sourceMs);
            c.commit();
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
            } catch (SQLException re) {
                e.addSuppressed(re);
            }
            throw e;
        }
    }

    private void insert(List<Entry> entries, Map<Integer, Long> through, long sourceMs)
            throws SQLException {
        if (!entries.isEmpty()) {
            try (PreparedStatement ps =
                    c.prepareStatement(
                            "INSERT INTO cdc_lab.staged_changes VALUES (?, ?, ?, ?, ?) ON CONFLICT"
                                    + " DO NOTHING")) {
                for (Entry e : entries) {
                    ps.setString(1, topic);
                    ps.setInt(2, e.partition());
                    ps.setLong(3, e.offset());
                    ps.setLong(4, e.intervalEndMs());
                    ps.setBytes(5, e.record());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        }
        if (!through.isEmpty()) {
            try (PreparedStatement ps =
                    c.prepareStatement(
                            "INSERT INTO cdc_lab.staged_through VALUES (?, ?, ?, ?) ON CONFLICT"
                                    + " (topic, part) DO UPDATE SET through_ms ="
                                    + " GREATEST(cdc_lab.staged_through.through_ms,"
                                    + " EXCLUDED.through_ms), source_ms ="
                                    + " GREATEST(cdc_lab.staged_through.source_ms,"
                                    + " EXCLUDED.source_ms)")) {
                for (var e : through.entrySet()) {
                    ps.setString(1, topic);
                    ps.setInt(2, e.getKey());
                    ps.setLong(3, e.getValue());
                    ps.setLong(4, sourceMs);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        }
    }

    /**
     * The interval end through which all {@code partitions} partitions are staged, or null while
     * some partition has not been staged yet.
     */
    public Bound bound(int partitions) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT count(*), min(through_ms), min(source_ms) FROM"
                                + " cdc_lab.staged_through WHERE topic = ? AND part < ?")) {
            ps.setString(1, topic);
            ps.setInt(2, partitions);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                Bound b =
                        rs.getInt(1) < partitions ? null : new Bound(rs.getLong(2), rs.getLong(3));
                c.commit();
                return b;
            }
        }
    }

    /**
     * Removes and returns, in the open transaction, every change staged through {@code throughMs},
     * in partition and offset order: if the transaction rolls back they stay staged. When there is
     * none, the transaction ends here, having written nothing.
     */
    public List<Entry> take(long throughMs) throws SQLException {
        List<Entry> out = new ArrayList<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "DELETE FROM cdc_lab.staged_changes WHERE topic = ? AND interval_end <= ?"
                                + " RETURNING part, off, interval_end, record")) {
            ps.setString(1, topic);
            ps.setLong(2, throughMs);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Entry(rs.getInt(1), rs.getLong(2), rs.getLong(3), rs.getBytes(4)));
                }
            }
        }
        if (out.isEmpty()) {
            c.commit();
        }
        out.sort(Comparator.comparingInt(Entry::partition).thenComparingLong(Entry::offset));
        return out;
    }

    /** True when no change of the topic is staged. */
    public boolean empty() throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT NOT EXISTS (SELECT 1 FROM cdc_lab.staged_changes WHERE topic = ?)")) {
            ps.setString(1, topic);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                boolean empty = rs.getBoolean(1);
                c.commit();
                return empty;
            }
        }
    }
}
