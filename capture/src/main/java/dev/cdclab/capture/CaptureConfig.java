package dev.cdclab.capture;

import static dev.cdclab.config.ConfigOption.booleanOption;
import static dev.cdclab.config.ConfigOption.durationOption;
import static dev.cdclab.config.ConfigOption.enumOption;
import static dev.cdclab.config.ConfigOption.intOption;
import static dev.cdclab.config.ConfigOption.stringOption;

import dev.cdclab.config.ConfigException;
import dev.cdclab.config.ConfigOption;
import dev.cdclab.config.Configuration;
import dev.cdclab.config.SourceKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Options of the capture stage: which source, where it is, how the Debezium connector is named and
 * tuned, and (SQL Server) how its CDC capture and cleanup jobs run. Keys under {@code debezium.}
 * are copied into the connector config as-is and win over everything else.
 */
public final class CaptureConfig {
    /** Prefix of keys passed unchanged into the connector configuration. */
    public static final String DEBEZIUM_PREFIX = "debezium.";

    /** Schema of the pipeline's own source tables (the heartbeat). */
    public static final String LAB_SCHEMA = "cdc_lab";

    /** How SQL Server CDC reads change tables (Debezium's {@code data.query.mode}). */
    public enum DataQueryMode {
        /** Through the {@code cdc.fn_cdc_get_all_changes_*} functions; ts_ms is the commit time. */
        FUNCTION,
        /** Straight from the change tables; faster, and ts_ms is the transaction's begin time. */
        DIRECT
    }

    /** The shape of the change events the connector writes. */
    public enum EventFormat {
        /** Debezium's envelope: before, after, source, op, with their Connect schema. */
        ENVELOPE,
        /**
         * The row alone, as Debezium's {@code ExtractNewRecordState} makes it, with the fields the
         * pipeline needs added ({@code __op}, {@code __source_ts_ms}, the position): a fraction of
         * the bytes, and still a typed, standard format.
         */
        FLAT
    }

