package dev.cdclab.capture;

import dev.cdclab.config.SourceKind;
import dev.cdclab.wait.Poll;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SQL Server as capture sees it: CDC enabled on the database and on each table (the capture job
 * scans the log into change tables), the capture and cleanup jobs tuned as the white paper tunes
 * them, and the Debezium SQL Server connector reading the change tables. Ready means the Agent runs
 * and {@code sys.fn_cdc_get_max_lsn()} is not null.
 */
public final class SqlServerCapture implements CaptureSource {
    private static final Logger LOG = LoggerFactory.getLogger(SqlServerCapture.class);

    /** "Cannot perform this operation while SQLServerAgent is starting. Try again later." */
    private static final int AGENT_STARTING = 14258;

    private static final Duration AGENT_WAIT = Duration.ofMinutes(2);

    private final CaptureConfig config;
    private final String jdbcUrl;
    private final Properties props;
    private final List<SqlServerScript.Table> enabledHere = new ArrayList<>();
    private boolean databaseEnabledHere;

    SqlServerCapture(CaptureConfig c) {
        this.config = c;
        this.jdbcUrl = c.jdbcUrl();
        this.props = new Properties();
        props.setProperty("user", c.user());
        if (c.password() != null) {
            props.setProperty("password", c.password());
        }
        props.setProperty("loginTimeout", "10");
    }

    @Override
    public SourceKind kind() {
        return SourceKind.SQLSERVER;
    }

    @Override
    public CaptureConfig config() {
        return config;
    }

    /** Topic Debezium names for a table before routing: {@code <prefix>.<db>.<schema>.<table>}. */
    String sourceTopic(String schema, String table) {
        return config.get(CaptureConfig.TOPIC_PREFIX)
                + "."
                + config.get(CaptureConfig.DATABASE)
                + "."
                + schema
                + "."
                + table;
    }

    @Override
    public Map<String, String> connectorConfig() {
        String prefix = config.get(CaptureConfig.TOPIC_PREFIX);
        Map<String, String> m = new LinkedHashMap<>();
        m.put("connector.class", "io.debezium.connector.sqlserver.SqlServerConnector");
        m.put("database.names", config.get(CaptureConfig.DATABASE));
        m.put("table.include.list", tableIncludeList());
        // mssql-jdbc encrypts by default, and a SQL Server in Docker has a self-signed certificate
        m.put("driver.trustServerCertificate", "true");
        m.put("schema.history.internal.kafka.bootstrap.servers", kafkaBootstrap());
        m.put("schema.history.internal.kafka.topic", prefix + ".schema-history");
        // the pipeline reads rows, not DDL events
        m.put("include.schema.changes", "false");
        m.put(
                "datatype.propagate.source.type",
                ".+\\.decimal,.+\\.numeric,.+\\.money,.+\\.smallmoney");
        m.put(
                "data.query.mode",
                config.get(CaptureConfig.DATA_QUERY_MODE)
                        .name()
                        .toLowerCase(java.util.Locale.ROOT));
        Integer iteration = config.get(CaptureConfig.MAX_ITERATION_TRANSACTIONS);
        if (iteration != null) {
            m.put("max.iteration.transactions", Integer.toString(iteration));
        }
        return DebeziumConnectorConfig.assemble(
                config,
                m,
                config.get(CaptureConfig.DATABASE) + ".",
                "UPDATE "
                        + SqlServerScript.bracket(CaptureConfig.LAB_SCHEMA)
                        + ".[heartbeat] SET ts = SYSUTCDATETIME()",
                // the SQL Server plugin is 3.6, whose router has the old name
                DebeziumConnectorConfig.Router.BY_LOGICAL_TABLE,
                "commit_lsn,change_lsn,event_serial_no");
    }

    private String kafkaBootstrap() {
        String b = config.get(CaptureConfig.KAFKA_BOOTSTRAP_SERVERS);
        if (b == null) {
            throw new dev.cdclab.config.ConfigException(
                    CaptureConfig.KAFKA_BOOTSTRAP_SERVERS.key(),
                    "is required with source.kind=sqlserver: the connector keeps its schema"
                            + " history in Kafka");
        }
        return b;
    }

