package dev.cdclab.orchestration.infra;

import dev.cdclab.embedded.PostgresServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * An embedded PostgreSQL warehouse that records commit timestamps, so latency and row writes are
 * read from the warehouse itself, the same way whichever pipeline wrote it.
 */
public final class WarehouseServer implements AutoCloseable {
    /** The database the pipelines write to. */
    public static final String DATABASE = "warehouse";

    // PostgreSQL backends publish their table counters at most once a second while busy, and
    // within 10 s (PGSTAT_IDLE_INTERVAL) of going idle
    private static final Duration STATS_SETTLE = Duration.ofSeconds(11);
    private static final long MAX_MS = 24L * 3600 * 1000;

    /** Log between checkpoints, unless the settings give it: replayed after a crash. */
    public static final String MAX_WAL_SIZE = "4GB";

    /** Longest time between checkpoints, unless the settings give it. */
    public static final String CHECKPOINT_TIMEOUT = "15min";

    /** The role the admin endpoint's read-only SQL connects as: it may read, and only read. */
    public static final String READER = "cdclab_reader";

    private final PostgresServer server;
    private final String readerPassword;

    private WarehouseServer(PostgresServer server) {
        this.server = server;
        this.readerPassword = createReader(server);
    }

    /**
     * Creates {@link #READER}: it can log in and read every table the warehouse user creates, in
     * schemas it creates, and has no other grant; its transactions are read-only as well.
     */
    private static String createReader(PostgresServer server) {
        byte[] b = new byte[24];
        new java.security.SecureRandom().nextBytes(b);
        String password = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(b);
        String owner = "\"" + server.user().replace("\"", "\"\"") + "\"";
        try (Connection c = server.connect();
                java.sql.Statement s = c.createStatement()) {
            s.execute(
                    "DO $$ BEGIN CREATE ROLE "
                            + READER
                            + " LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
            s.execute("ALTER ROLE " + READER + " PASSWORD '" + password + "'");
            s.execute("ALTER ROLE " + READER + " SET default_transaction_read_only = on");
            s.execute("GRANT CONNECT ON DATABASE " + DATABASE + " TO " + READER);
            s.execute("GRANT USAGE ON SCHEMA public TO " + READER);
            s.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + READER);
            s.execute(
                    "ALTER DEFAULT PRIVILEGES FOR ROLE "
                            + owner
                            + " GRANT USAGE ON SCHEMAS TO "
                            + READER);
            s.execute(
                    "ALTER DEFAULT PRIVILEGES FOR ROLE "
                            + owner
                            + " GRANT SELECT ON TABLES TO "
                            + READER);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot create the warehouse's reader role: " + e.getMessage(), e);
        }
        return password;
    }

    /** The password of {@link #READER}. */
    public String readerPassword() {
        return readerPassword;
    }

    /**
     * Starts a server in {@code dataDir}.
     *
     * @param durable fsync and synchronous commit, as the source runs
     */
    public static WarehouseServer start(Path dataDir, Path logFile, boolean durable) {
        return start(dataDir, logFile, durable, java.util.Map.of());
    }

    /**
     * Starts a server in {@code dataDir} with other server settings on top of the warehouse's.
     *
     * @param durable fsync and synchronous commit, as the source runs
     * @param settings server settings by name, e.g. {@code shared_buffers}
     */
    public static WarehouseServer start(
            Path dataDir, Path logFile, boolean durable, java.util.Map<String, String> settings) {
        PostgresServer.Builder builder =
                PostgresServer.builder()
                        .dataDirectory(dataDir)
                        .logFile(logFile)
                        .durable(durable)
                        .database(DATABASE)
                        .shutdownHook(false)
                        .setting("track_commit_timestamp", "on")
                        // a warehouse, not a source: nothing decodes or replicates its log.
                        // At minimal, a table created and filled in one transaction (an initial
                        // load) is written without logging its rows and synced at commit
                        .setting("wal_level", "minimal")
                        .setting("max_wal_senders", "0")
                        .setting("max_replication_slots", "0")
                        // after a checkpoint, the first change to each page logs the whole page;
                        // a warehouse written at random keys in tables larger than its buffers
                        // then pays a page per change. PostgreSQL's 1 GB of log between
                        // checkpoints made them every 3-36 s at 10 million rows
                        .setting("max_wal_size", MAX_WAL_SIZE)
                        .setting("checkpoint_timeout", CHECKPOINT_TIMEOUT);
        settings.forEach(builder::setting);
        return new WarehouseServer(builder.start());
    }

    /** JDBC URL of the warehouse database, without credentials. */
    public String jdbcUrl() {
        return server.jdbcUrl();
    }

    public String host() {
        return server.host();
    }

    public int port() {
        return server.port();
    }

    public String user() {
        return server.user();
    }

    public String password() {
        return server.password();
    }

    public Connection connect() throws SQLException {
        return server.connect();
    }

    /**
     * For each row whose generator commit time ({@code gen_commit_us}) lies in the window: the
     * commit time of the warehouse transaction that wrote its current version, minus that generator
     * time. Rows rewritten later, or deleted, are not seen, so this samples the last write of each
     * key in the window.
     */
    public Histogram commitLatency(
            List<String> tables, String column, long fromMicros, long toMicros)
            throws SQLException {
        Histogram h = new Histogram(MAX_MS, 3);
        try (Connection c = connect()) {
            for (String table : tables) {
                if (!hasColumn(c, table, column)) {
                    continue;
                }
                try (PreparedStatement ps =
                        c.prepareStatement(
                                "SELECT (extract(epoch FROM pg_xact_commit_timestamp(xmin)) *"
                                        + " 1000000)::bigint - "
                                        + quote(column)
                                        + " FROM public."
                                        + quote(table)
                                        + " WHERE "
                                        + quote(column)
                                        + " BETWEEN ? AND ?")) {
                    ps.setLong(1, fromMicros);
                    ps.setLong(2, toMicros);
                    ps.setFetchSize(10_000);
                    c.setAutoCommit(false);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            long us = rs.getLong(1);
                            if (!rs.wasNull()) {
                                h.recordValue(Math.min(MAX_MS, Math.max(0, us / 1000)));
                            }
                        }
                    } finally {
                        c.commit();
                        c.setAutoCommit(true);
                    }
                }
            }
        }
        return h;
    }

    /**
     * Rows inserted, updated and deleted in the tables so far, once every backend has published its
     * counters (waits about 11 s).
     */
    public long rowsWritten(List<String> tables) throws SQLException {
        try {
            Thread.sleep(STATS_SETTLE.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while waiting for table statistics", e);
        }
        try (Connection c = connect();
                PreparedStatement ps =
                        c.prepareStatement(
                                "SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) FROM"
                                        + " pg_stat_user_tables WHERE schemaname = 'public' AND"
                                        + " relname = ANY (?)")) {
            ps.setArray(1, c.createArrayOf("text", tables.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static boolean hasColumn(Connection c, String table, String column)
            throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT 1 FROM information_schema.columns WHERE table_schema = 'public'"
                                + " AND table_name = ? AND column_name = ?")) {
            ps.setString(1, table);
            ps.setString(2, column);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** {@code identifier} as a quoted PostgreSQL identifier. */
    public static String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }

    /** Server settings, as applied. */
    public java.util.Map<String, String> settings() {
        return server.settings();
    }

    @Override
    public void close() {
        server.close();
    }
}