    public static final ConfigOption<EventFormat> EVENT_FORMAT =
            enumOption("event.format", EventFormat.class)
                    .defaultValue(EventFormat.FLAT)
                    .description(
                            "envelope: Debezium's change envelope; flat: the row with the"
                                    + " envelope's fields added by Debezium's ExtractNewRecordState"
                                    + " (a standard SMT, so the config still runs on any Connect"
                                    + " cluster with Debezium).")
                    .build();
    public static final ConfigOption<SourceKind> SOURCE_KIND =
            enumOption("source.kind", SourceKind.class)
                    .defaultValue(SourceKind.POSTGRES)
                    .description("The source database: postgres or sqlserver.")
                    .build();
    public static final ConfigOption<String> HOST =
            stringOption("source.host")
                    .defaultValue("127.0.0.1")
                    .description("Source host, as the Connect worker reaches it.")
                    .build();
    public static final ConfigOption<Integer> PORT =
            intOption("source.port")
                    .check(p -> p > 0 && p < 65536, "must be a TCP port")
                    .description("Source port; default 5432 for postgres, 1433 for sqlserver.")
                    .build();
    public static final ConfigOption<String> DATABASE =
            stringOption("source.database")
                    .defaultValue("cdclab")
                    .description("Source database.")
                    .build();
    public static final ConfigOption<String> USER =
            stringOption("source.user")
                    .description(
                            "Source user; default postgres (needs REPLICATION and, for FOR ALL"
                                    + " TABLES publications, superuser) or sa (sqlserver: enabling"
                                    + " CDC needs sysadmin).")
                    .build();
    public static final ConfigOption<String> PASSWORD =
            stringOption("source.password")
                    .secret()
                    .description(
                            "Source password; prefer the CDCLAB_SOURCE_PASSWORD environment"
                                    + " variable.")
                    .build();
    public static final ConfigOption<String> CAPTURE_ROLE =
            stringOption("role")
                    .check(
                            r -> r.matches("[a-z_][a-z0-9_]{0,62}"),
                            "must be a lower-case PostgreSQL role name ([a-z_][a-z0-9_]*)")
                    .description(
                            "postgres: a least-privilege role for the connector. Preparation (as"
                                    + " source.user) creates it with LOGIN and REPLICATION and a"
                                    + " fresh random password, grants it SELECT on the captured"
                                    + " schemas' tables (now and later) and UPDATE on the"
                                    + " heartbeat table, and creates the FOR ALL TABLES"
                                    + " publication itself; the connector then logs in as this"
                                    + " role. Embedded sources default to cdclab_capture; unset,"
                                    + " the connector logs in as source.user.")
                    .build();
    public static final ConfigOption<InitialLoad> INITIAL_LOAD =
            enumOption("initial.load", InitialLoad.class)
                    .defaultValue(InitialLoad.DEBEZIUM)
                    .description(
                            "postgres: how the tables that exist when capture starts reach the"
                                    + " warehouse. debezium (default): Debezium's snapshot.mode"
                                    + " decides, its rows through Kafka; direct: cdc-lab creates"
                                    + " the replication slot with its snapshot exported, reads"
                                    + " every table with COPY at that snapshot and writes it into"
                                    + " the warehouse in one transaction, then Debezium streams"
                                    + " from the slot (snapshot.mode=no_data), 6-10x faster; see"
                                    + " docs/limits.md for the difference cdc-lab fuzz found with"
                                    + " it. A slot that exists already is not loaded again, and a"
                                    + " load the pipeline stopped during stops the next start-up,"
                                    + " naming the slot. With captured.columns or a snapshot.mode"
                                    + " other than initial, Debezium reads the tables.")
                    .build();
    public static final ConfigOption<KeylessTables> KEYLESS_TABLES =
            enumOption("keyless.tables", KeylessTables.class)
                    .defaultValue(KeylessTables.REFUSE)
                    .description(
                            "postgres: tables with neither a primary key nor a replica identity"
                                    + " index refuse UPDATE and DELETE once a publication"
                                    + " publishes them. refuse (default): stop before creating"
                                    + " anything, naming them and the statement to run; full: set"
                                    + " REPLICA IDENTITY FULL on them, and (as a superuser) on"
                                    + " such tables created or altered later, through an event"
                                    + " trigger; exclude: publish only the tables that have one"
                                    + " (tables created later are then not captured). Sources"
                                    + " cdc-lab starts default to full.")
                    .build();
    public static final ConfigOption<String> CONNECTOR_NAME =
            stringOption("connector.name")
                    .defaultValue("cdclab-source")
                    .check(s -> s.matches("[A-Za-z0-9._-]+"), "must be [A-Za-z0-9._-]+")
                    .description("Name of the connector on the Connect cluster.")
                    .build();
    public static final ConfigOption<String> TOPIC_PREFIX =
            stringOption("topic.prefix")
                    .defaultValue("cdclab")
                    .check(s -> s.matches("[A-Za-z0-9_-]+"), "must be [A-Za-z0-9_-]+")
                    .description(
                            "Debezium topic.prefix; every captured table is routed to"
                                    + " <prefix>.changes.")
                    .build();
    public static final ConfigOption<String> SLOT =
            stringOption("slot.name")
                    .defaultValue("cdclab")
                    .check(
                            s -> s.matches("[a-z0-9_]{1,63}"),
                            "must be lower-case letters, digits or _ (at most 63)")
                    .description("postgres: logical replication slot.")
                    .build();
    public static final ConfigOption<String> PUBLICATION =
            stringOption("publication.name")
                    .defaultValue("cdclab")
                    .check(
                            s -> s.matches("[a-z0-9_]{1,63}"),
                            "must be lower-case letters, digits or _")
                    .description(
                            "postgres: publication, created FOR ALL TABLES so tables created later"
                                    + " are captured too.")
                    .build();
    public static final ConfigOption<String> SCHEMAS =
            stringOption("schemas")
                    .description(
                            "Comma-separated source schemas to capture; default public (postgres)"
                                    + " or dbo (sqlserver).")
                    .build();
    public static final ConfigOption<String> TABLES =
            stringOption("tables")
                    .description(
                            "sqlserver: comma-separated tables (schema.table) to enable CDC on;"
                                    + " default every table with a primary key in the captured"
                                    + " schemas when capture starts.")
                    .build();
    public static final ConfigOption<String> CAPTURED_COLUMNS =
            stringOption("captured.columns")
                    .description(
                            "Columns to capture: 'a,b,c' for every table, or 'table:a,b;other:x,y'"
                                    + " per table; include the key columns. sqlserver:"
                                    + " @captured_column_list; both: Debezium's"
                                    + " column.include.list. Default all columns.")
                    .build();
    public static final ConfigOption<String> KAFKA_BOOTSTRAP_SERVERS =
            stringOption("kafka.bootstrap.servers")
                    .description(
                            "sqlserver: Kafka as the Connect worker reaches it, for the"
                                    + " connector's schema history topic.")
                    .build();
    public static final ConfigOption<Integer> PARTITIONS =
            intOption("partitions")
                    .defaultValue(1)
                    .check(n -> n >= 1, "must be >= 1")
                    .description("Partitions of the change topics Connect creates.")
                    .build();
    public static final ConfigOption<Integer> REPLICATION_FACTOR =
            intOption("replication.factor")
                    .defaultValue(-1)
                    .check(n -> n == -1 || n >= 1, "must be -1 (broker default) or >= 1")
                    .description("Replication factor of the change topics Connect creates.")
                    .build();
    public static final ConfigOption<Duration> HEARTBEAT =
            durationOption("heartbeat.interval")
                    .defaultValue(Duration.ofMillis(250))
                    .check(d -> d.toMillis() >= 100, "must be >= 100ms")
                    .description(
                            "How often Debezium writes a heartbeat transaction to the source; it"
                                    + " closes net-change intervals while the source is idle, so"
                                    + " the last transaction before a pause waits up to this long.")
                    .build();
    public static final ConfigOption<String> SNAPSHOT_MODE =
            stringOption("snapshot.mode")
                    .defaultValue("initial")
                    .description("Debezium snapshot.mode (initial, no_data, ...).")
                    .build();
    public static final ConfigOption<Duration> POLL_INTERVAL =
            durationOption("poll.interval")
                    .check(d -> d.toMillis() >= 1, "must be >= 1ms")
                    .description(
                            "Debezium poll.interval.ms: how long the task waits for a fuller"
                                    + " batch; default 20ms (postgres: its 500 ms default is pure"
                                    + " latency under load) or Debezium's 500ms (sqlserver: each"
                                    + " poll queries the change tables).")
                    .build();
    public static final ConfigOption<Integer> MAX_BATCH_SIZE =
            intOption("max.batch.size")
                    .defaultValue(4096)
                    .check(n -> n >= 1, "must be >= 1")
                    .description("Debezium max.batch.size: events per batch handed to Connect.")
                    .build();
    public static final ConfigOption<Integer> MAX_QUEUE_SIZE =
            intOption("max.queue.size")
                    .defaultValue(32768)
                    .check(n -> n >= 1, "must be >= 1")
                    .description(
                            "Debezium max.queue.size: events buffered between the reader and"
                                    + " Connect (must exceed max.batch.size).")
                    .build();
    public static final ConfigOption<Integer> MAX_ITERATION_TRANSACTIONS =
            intOption("max.iteration.transactions")
                    .check(n -> n >= 0, "must be >= 0")
                    .description(
                            "sqlserver: Debezium max.iteration.transactions, transactions read per"
                                    + " polling iteration (0 = up to the current max LSN);"
                                    + " default Debezium's 500.")
                    .build();
    public static final ConfigOption<DataQueryMode> DATA_QUERY_MODE =
            enumOption("data.query.mode", DataQueryMode.class)
                    .defaultValue(DataQueryMode.FUNCTION)
                    .description(
                            "sqlserver: Debezium data.query.mode. function (default) reads the"
                                    + " change functions and stamps events with their commit time,"
                                    + " which net-change intervals are cut by; direct reads the"
                                    + " change tables faster, stamped with the transaction's begin"
                                    + " time.")
                    .build();
    public static final ConfigOption<Integer> SQLSERVER_MAXTRANS =
            intOption("sqlserver.capture.maxtrans")
                    .defaultValue(500)
                    .check(n -> n >= 1, "must be >= 1")
                    .description(
                            "sqlserver: capture job @maxtrans, transactions per scan cycle"
                                    + " (Microsoft's default 500).")
                    .build();
    public static final ConfigOption<Integer> SQLSERVER_MAXSCANS =
            intOption("sqlserver.capture.maxscans")
                    .defaultValue(10)
                    .check(n -> n >= 1, "must be >= 1")
                    .description(
                            "sqlserver: capture job @maxscans, scan cycles before it waits"
                                    + " (Microsoft's default 10).")
                    .build();
    public static final ConfigOption<Boolean> SQLSERVER_CONTINUOUS =
            booleanOption("sqlserver.capture.continuous")
                    .defaultValue(true)
                    .description(
                            "sqlserver: capture job @continuous; false runs one scan cycle and"
                                    + " stops.")
                    .build();
    public static final ConfigOption<Duration> SQLSERVER_POLLINGINTERVAL =
            durationOption("sqlserver.capture.pollinginterval")
                    .defaultValue(Duration.ofSeconds(5))
                    .check(
                            d -> d.toMillis() % 1000 == 0 && d.toSeconds() >= 0 && d.toHours() < 24,
                            "must be whole seconds, 0s..23h59m59s")
                    .description(
                            "sqlserver: capture job @pollinginterval, the wait between scan"
                                    + " cycles (Microsoft's default 5s).")
                    .build();
    public static final ConfigOption<Duration> SQLSERVER_RETENTION =
            durationOption("sqlserver.cleanup.retention")
                    .defaultValue(Duration.ofHours(72))
                    .check(
                            d -> d.toMillis() % 60_000 == 0 && d.toMinutes() >= 1,
                            "must be whole minutes, at least 1m")
                    .description(
                            "sqlserver: cleanup job @retention, how long change rows are kept"
                                    + " (Microsoft's default 72h).")
                    .build();
    public static final ConfigOption<Integer> SQLSERVER_THRESHOLD =
            intOption("sqlserver.cleanup.threshold")
                    .defaultValue(5000)
                    .check(n -> n >= 1, "must be >= 1")
                    .description(
                            "sqlserver: cleanup job @threshold, rows deleted per statement"
                                    + " (Microsoft's default 5000).")
                    .build();
    public static final ConfigOption<Boolean> SQLSERVER_NET_CHANGES =
            booleanOption("sqlserver.supports.net.changes")
                    .defaultValue(false)
                    .description(
                            "sqlserver: sp_cdc_enable_table @supports_net_changes; off because net"
                                    + " changes are computed downstream (on to reproduce the white"
                                    + " paper's table 7).")
                    .build();
    public static final ConfigOption<String> SQLSERVER_FILEGROUP =
            stringOption("sqlserver.filegroup")
                    .check(s -> s.matches("[A-Za-z_][A-Za-z0-9_]{0,127}"), "must be a plain name")
                    .description(
                            "sqlserver: filegroup for the change tables, created (with one file in"
                                    + " the instance's data directory) when missing; default the"
                                    + " database's default filegroup.")
                    .build();
    public static final ConfigOption<String> SQLSERVER_ROLE =
            stringOption("sqlserver.role.name")
                    .check(s -> s.matches("[A-Za-z_][A-Za-z0-9_]{0,127}"), "must be a plain name")
                    .description(
                            "sqlserver: sp_cdc_enable_table @role_name, the gating role for"
                                    + " change data; default none (NULL).")
                    .build();

