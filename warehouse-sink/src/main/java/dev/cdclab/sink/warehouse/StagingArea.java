package dev.cdclab.sink.warehouse;

import dev.cdclab.change.IntervalRecord;
import dev.cdclab.change.NetChangeCodec;
import dev.cdclab.change.WindowSettings;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Where sinks that share a net-change topic's partitions leave the changes they released, for the
 * one sink that commits them: each sink stages its partitions' closed intervals ({@code
 * cdc_lab.staged_changes}) and says through which interval end each partition is staged ({@code
 * cdc_lab.staged_through}); the committer, the holder of a session advisory lock, takes every
 * staged change up to the lowest of those ends and applies them in one warehouse transaction. A
 * source transaction split over several sinks' partitions becomes visible whole. PostgreSQL only.
 *
 * <p>Each row and bound is staged with the window settings its interval ends are in ({@code
 * windows}): a net-change app restarted with another interval changes the unit of the bounds, and
 * the committer only compares ends and bounds of one unit. A sink holding more than its buffer of
 * one interval stages it ahead of its bound ({@code ahead}), so that no sink holds a large
 * transaction in memory; the committer takes it once the bound reaches it.
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
                        + " off BIGINT, interval_end BIGINT, record BYTEA, windows TEXT, ahead"
                        + " BOOLEAN NOT NULL DEFAULT false, pos TEXT, PRIMARY KEY (topic, part,"
                        + " off))");
        s.execute(
                "CREATE TABLE IF NOT EXISTS cdc_lab.staged_through (topic TEXT, part INTEGER,"
                        + " through_ms BIGINT, source_ms BIGINT, windows TEXT, PRIMARY KEY (topic,"
                        + " part))");
        // staging tables made before window settings were kept; altered only then (ALTER waits
        // for every sink staging beside this one)
        if (!hasColumn(s, "staged_through", "windows")) {
            s.execute("ALTER TABLE cdc_lab.staged_through ADD COLUMN IF NOT EXISTS windows TEXT");
            s.execute(
                    "ALTER TABLE cdc_lab.staged_changes ADD COLUMN IF NOT EXISTS windows TEXT, ADD"
                            + " COLUMN IF NOT EXISTS ahead BOOLEAN NOT NULL DEFAULT false");
        }
        // staging tables made before positions were kept: their rows apply in partition order
        if (!hasColumn(s, "staged_changes", "pos")) {
            s.execute("ALTER TABLE cdc_lab.staged_changes ADD COLUMN IF NOT EXISTS pos TEXT");
        }
        // the committer looks for changes staged under other settings every round
        if (!hasIndex(s, "staged_changes_windows")) {
            s.execute("UPDATE cdc_lab.staged_changes SET windows = '' WHERE windows IS NULL");
            s.execute(
                    "CREATE INDEX IF NOT EXISTS staged_changes_windows ON cdc_lab.staged_changes"
                            + " (topic, windows)");
        }
    }

    private static boolean hasIndex(Statement s, String index) throws SQLException {
        try (ResultSet rs =
                s.executeQuery(
                        "SELECT 1 FROM pg_indexes WHERE schemaname = 'cdc_lab' AND indexname = '"
                                + index
                                + "'")) {
            return rs.next();
        }
    }

    private static boolean hasColumn(Statement s, String table, String column) throws SQLException {
        try (ResultSet rs =
                s.executeQuery(
                        "SELECT 1 FROM information_schema.columns WHERE table_schema = 'cdc_lab'"
                                + " AND table_name = '"
                                + table
                                + "' AND column_name = '"
                                + column
                                + "'")) {
            return rs.next();
        }
    }

    /** A released change and where it was read. */
    public record Entry(
            int partition, long offset, long intervalEndMs, String position, byte[] record) {
        /** An entry whose source position is not known: it sorts first in its interval. */
        public Entry(int partition, long offset, long intervalEndMs, byte[] record) {
            this(partition, offset, intervalEndMs, null, record);
        }
    }

    /**
     * The bound every partition is staged through, the source time it stands for, and the window
     * settings it is said in.
     */
    public record Bound(long throughMs, long sourceMs, String windows) {}

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
     * partitions' staged bounds, all said under {@code windows}, and commits.
     *
     * @param ahead true for changes of an interval not yet closed everywhere, staged before the
     *     bound reaches it (the sink held too much of it); {@code through} is then empty
     * @throws SQLException after rolling back
     */
    public void stage(
            List<Entry> entries,
            Map<Integer, Long> through,
            long sourceMs,
            String windows,
            boolean ahead)
            throws SQLException {
        try {
            insert(entries, through, sourceMs, windows, ahead);
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

    private void insert(
            List<Entry> entries,
            Map<Integer, Long> through,
            long sourceMs,
            String windows,
            boolean ahead)
            throws SQLException {
        if (!entries.isEmpty()) {
            try (PreparedStatement ps =
                    c.prepareStatement(
                            "INSERT INTO cdc_lab.staged_changes (topic, part, off, interval_end,"
                                    + " record, windows, ahead, pos) VALUES (?, ?, ?, ?, ?, ?, ?,"
                                    + " ?) ON CONFLICT DO NOTHING")) {
                for (Entry e : entries) {
                    ps.setString(1, topic);
                    ps.setInt(2, e.partition());
                    ps.setLong(3, e.offset());
                    ps.setLong(4, e.intervalEndMs());
                    ps.setBytes(5, e.record());
                    // never NULL, so that the committer's look for other settings is two ranges
                    ps.setString(6, windows == null ? "" : windows);
                    ps.setBoolean(7, ahead);
                    ps.setString(8, e.position());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        }
        if (!through.isEmpty()) {
            // a bound said under other settings is in another unit: it is replaced, not raised
            try (PreparedStatement ps =
                    c.prepareStatement(
                            "INSERT INTO cdc_lab.staged_through VALUES (?, ?, ?, ?, ?) ON CONFLICT"
                                    + " (topic, part) DO UPDATE SET through_ms = CASE WHEN"
                                    + " cdc_lab.staged_through.windows IS NOT DISTINCT FROM"
                                    + " EXCLUDED.windows THEN GREATEST(cdc_lab.staged_through"
                                    + ".through_ms, EXCLUDED.through_ms) ELSE EXCLUDED.through_ms"
                                    + " END, source_ms = GREATEST(cdc_lab.staged_through.source_ms,"
                                    + " EXCLUDED.source_ms), windows = EXCLUDED.windows")) {
                for (var e : through.entrySet()) {
                    ps.setString(1, topic);
                    ps.setInt(2, e.getKey());
                    ps.setLong(3, e.getValue());
                    ps.setLong(4, sourceMs);
                    ps.setString(5, windows);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        }
    }

    /**
     * The interval end through which all {@code partitions} partitions are staged, or null while
     * some partition has not been staged yet, or is staged under other window settings than the
     * rest.
     */
    public Bound bound(int partitions) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT count(*), min(through_ms), min(source_ms), count(DISTINCT"
                                + " COALESCE(windows, '')), min(COALESCE(windows, '')) FROM"
                                + " cdc_lab.staged_through WHERE topic = ? AND part < ?")) {
            ps.setString(1, topic);
            ps.setInt(2, partitions);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                Bound b =
                        rs.getInt(1) < partitions || rs.getInt(4) != 1
                                ? null
                                : new Bound(rs.getLong(2), rs.getLong(3), rs.getString(5));
                c.commit();
                return b;
            }
        }
    }

    /**
     * Brings the changes staged under other window settings than {@code b}'s to its unit, in a
     * transaction of its own: those staged as closed are taken with the next round (they were
     * complete where they were staged), those staged ahead are placed in the windows they fall in
     * now. Nothing to do, and nothing read, when every change is staged under {@code b}'s.
     *
     * @return how many changes were brought over
     */
    public long adopt(Bound b) throws SQLException {
        WindowSettings now = WindowSettings.of(b.windows());
        List<long[]> moved = new ArrayList<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        // spelled as ranges, so that the index answers when there are none
                        "SELECT part, off, ahead, record FROM cdc_lab.staged_changes WHERE topic ="
                                + " ? AND (windows < ? OR windows > ?)")) {
            ps.setString(1, topic);
            ps.setString(2, b.windows());
            ps.setString(3, b.windows());
            ps.setFetchSize(1000);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long end = Long.MIN_VALUE;
                    if (rs.getBoolean(3) && now != null) {
                        end = now.end((IntervalRecord) NetChangeCodec.decode(rs.getBytes(4)));
                    }
                    moved.add(new long[] {rs.getInt(1), rs.getLong(2), end});
                }
            }
        }
        if (!moved.isEmpty()) {
            try (PreparedStatement ps =
                    c.prepareStatement(
                            "UPDATE cdc_lab.staged_changes SET interval_end = ?, windows = ? WHERE"
                                    + " topic = ? AND part = ? AND off = ?")) {
                for (long[] m : moved) {
                    ps.setLong(1, m[2]);
                    ps.setString(2, b.windows());
                    ps.setString(3, topic);
                    ps.setInt(4, (int) m[0]);
                    ps.setLong(5, m[1]);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        }
        c.commit();
        return moved.size();
    }

    /**
     * Removes, in the open transaction, every change staged through {@code b} and keeps them aside
     * ({@link #page}): if the transaction rolls back they stay staged. When there is none, the
     * transaction ends here, having written nothing.
     *
     * @return how many were taken
     */
    public long take(Bound b) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(
                    "CREATE TEMP TABLE IF NOT EXISTS cdclab_taken (part INTEGER, off BIGINT,"
                            + " interval_end BIGINT, pos TEXT NOT NULL, record BYTEA, PRIMARY KEY"
                            + " (interval_end, pos, part, off)) ON COMMIT DELETE ROWS");
        }
        long n;
        try (PreparedStatement ps =
                c.prepareStatement(
                        "WITH d AS (DELETE FROM cdc_lab.staged_changes WHERE topic = ? AND"
                                + " interval_end <= ? AND COALESCE(windows, '') = ? RETURNING part,"
                                + " off, interval_end, COALESCE(pos, ''), record) INSERT INTO"
                                + " cdclab_taken SELECT * FROM d")) {
            ps.setString(1, topic);
            ps.setLong(2, b.throughMs());
            ps.setString(3, b.windows() == null ? "" : b.windows());
            n = ps.executeUpdate();
        }
        if (n == 0) {
            c.commit();
        }
        return n;
    }

    /**
     * The next at most {@code limit} changes {@link #take} kept aside, after {@code after} (null:
     * from the first), in source order: by interval, then by source position, across partitions. A
     * page is written apart from the next, so partition order would apply one partition's changes
     * of a later interval (a table's changes after its key was dropped, which all share one
     * partition) before another's of an earlier one (the rows they change).
     */
    public List<Entry> page(Entry after, int limit) throws SQLException {
        List<Entry> out = new ArrayList<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT part, off, interval_end, pos, record FROM cdclab_taken WHERE"
                                + " (interval_end, pos, part, off) > (?, ?, ?, ?) ORDER BY"
                                + " interval_end, pos, part, off LIMIT ?")) {
            ps.setLong(1, after == null ? Long.MIN_VALUE : after.intervalEndMs());
            ps.setString(2, after == null || after.position() == null ? "" : after.position());
            ps.setInt(3, after == null ? Integer.MIN_VALUE : after.partition());
            ps.setLong(4, after == null ? Long.MIN_VALUE : after.offset());
            ps.setInt(5, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(
                            new Entry(
                                    rs.getInt(1),
                                    rs.getLong(2),
                                    rs.getLong(3),
                                    rs.getString(4),
                                    rs.getBytes(5)));
                }
            }
        }
        return out;
    }

    /**
     * Removes staged changes the warehouse refused (dead-lettered already), in a transaction of its
     * own, so that the next round applies the rest.
     */
    public void discard(List<Entry> refused) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "DELETE FROM cdc_lab.staged_changes WHERE topic = ? AND part = ? AND off ="
                                + " ?")) {
            for (Entry e : refused) {
                ps.setString(1, topic);
                ps.setInt(2, e.partition());
                ps.setLong(3, e.offset());
                ps.addBatch();
            }
            ps.executeBatch();
        }
        c.commit();
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
