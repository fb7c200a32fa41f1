package dev.cdclab.capture;

import dev.cdclab.change.Lsn;
import dev.cdclab.config.SourceKind;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * PostgreSQL as capture sees it: logical decoding through pgoutput, a {@code FOR ALL TABLES}
 * publication (so tables created later are captured), a replication slot, and the heartbeat table
 * with one row per partition.
 */
public final class PostgresCapture implements CaptureSource {
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

    private final CaptureConfig config;
    private final String jdbcUrl;
    private final Properties props;

    /**
     * The most the slot has decoded so far (pg_stat_replication_slots), -1 before the first look.
     */
    private volatile long slotBytesSeen = -1;

    /** When the server started, as last seen: statistics do not survive a crash restart. */
    private volatile String serverStartSeen;

    private String rolePassword;

    PostgresCapture(CaptureConfig c) {
        this.config = c;
        this.jdbcUrl = c.jdbcUrl();
        this.props = new Properties();
        props.setProperty("user", c.user());
        if (c.password() != null) {
            props.setProperty("password", c.password());
        }
        props.setProperty("connectTimeout", "10");
    }

    @Override
    public SourceKind kind() {
        return SourceKind.POSTGRES;
    }

    @Override
    public CaptureConfig config() {
        return config;
    }

    @Override
    public Map<String, String> connectorConfig() {
        Map<String, String> m = connectorConfigAsConfigured();
        String role = config.get(CaptureConfig.CAPTURE_ROLE);
        if (role != null) {
            m.put("database.user", role);
            // known once prepare() has set it; print-config leaves it to the environment
            m.put(
                    "database.password",
                    rolePassword != null ? rolePassword : "${env:CDCLAB_CAPTURE_PASSWORD}");
        }
        return m;
    }

    /**
     * {@code datatype.propagate.source.type}: every column type except those whose Connect schema
     * (type and semantic name, also of an array's elements) already tells the warehouse what the
     * value is. Debezium matches each regex against {@code <table id>.<type name>}.
     */
    static final String PROPAGATED_SOURCE_TYPES =
            ".+\\.(?!_?(?:int2|int4|int8|float4|float8|bool|text|varchar|bpchar|char|name|date"
                    + "|timestamp|timestamptz|time|timetz|uuid|json|jsonb|bytea|citext|hstore"
                    + "|interval|xml|tsvector|point|oid)$)[^.]+";