    private String tableIncludeList() {
        List<String> patterns = new ArrayList<>();
        List<String> tables = config.tables();
        if (tables.isEmpty()) {
            for (String schema : config.schemas()) {
                patterns.add(Pattern.quote(schema) + "\\..+");
            }
        } else {
            for (String t : tables) {
                patterns.add(Pattern.quote(t));
            }
        }
        patterns.add(Pattern.quote(DebeziumConnectorConfig.HEARTBEAT_TABLE));
        return String.join(",", patterns);
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

    /** Fails on editions without CDC (Express) and without the rights to enable it. */
    @Override
    public void check() {
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT CAST(SERVERPROPERTY('EngineEdition') AS int),"
                                        + " CAST(SERVERPROPERTY('Edition') AS nvarchar(128)),"
                                        + " IS_SRVROLEMEMBER('sysadmin'), (SELECT is_cdc_enabled"
                                        + " FROM sys.databases WHERE name = DB_NAME())")) {
            rs.next();
            int engine = rs.getInt(1);
            String edition = rs.getString(2);
            boolean sysadmin = rs.getInt(3) == 1;
            boolean cdcOn = rs.getBoolean(4);
            if (engine == 4) {
                throw new IllegalStateException(
                        "source is "
                                + edition
                                + ", which has no change data capture and no Agent; use"
                                + " Developer, Standard or Enterprise");
            }
            if (!cdcOn && !sysadmin) {
                throw new IllegalStateException(
                        "CDC is off in database "
                                + config.get(CaptureConfig.DATABASE)
                                + " and "
                                + config.user()
                                + " is not sysadmin, which sys.sp_cdc_enable_db needs; enable it"
                                + " as a sysadmin (cdc-lab sqlserver script prints the T-SQL)");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read source edition: " + e.getMessage(), e);
        }
    }

    /** The tables {@link CaptureConfig#TABLES} names, with their captured columns. */
    public List<SqlServerScript.Table> namedTables() {
        List<SqlServerScript.Table> out = new ArrayList<>();
        for (String t : config.tables()) {
            int dot = t.indexOf('.');
            String schema = dot < 0 ? config.schemas().get(0) : t.substring(0, dot);
            String name = dot < 0 ? t : t.substring(dot + 1);
            out.add(new SqlServerScript.Table(schema, name, config.capturedColumns(schema, name)));
        }
        return out;
    }