    /** Every option, in documentation order. */
    public static final List<ConfigOption<?>> OPTIONS =
            List.of(
                    SOURCE_KIND,
                    HOST,
                    PORT,
                    DATABASE,
                    USER,
                    PASSWORD,
                    CAPTURE_ROLE,
                    KEYLESS_TABLES,
                    INITIAL_LOAD,
                    CONNECTOR_NAME,
                    TOPIC_PREFIX,
                    SLOT,
                    PUBLICATION,
                    SCHEMAS,
                    TABLES,
                    CAPTURED_COLUMNS,
                    KAFKA_BOOTSTRAP_SERVERS,
                    PARTITIONS,
                    REPLICATION_FACTOR,
                    dev.cdclab.config.RowLimit.MAX_ROW_BYTES,
                    HEARTBEAT,
                    SNAPSHOT_MODE,
                    EVENT_FORMAT,
                    POLL_INTERVAL,
                    MAX_BATCH_SIZE,
                    MAX_QUEUE_SIZE,
                    MAX_ITERATION_TRANSACTIONS,
                    DATA_QUERY_MODE,
                    SQLSERVER_MAXTRANS,
                    SQLSERVER_MAXSCANS,
                    SQLSERVER_CONTINUOUS,
                    SQLSERVER_POLLINGINTERVAL,
                    SQLSERVER_RETENTION,
                    SQLSERVER_THRESHOLD,
                    SQLSERVER_NET_CHANGES,
                    SQLSERVER_FILEGROUP,
                    SQLSERVER_ROLE);