    private Map<String, String> connectorConfigAsConfigured() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        m.put("plugin.name", "pgoutput");
        m.put("database.dbname", config.get(CaptureConfig.DATABASE));
        m.put("slot.name", config.get(CaptureConfig.SLOT));
        m.put("publication.name", config.get(CaptureConfig.PUBLICATION));
        // FOR ALL TABLES: tables created while the pipeline runs are captured without a restart
        m.put("publication.autocreate.mode", "all_tables");
        m.put("schema.include.list", DebeziumConnectorConfig.schemaList(config));
        // the source type goes into the event only where the Connect schema does not already say
        // what a value is (the schema is repeated in every event): decimals' precision and scale,
        // money, bit(n) against varbit, network and range types, and every type of the database's
        // own (domains, composites, enums)
        m.put("datatype.propagate.source.type", PROPAGATED_SOURCE_TYPES);
        // ISO 8601 text keeps an interval's months, days and time apart; the numeric mode folds
        // them into microseconds with 30.4375-day months
        m.put("interval.handling.mode", "string");
        // hstore as a JSON object's text, which the warehouses hold as JSON
        m.put("hstore.handling.mode", "json");
        // composite types and arrays of domains and composites are otherwise dropped from the
        // event; this sends their PostgreSQL text form (as bytes, which the source type tells
        // apart from bytea)
        m.put("include.unknown.datatypes", "true");
        // Debezium skips TRUNCATE by default; let it through so that the net-change app stops on
        // it instead of the warehouse diverging without a word
        m.put("skipped.operations", "none");
        // the row a primary-key update creates carries an unchanged TOASTed value only as a
        // placeholder (the WAL has the old key, not the value), and no warehouse row is there to
        // keep it from: read it back from the source. Updates that leave a TOASTed value
        // unchanged are read back too (one primary-key lookup each); the value read is the
        // row's latest, never older than the event, and later events carry their own
        m.put("post.processors", "reselect");
        m.put(
                "post.processors.reselect.type",
                "io.debezium.processors.reselect.ReselectColumnsPostProcessor");
        m.put("post.processors.reselect.reselect.unavailable.values", "true");
        m.put("post.processors.reselect.reselect.null.values", "false");
        return DebeziumConnectorConfig.assemble(
                config,
                m,
                "",
                "UPDATE " + DebeziumConnectorConfig.HEARTBEAT_TABLE + " SET ts = now()",
                DebeziumConnectorConfig.Router.TO_LOGICAL_TOPIC,
                "lsn,txId");
    }

    @Override
    public Connection connect() {
        try {
            return DriverManager.getConnection(jdbcUrl, props);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot connect to source " + jdbcUrl + ": " + e.getMessage(), e);
        }
    }

    /**
     * A slot that is gone after the connector committed offsets, or that was invalidated, has lost
     * changes; Debezium itself resumes from whatever slot it finds without a word. A slot dropped
     * and recreated between two looks is told by its statistics: a slot's {@code total_bytes}
     * decoded only grows, and a new slot's starts again from 0. ({@code confirmed_flush_lsn} cannot
     * tell: Debezium lets the slot pass the committed offset.)
     */
    @Override
    public void checkPosition(java.util.List<com.fasterxml.jackson.databind.JsonNode> offsets) {
        String slot = config.get(CaptureConfig.SLOT);
        long committed = -1;
        for (var o : offsets) {
            for (String f : new String[] {"lsn", "lsn_commit", "lsn_proc"}) {
                if (o.hasNonNull(f)) {
                    committed = Math.max(committed, o.get(f).asLong());
                }
            }
        }
        String walStatus;
        long decoded = -1;
        try (Connection c = connect();
                PreparedStatement q =
                        c.prepareStatement(
                                c.getMetaData().getDatabaseMajorVersion() >= 14
                                        ? "SELECT s.wal_status, st.total_bytes,"
                                                + " pg_postmaster_start_time()::text FROM"
                                                + " pg_replication_slots s LEFT JOIN"
                                                + " pg_stat_replication_slots st USING (slot_name)"
                                                + " WHERE s.slot_name = ?"
                                        : "SELECT wal_status, NULL, NULL FROM pg_replication_slots"
                                                + " WHERE slot_name = ?")) {
            q.setString(1, slot);
            try (ResultSet rs = q.executeQuery()) {
                if (!rs.next()) {
                    if (committed >= 0) {
                        throw new CaptureLostException(
                                "replication slot "
                                        + slot
                                        + " is gone: changes after "
                                        + Lsn.format(committed)
                                        + " cannot be captured; re-snapshot into a new warehouse");
                    }
                    return;
                }
                walStatus = rs.getString(1);
                long bytes = rs.getLong(2);
                decoded = rs.wasNull() ? -1 : bytes;
                String started = rs.getString(3);
                if (started != null && !started.equals(serverStartSeen)) {
                    // a restarted server may have discarded the statistics: start over
                    serverStartSeen = started;
                    slotBytesSeen = -1;
                }
            }
        } catch (SQLException e) {
            // the source being unreachable is not this check's to report
            return;
        } catch (IllegalStateException e) {
            if (e.getCause() instanceof SQLException) {
                // nor is a source that is restarting
                return;
            }
            throw e;
        }
        long seen = slotBytesSeen;
        if (decoded >= 0 && seen > 0 && decoded < seen) {
            throw new CaptureLostException(
                    "replication slot "
                            + slot
                            + " was dropped and recreated (it had decoded "
                            + seen
                            + " bytes, now "
                            + decoded
                            + "): the changes in between cannot be captured; re-snapshot into a"
                            + " new warehouse");
        }
        if (decoded > seen) {
            slotBytesSeen = decoded;
        }
        if ("lost".equals(walStatus)) {
            throw new CaptureLostException(
                    "replication slot "
                            + slot
                            + " was invalidated (max_slot_wal_keep_size): changes it no longer"
                            + " holds are lost; re-snapshot into a new warehouse");
        }
    }

    @Override
    public void check() {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            String wal = setting(s, "wal_level");
            if (!"logical".equals(wal)) {
                throw new IllegalStateException(
                        "source wal_level is '"
                                + wal
                                + "'; logical decoding needs wal_level=logical");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read source settings: " + e.getMessage(), e);
        }
    }

    /**
     * Checks logical decoding is on and creates the heartbeat table with one row per partition of
     * the changes topic.
     *
     * @throws IllegalStateException naming what is missing
     */
    @Override
    public void prepare() {
        check();
        String table = DebeziumConnectorConfig.HEARTBEAT_TABLE;
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS " + CaptureConfig.LAB_SCHEMA);
            s.execute(
                    "CREATE TABLE IF NOT EXISTS "
                            + table
                            + " (id INT PRIMARY KEY, ts TIMESTAMPTZ NOT NULL)");
            s.execute("DELETE FROM " + table);
            for (int id :
                    HeartbeatRows.idsFor(
                            config.get(CaptureConfig.TOPIC_PREFIX),
                            config.get(CaptureConfig.PARTITIONS))) {
                s.execute("INSERT INTO " + table + " (id, ts) VALUES (" + id + ", now())");
            }
            String role = config.get(CaptureConfig.CAPTURE_ROLE);
            if (role != null) {
                prepareRole(s, role);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot prepare source: " + e.getMessage(), e);
        }
    }

    /**
     * The connector's least-privilege role: LOGIN and REPLICATION, SELECT on what it captures,
     * UPDATE on the heartbeat table; the publication is created here, by its owner.
     */
    private void prepareRole(Statement s, String role) throws SQLException {
        String r = quote(role);
        s.execute(
                "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '"
                        + role
                        + "') THEN CREATE ROLE "
                        + r
                        + "; END IF; END $$");
        String password = randomPassword();
        // the password is letters and digits only, so the literal needs no escaping
        s.execute(
                "ALTER ROLE "
                        + r
                        + " WITH LOGIN REPLICATION NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '"
                        + password
                        + "'");
        List<String> schemas = new ArrayList<>(config.schemas());
        schemas.add(CaptureConfig.LAB_SCHEMA);
        for (String schema : schemas) {
            String q = quote(schema);
            s.execute("CREATE SCHEMA IF NOT EXISTS " + q);
            s.execute("GRANT USAGE ON SCHEMA " + q + " TO " + r);
            s.execute("GRANT SELECT ON ALL TABLES IN SCHEMA " + q + " TO " + r);
            // tables source.user creates later (under `up`) are readable too
            s.execute(
                    "ALTER DEFAULT PRIVILEGES IN SCHEMA " + q + " GRANT SELECT ON TABLES TO " + r);
        }
        s.execute("GRANT UPDATE ON " + DebeziumConnectorConfig.HEARTBEAT_TABLE + " TO " + r);
        String publication = config.get(CaptureConfig.PUBLICATION);
        try (ResultSet rs =
                s.executeQuery(
                        "SELECT 1 FROM pg_publication WHERE pubname = '"
                                + publication.replace("'", "''")
                                + "'")) {
            if (!rs.next()) {
                s.execute("CREATE PUBLICATION " + quote(publication) + " FOR ALL TABLES");
            }
        }
        rolePassword = password;
    }

    private static String randomPassword() {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        SecureRandom random = new SecureRandom();
        StringBuilder sb = new StringBuilder(24);
        for (int i = 0; i < 24; i++) {
            sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    private static String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }

    @Override
    public Map<String, String> settings() {
        Map<String, String> out = new LinkedHashMap<>();
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            for (String name : REPORTED_SETTINGS) {
                out.put(name, setting(s, name));
            }
            String role = config.get(CaptureConfig.CAPTURE_ROLE);
            out.put("capture_role", role != null ? role : config.user());
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

    @Override
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

    @Override
    public void awaitStreaming(Duration timeout) {
        HeartbeatWatch.awaitChange(
                this::connect,
                "SELECT max(ts) FROM " + DebeziumConnectorConfig.HEARTBEAT_TABLE,
                timeout);
    }

    @Override
    public void removeCapture(Duration wait) {
        dropSlot(config.get(CaptureConfig.SLOT), wait);
        dropPublication(config.get(CaptureConfig.PUBLICATION));
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