    /** The tables to capture now: those configured, or every table with a key. */
    public List<SqlServerScript.Table> tablesToCapture() {
        List<SqlServerScript.Table> out = new ArrayList<>();
        if (!config.tables().isEmpty()) {
            return namedTables();
        }
        String in =
                config.schemas().stream()
                        .map(SqlServerScript::literal)
                        .collect(Collectors.joining(", "));
        String sql =
                "SELECT s.name, t.name FROM sys.tables t JOIN sys.schemas s ON s.schema_id ="
                        + " t.schema_id WHERE t.is_ms_shipped = 0 AND s.name IN ("
                        + in
                        + ") AND EXISTS (SELECT 1 FROM sys.indexes i WHERE i.object_id ="
                        + " t.object_id AND i.is_primary_key = 1) ORDER BY s.name, t.name";
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                String schema = rs.getString(1);
                String name = rs.getString(2);
                out.add(
                        new SqlServerScript.Table(
                                schema, name, config.capturedColumns(schema, name)));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot list source tables: " + e.getMessage(), e);
        }
        return out;
    }

    /** The setup script for the tables that exist now, as {@link #prepare} runs it. */
    public List<String> setupScript() {
        return SqlServerScript.setup(
                SqlServerScript.Options.of(config), heartbeatIds(), tablesToCapture());
    }

    /** The heartbeat table's row ids, one per partition of the changes topic. */
    public List<Integer> heartbeatRowIds() {
        return heartbeatIds();
    }

    List<Integer> heartbeatIds() {
        return HeartbeatRows.idsFor(
                config.get(CaptureConfig.TOPIC_PREFIX),
                sourceTopic(CaptureConfig.LAB_SCHEMA, "heartbeat"),
                config.get(CaptureConfig.PARTITIONS));
    }

    @Override
    public void prepare() {
        check();
        awaitAgent(AGENT_WAIT);
        List<SqlServerScript.Table> tables = tablesToCapture();
        try (Connection c = connect()) {
            databaseEnabledHere = !cdcEnabled(c);
            List<SqlServerScript.Table> all = new ArrayList<>(tables);
            all.add(new SqlServerScript.Table(CaptureConfig.LAB_SCHEMA, "heartbeat", null));
            for (SqlServerScript.Table t : all) {
                if (!tracked(c, t)) {
                    enabledHere.add(t);
                }
            }
            List<String> batches =
                    SqlServerScript.setup(
                            SqlServerScript.Options.of(config), heartbeatIds(), tables);
            for (String batch : batches) {
                run(c, batch);
            }
            LOG.info(
                    "CDC ready in database {} for {} tables (enabled here: {})",
                    config.get(CaptureConfig.DATABASE),
                    tables.size(),
                    enabledHere);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot prepare SQL Server for CDC: " + e.getMessage(), e);
        }
    }

    /** Runs one batch, retrying while the Agent is still starting (error 14258). */
    private static void run(Connection c, String batch) throws SQLException {
        Poll poll = Poll.within(AGENT_WAIT).every(Duration.ofMillis(1000));
        while (true) {
            try (Statement s = c.createStatement()) {
                s.execute(batch);
                return;
            } catch (SQLException e) {
                if (e.getErrorCode() != AGENT_STARTING || poll.expired()) {
                    throw new SQLException(
                            e.getMessage() + " (in: " + batch.lines().findFirst().orElse("") + ")",
                            e.getSQLState(),
                            e.getErrorCode(),
                            e);
                }
                poll.pause();
            }
        }
    }

    private boolean cdcEnabled(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT is_cdc_enabled FROM sys.databases WHERE name = DB_NAME()")) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    private static boolean tracked(Connection c, SqlServerScript.Table t) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT t.is_tracked_by_cdc FROM sys.tables t JOIN sys.schemas s ON"
                                + " s.schema_id = t.schema_id WHERE s.name = ? AND t.name = ?")) {
            ps.setString(1, t.schema());
            ps.setString(2, t.name());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /**
     * Returns once SQL Server Agent runs ({@code sys.dm_server_services} status 4).
     *
     * @throws IllegalStateException when it does not within {@code timeout}
     */
    public void awaitAgent(Duration timeout) {
        String sql =
                "SELECT CASE WHEN dss.[status] = 4 THEN 1 ELSE 0 END FROM sys.dm_server_services"
                        + " dss WHERE dss.[servicename] LIKE N'SQL Server Agent (%'";
        Poll poll = Poll.within(timeout).every(Duration.ofMillis(500));
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            while (true) {
                try (ResultSet rs = s.executeQuery(sql)) {
                    if (rs.next() && rs.getInt(1) == 1) {
                        return;
                    }
                }
                if (poll.expired()) {
                    throw new IllegalStateException(
                            "SQL Server Agent is not running after "
                                    + timeout.toSeconds()
                                    + " s; CDC's capture job needs it (in Docker:"
                                    + " MSSQL_AGENT_ENABLED=true)");
                }
                poll.pause();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the Agent's state: " + e.getMessage(), e);
        }
    }

    /** Agent running and {@code sys.fn_cdc_get_max_lsn()} not null. */
    @Override
    public void awaitReady(Duration timeout) {
        awaitAgent(timeout);
        Poll poll = Poll.within(timeout).every(Duration.ofMillis(250));
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            while (true) {
                try (ResultSet rs = s.executeQuery("SELECT sys.fn_cdc_get_max_lsn()")) {
                    if (rs.next() && rs.getBytes(1) != null) {
                        return;
                    }
                }
                if (poll.expired()) {
                    throw new IllegalStateException(
                            "the CDC capture job wrote no LSN within "
                                    + timeout.toSeconds()
                                    + " s (sys.fn_cdc_get_max_lsn() is NULL); is its job running?");
                }
                poll.pause();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the max LSN: " + e.getMessage(), e);
        }
    }

    @Override
    public void awaitStreaming(Duration timeout) {
        HeartbeatWatch.awaitChange(
                this::connect,
                "SELECT MAX(ts) FROM "
                        + SqlServerScript.bracket(CaptureConfig.LAB_SCHEMA)
                        + ".[heartbeat]",
                timeout);
    }

    @Override
    public Map<String, String> settings() {
        Map<String, String> out = new LinkedHashMap<>();
        String server =
                "SELECT CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(64)),"
                        + " CAST(SERVERPROPERTY('Edition') AS nvarchar(128)), d.recovery_model_desc,"
                        + " d.delayed_durability_desc, d.is_cdc_enabled,"
                        + " d.snapshot_isolation_state_desc, (SELECT SUM(CAST(size AS bigint)) * 8"
                        + " / 1024 FROM sys.database_files WHERE type = 1) FROM sys.databases d"
                        + " WHERE d.name = DB_NAME()";
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery(server)) {
                if (rs.next()) {
                    out.put("server_version", rs.getString(1));
                    out.put("edition", rs.getString(2));
                    out.put("recovery_model", rs.getString(3));
                    out.put("delayed_durability", rs.getString(4));
                    out.put("cdc_enabled", rs.getBoolean(5) ? "on" : "off");
                    out.put("snapshot_isolation", rs.getString(6));
                    out.put("log_size_mb", rs.getString(7));
                }
            }
            try (ResultSet rs =
                    s.executeQuery(
                            "SELECT job_type, maxtrans, maxscans, continuous, pollinginterval,"
                                    + " retention, threshold FROM msdb.dbo.cdc_jobs WHERE"
                                    + " database_id = DB_ID()")) {
                while (rs.next()) {
                    if ("capture".equals(rs.getString(1))) {
                        out.put("capture_maxtrans", rs.getString(2));
                        out.put("capture_maxscans", rs.getString(3));
                        out.put("capture_continuous", rs.getBoolean(4) ? "1" : "0");
                        out.put("capture_pollinginterval_s", rs.getString(5));
                    } else {
                        out.put("cleanup_retention_min", rs.getString(6));
                        out.put("cleanup_threshold", rs.getString(7));
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read source settings: " + e.getMessage(), e);
        }
        out.put("data_query_mode", config.get(CaptureConfig.DATA_QUERY_MODE).name().toLowerCase());
        return out;
    }

    @Override
    public long nowMs() {
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT DATEDIFF_BIG(millisecond, '1970-01-01',"
                                        + " SYSUTCDATETIME())")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read source clock: " + e.getMessage(), e);
        }
    }

    /** The capture job's log scan sessions and the white paper's CDC throughput. */
    @Override
    public Optional<CaptureJobReport> jobReport() {
        String sql =
                "SELECT start_time, end_time, duration, tran_count, command_count, latency,"
                        + " empty_scan_count FROM sys.dm_cdc_log_scan_sessions WHERE session_id"
                        + " <> 0 ORDER BY session_id";
        List<ScanSession> sessions = new ArrayList<>();
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                sessions.add(
                        new ScanSession(
                                rs.getTimestamp(1),
                                rs.getTimestamp(2),
                                rs.getLong(3),
                                rs.getLong(4),
                                rs.getLong(5),
                                rs.getLong(6),
                                rs.getLong(7)));
            }
        } catch (SQLException e) {
            LOG.warn("Cannot read sys.dm_cdc_log_scan_sessions: {}", e.getMessage());
            return Optional.empty();
        }
        return Optional.of(summarize(sessions));
    }

    /** One row of {@code sys.dm_cdc_log_scan_sessions}. */
    record ScanSession(
            Timestamp start,
            Timestamp end,
            long durationSeconds,
            long transactions,
            long commands,
            long latencySeconds,
            long emptyScans) {}

    /**
     * Sums the sessions and computes CDC throughput as the white paper defines it: commands
     * processed per second from the start of the first session whose latency exceeded 5 s to the
     * end of the last session.
     */
    static CaptureJobReport summarize(List<ScanSession> sessions) {
        long tx = 0;
        long cmds = 0;
        long dur = 0;
        long maxLatency = 0;
        for (ScanSession s : sessions) {
            tx += s.transactions();
            cmds += s.commands();
            dur += s.durationSeconds();
            maxLatency = Math.max(maxLatency, s.latencySeconds());
        }
        long empty = sessions.isEmpty() ? 0 : sessions.get(sessions.size() - 1).emptyScans();
        Double whileBehind = null;
        Double overall = null;
        ScanSession last = null;
        for (int i = sessions.size() - 1; i >= 0; i--) {
            if (sessions.get(i).end() != null) {
                last = sessions.get(i);
                break;
            }
        }
        if (last != null) {
            overall = rate(sessions, 0, last);
            for (int i = 0; i < sessions.size(); i++) {
                if (sessions.get(i).latencySeconds() > 5) {
                    whileBehind = rate(sessions, i, last);
                    break;
                }
            }
        }
        return new CaptureJobReport(
                sessions.size(), tx, cmds, dur, maxLatency, empty, whileBehind, overall);
    }

    private static Double rate(List<ScanSession> sessions, int from, ScanSession last) {
        long commands = 0;
        for (int i = from; i < sessions.size(); i++) {
            commands += sessions.get(i).commands();
            if (sessions.get(i) == last) {
                break;
            }
        }
        double seconds = (last.end().getTime() - sessions.get(from).start().getTime()) / 1000.0;
        return seconds <= 0 ? null : commands / seconds;
    }

    /** Disables CDC where this pipeline enabled it: its tables, then the database. */
    @Override
    public void removeCapture(Duration wait) {
        try (Connection c = connect()) {
            for (SqlServerScript.Table t : enabledHere) {
                run(c, SqlServerScript.disableTable(t, "all"));
            }
            if (databaseEnabledHere) {
                run(c, "EXEC sys.sp_cdc_disable_db;");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot disable CDC: " + e.getMessage(), e);
        }
    }

    /** What {@link #switchCaptureInstance} did. */
    public record Switch(String oldInstance, String newInstance, String newStartLsn) {}

    /**
     * A schema change the way the white paper and Debezium do it: a second capture instance for the
     * table (its current columns), then, once the connector's committed position has passed where
     * the new instance starts, the old instance disabled. Nothing is lost: until the switch the
     * connector reads the old instance, after it the new one.
     *
     * @param table {@code schema.table}
     * @param committedCommitLsn reads the connector's committed {@code commit_lsn} (e.g. from
     *     Connect's offsets API); null while it has none
     * @throws IllegalStateException when the table has no or two capture instances, or the
     *     connector does not get past the switch in time
     */
    public Switch switchCaptureInstance(
            String table, Supplier<String> committedCommitLsn, Duration timeout) {
        int dot = table.indexOf('.');
        String schema = dot < 0 ? config.schemas().get(0) : table.substring(0, dot);
        String name = dot < 0 ? table : table.substring(dot + 1);
        SqlServerScript.Table t =
                new SqlServerScript.Table(schema, name, config.capturedColumns(schema, name));
        try (Connection c = connect()) {
            List<String> instances = instances(c, t);
            if (instances.size() != 1) {
                throw new IllegalStateException(
                        "table "
                                + table
                                + " has "
                                + instances.size()
                                + " capture instances "
                                + instances
                                + "; a switch needs exactly one");
            }
            String old = instances.get(0);
            String next = SqlServerScript.nextCaptureInstance(old);
            run(c, SqlServerScript.enableTable(SqlServerScript.Options.of(config), t, next));
            String start = startLsn(c, next);
            LOG.info("Capture instance {} starts at {}; waiting for the connector", next, start);
            Poll poll = Poll.within(timeout).every(Duration.ofMillis(500));
            while (true) {
                String committed = committedCommitLsn.get();
                if (committed != null && committed.compareToIgnoreCase(start) > 0) {
                    break;
                }
                if (poll.expired()) {
                    throw new IllegalStateException(
                            "the connector did not pass LSN "
                                    + start
                                    + " of capture instance "
                                    + next
                                    + " within "
                                    + timeout.toSeconds()
                                    + " s (committed: "
                                    + committed
                                    + "); both instances are left enabled");
                }
                poll.pause();
            }
            run(c, SqlServerScript.disableTable(t, old));
            return new Switch(old, next, start);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot switch the capture instance of " + table + ": " + e.getMessage(), e);
        }
    }

    private static List<String> instances(Connection c, SqlServerScript.Table t)
            throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT capture_instance FROM cdc.change_tables WHERE source_object_id ="
                                + " OBJECT_ID(?) ORDER BY create_date")) {
            ps.setString(
                    1,
                    SqlServerScript.bracket(t.schema()) + "." + SqlServerScript.bracket(t.name()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    /** A capture instance's start LSN in Debezium's text form ({@code 00000027:00000758:0005}). */
    private static String startLsn(Connection c, String instance) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT start_lsn FROM cdc.change_tables WHERE capture_instance = ?")) {
            ps.setString(1, instance);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next() || rs.getBytes(1) == null) {
                    throw new SQLException("capture instance " + instance + " has no start LSN");
                }
                return lsnText(rs.getBytes(1));
            }
        }
    }

    /** A binary(10) LSN as Debezium writes it: lower-case hex, {@code 8:8:4} digits. */
    static String lsnText(byte[] lsn) {
        StringBuilder hex = new StringBuilder();
        for (byte b : lsn) {
            hex.append(String.format("%02x", b));
        }
        String h = hex.toString();
        return h.substring(0, 8) + ":" + h.substring(8, 16) + ":" + h.substring(16, 20);
    }
}