    /** What capture does about tables without a key (see {@link #KEYLESS_TABLES}). */
    /** How existing tables reach the warehouse (see {@link #INITIAL_LOAD}). */
    public enum InitialLoad {
        /** COPY at the slot's exported snapshot, straight into the warehouse. */
        DIRECT,
        /** Debezium's own snapshot, through Kafka. */
        DEBEZIUM
    }

    public enum KeylessTables {
        /** stop, naming them. */
        REFUSE,
        /** give them REPLICA IDENTITY FULL, now and later. */
        FULL,
        /** leave them out of the publication. */
        EXCLUDE
    }

    private final Configuration config;

    public CaptureConfig(Configuration config) {
        this.config = config;
        if (get(MAX_QUEUE_SIZE) <= get(MAX_BATCH_SIZE)) {
            throw new ConfigException(
                    MAX_QUEUE_SIZE.key(), "must be larger than max.batch.size, as Debezium needs");
        }
        if (kind() == SourceKind.POSTGRES) {
            for (ConfigOption<?> o :
                    List.of(
                            TABLES,
                            MAX_ITERATION_TRANSACTIONS,
                            SQLSERVER_FILEGROUP,
                            SQLSERVER_ROLE)) {
                if (config.isSet(o)) {
                    throw new ConfigException(o.key(), "applies to source.kind=sqlserver only");
                }
            }
        }
        capturedColumns();
    }

    public static CaptureConfig of(Map<String, String> raw) {
        return new CaptureConfig(builder().setAll(raw).build());
    }

    /** A builder over the capture options (accepting {@code debezium.*} pass-through keys). */
    public static Configuration.Builder builder() {
        return Configuration.builder(OPTIONS).allowPrefix(DEBEZIUM_PREFIX);
    }

    public <T> T get(ConfigOption<T> option) {
        return config.get(option);
    }

    public Configuration raw() {
        return config;
    }

    public SourceKind kind() {
        return config.get(SOURCE_KIND);
    }

    /** The port, or the source's usual one. */
    public int port() {
        Integer p = config.get(PORT);
        return p != null ? p : kind() == SourceKind.SQLSERVER ? 1433 : 5432;
    }

    /** The user, or the source's usual administrator. */
    public String user() {
        String u = config.get(USER);
        return u != null ? u : kind() == SourceKind.SQLSERVER ? "sa" : "postgres";
    }

    /** The captured schemas, or the source's default one. */
    public List<String> schemas() {
        String s = config.get(SCHEMAS);
        if (s == null) {
            return List.of(kind() == SourceKind.SQLSERVER ? "dbo" : "public");
        }
        return Arrays.stream(s.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
    }

    /** Tables named by {@link #TABLES} ({@code schema.table}); empty means every table. */
    public List<String> tables() {
        String s = config.get(TABLES);
        if (s == null || s.isBlank()) {
            return List.of();
        }
        return Arrays.stream(s.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
    }

    /** The poll interval, or the source's default. */
    public Duration pollInterval() {
        Duration d = config.get(POLL_INTERVAL);
        return d != null
                ? d
                : kind() == SourceKind.SQLSERVER ? Duration.ofMillis(500) : Duration.ofMillis(20);
    }

    /**
     * The captured columns by table ({@code ""} for every table); empty when every column is
     * captured.
     *
     * @throws ConfigException when the list is malformed
     */
    public Map<String, List<String>> capturedColumns() {
        String s = config.get(CAPTURED_COLUMNS);
        Map<String, List<String>> out = new LinkedHashMap<>();
        if (s == null || s.isBlank()) {
            return out;
        }
        for (String part : s.split(";")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            String table = "";
            int colon = p.indexOf(':');
            if (colon >= 0) {
                table = p.substring(0, colon).trim();
                p = p.substring(colon + 1);
            }
            List<String> cols = new ArrayList<>();
            for (String c : p.split(",")) {
                String col = c.trim();
                if (!col.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                    throw new ConfigException(
                            CAPTURED_COLUMNS.key(), "'" + col + "' is not a plain column name");
                }
                cols.add(col);
            }
            if (cols.isEmpty() || (colon >= 0 && table.isEmpty())) {
                throw new ConfigException(
                        CAPTURED_COLUMNS.key(), "expected 'a,b' or 'table:a,b;table2:c' in " + s);
            }
            out.put(table.toLowerCase(Locale.ROOT), List.copyOf(cols));
        }
        return out;
    }

    /** The columns to capture of {@code table} (unqualified or qualified), or null for all. */
    public List<String> capturedColumns(String schema, String table) {
        Map<String, List<String>> m = capturedColumns();
        List<String> cols = m.get((schema + "." + table).toLowerCase(Locale.ROOT));
        if (cols == null) {
            cols = m.get(table.toLowerCase(Locale.ROOT));
        }
        return cols != null ? cols : m.get("");
    }

    /** The password from config, else from {@code CDCLAB_SOURCE_PASSWORD}; may be null. */
    public String password() {
        String p = config.get(PASSWORD);
        return p != null ? p : System.getenv("CDCLAB_SOURCE_PASSWORD");
    }

    /** JDBC URL of the source. */
    public String jdbcUrl() {
        return switch (kind()) {
            case POSTGRES -> "jdbc:postgresql://" + get(HOST) + ":" + port() + "/" + get(DATABASE);
            case SQLSERVER ->
                    "jdbc:sqlserver://"
                            + get(HOST)
                            + ":"
                            + port()
                            + ";databaseName="
                            + get(DATABASE)
                            + ";encrypt=true;trustServerCertificate=true";
        };
    }

    public Map<String, String> debeziumOverrides() {
        return config.passthrough(DEBEZIUM_PREFIX);
    }
}
