package dev.cdclab.capture;

import dev.cdclab.change.Lsn;
import dev.cdclab.config.RunNames;
import dev.cdclab.config.SourceKind;
import dev.cdclab.wait.Poll;
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
    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(PostgresCapture.class);

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

    /** Partitions (of partitioned tables) in the captured schemas when capture was prepared. */
    private List<String> partitions = List.of();

    /** Tables without a key when capture was prepared, and how each is captured. */
    private final Map<String, String> keylessTables = new LinkedHashMap<>();

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
        // prepare() creates the publication: FOR ALL TABLES (tables created while the pipeline
        // runs are captured without a restart) with publish_via_partition_root, which Debezium's
        // own creation does not set
        m.put("publication.autocreate.mode", "disabled");
        m.put("schema.include.list", DebeziumConnectorConfig.schemaList(config));
        // a snapshot reads a partitioned table through its root, and reading the partitions too
        // would give every row twice, under their names; the name map serves the DDL log only
        List<String> excluded = new ArrayList<>(partitions);
        excluded.add(TABLE_NAMES);
        excluded.add(COLUMN_NAMES);
        m.put(
                "table.exclude.list",
                excluded.stream()
                        .map(java.util.regex.Pattern::quote)
                        .collect(java.util.stream.Collectors.joining(",")));
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
        // incremental snapshots of one table on demand (resnapshot), signalled through a table of
        // the lab schema, their progress reported on the notification topic
        m.put("signal.enabled.channels", "source");
        m.put("signal.data.collection", SIGNAL_TABLE);
        m.put("incremental.snapshot.watermarking.strategy", "insert_delete");
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
                // sequence: the position of the last commit before the event's transaction, the
                // same for all its events, ordered as the stream is: windows are cut by it
                "lsn,txId,sequence");
    }

    /**
     * Creates the pipeline's replication slot with its snapshot exported, for a load of the tables
     * that exist as of the slot's first position; empty when the slot exists already (the stream
     * goes on from where it is, or Debezium reads the tables).
     *
     * @throws IllegalStateException when the slot cannot be created
     */
    public java.util.Optional<ExportedSlot> exportSlotIfNew() {
        String slot = config.get(CaptureConfig.SLOT);
        try (Connection c = connect();
                PreparedStatement ps =
                        c.prepareStatement(
                                "SELECT 1 FROM pg_replication_slots WHERE slot_name = ?")) {
            ps.setString(1, slot);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return java.util.Optional.empty();
                }
            }
            return java.util.Optional.of(ExportedSlot.create(jdbcUrl, props, slot));
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot create replication slot " + slot + ": " + e.getMessage(), e);
        }
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
     * Checks logical decoding is on; deals with the tables a publication would make refuse UPDATE
     * and DELETE (see {@link CaptureConfig#KEYLESS_TABLES}); creates the heartbeat table with one
     * row per partition, the connector's role when one is asked for, and the publication.
     *
     * @throws IllegalStateException naming what is missing or what stands in the way
     */
    @Override
    public void prepare() {
        check();
        String table = DebeziumConnectorConfig.HEARTBEAT_TABLE;
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            String publication = config.get(CaptureConfig.PUBLICATION);
            boolean published = publicationExists(s, publication);
            List<String> keyless = keylessTables(c);
            CaptureConfig.KeylessTables policy = config.get(CaptureConfig.KEYLESS_TABLES);
            if (!keyless.isEmpty() && policy == CaptureConfig.KeylessTables.REFUSE && !published) {
                throw new IllegalStateException(refusal(keyless));
            }
            s.execute("CREATE SCHEMA IF NOT EXISTS " + CaptureConfig.LAB_SCHEMA);
            s.execute(
                    "CREATE TABLE IF NOT EXISTS "
                            + table
                            + " (id INT PRIMARY KEY, ts TIMESTAMPTZ NOT NULL, reading TEXT)");
            // a table made before re-snapshots said which table they read
            s.execute("ALTER TABLE " + table + " ADD COLUMN IF NOT EXISTS reading TEXT");
            s.execute("DELETE FROM " + table);
            s.execute(
                    "CREATE TABLE IF NOT EXISTS "
                            + SIGNAL_TABLE
                            + " (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data"
                            + " VARCHAR(2048) NULL)");
            for (int id :
                    HeartbeatRows.idsFor(
                            config.get(CaptureConfig.TOPIC_PREFIX),
                            config.get(CaptureConfig.PARTITIONS))) {
                s.execute("INSERT INTO " + table + " (id, ts) VALUES (" + id + ", now())");
            }
            keylessTables.clear();
            if (policy == CaptureConfig.KeylessTables.FULL) {
                for (String t : keyless) {
                    s.execute("ALTER TABLE " + t + " REPLICA IDENTITY FULL");
                    keylessTables.put(t, "REPLICA IDENTITY FULL, set by cdc-lab");
                }
            } else if (policy == CaptureConfig.KeylessTables.EXCLUDE) {
                keyless.forEach(t -> keylessTables.put(t, "not captured (keyless.tables=exclude)"));
            }
            installDdlTriggers(s, policy == CaptureConfig.KeylessTables.FULL);
            String role = config.get(CaptureConfig.CAPTURE_ROLE);
            if (role != null) {
                prepareRole(s, role);
            }
            if (!published) {
                createPublication(c, s, publication, policy, keyless);
            }
            partitions = partitions(c);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot prepare source: " + e.getMessage(), e);
        }
    }

    /**
     * Tables of the captured schemas with neither a primary key nor a replica identity that names a
     * row: published, they refuse UPDATE and DELETE. Quoted, {@code schema.table}.
     */
    private List<String> keylessTables(Connection c) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT format('%I.%I', n.nspname, c.relname) FROM pg_class c JOIN"
                                + " pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN"
                                + " ('r', 'p') AND n.nspname = ANY (?) AND (c.relreplident = 'n'"
                                + " OR (c.relreplident = 'd' AND NOT EXISTS (SELECT 1 FROM"
                                + " pg_index i WHERE i.indrelid = c.oid AND i.indisprimary)))"
                                + " ORDER BY 1")) {
            ps.setArray(1, c.createArrayOf("text", config.schemas().toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    private static String refusal(List<String> keyless) {
        String list = String.join(", ", keyless.subList(0, Math.min(5, keyless.size())));
        if (keyless.size() > 5) {
            list += " and " + (keyless.size() - 5) + " more";
        }
        return keyless.size()
                + " table(s) without a primary key would refuse UPDATE and DELETE once published: "
                + list
                + ". Run ALTER TABLE <table> REPLICA IDENTITY FULL on each, or set -D"
                + " capture.keyless.tables=full to have cdc-lab do it (now and for tables created"
                + " later), or =exclude to capture only tables with a key";
    }

    /**
     * Event triggers, in the DDL statement's own transaction: with {@code keyless.tables=full},
     * tables created or altered later without a key get {@code REPLICA IDENTITY FULL}, so the
     * publication never makes the application's UPDATE or DELETE fail; and every rename or drop of
     * a table in the captured schemas is logged to {@link #DDL_TABLE}, which is captured, so the
     * warehouse follows it at its position. A map of table oids to names ({@link #TABLE_NAMES}, not
     * captured) tells a rename's old name. Event triggers need a superuser; without one, a warning
     * says what remains to do by hand.
     */
    private void installDdlTriggers(Statement s, boolean keylessFull) throws SQLException {
        boolean superuser;
        try (ResultSet rs =
                s.executeQuery("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")) {
            superuser = rs.next() && rs.getBoolean(1);
        }
        if (!superuser) {
            LOG.warn(
                    "{} is not a superuser, so no event trigger follows DDL: tables created later"
                            + " without a key need REPLICA IDENTITY FULL before they are updated,"
                            + " and a renamed or dropped table is not followed in the warehouse",
                    config.user());
            return;
        }
        String lab = CaptureConfig.LAB_SCHEMA;
        String schemas =
                config.schemas().stream()
                        .map(x -> "'" + x.replace("'", "''") + "'")
                        .collect(java.util.stream.Collectors.joining(", "));
        s.execute(
                "CREATE TABLE IF NOT EXISTS "
                        + DDL_TABLE
                        + " (id BIGSERIAL PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL,"
                        + " new_name TEXT, at TIMESTAMPTZ NOT NULL DEFAULT now())");
        // a log made before columns were followed
        s.execute(
                "ALTER TABLE "
                        + DDL_TABLE
                        + " ADD COLUMN IF NOT EXISTS old_column TEXT, ADD COLUMN IF NOT EXISTS"
                        + " new_column TEXT, ADD COLUMN IF NOT EXISTS type_name TEXT, ADD COLUMN IF"
                        + " NOT EXISTS type_mod INTEGER, ADD COLUMN IF NOT EXISTS type_text TEXT,"
                        + " ADD COLUMN IF NOT EXISTS default_text TEXT, ADD COLUMN IF NOT EXISTS"
                        + " volatile_default BOOLEAN, ADD COLUMN IF NOT EXISTS old_type_text TEXT");
        s.execute(
                "CREATE TABLE IF NOT EXISTS "
                        + TABLE_NAMES
                        + " (relid OID PRIMARY KEY, name TEXT NOT NULL)");
        s.execute(
                "CREATE TABLE IF NOT EXISTS "
                        + COLUMN_NAMES
                        + " (relid OID, attnum SMALLINT, name TEXT NOT NULL, type TEXT, PRIMARY KEY"
                        + " (relid, attnum))");
        s.execute("ALTER TABLE " + COLUMN_NAMES + " ADD COLUMN IF NOT EXISTS type TEXT");
        s.execute(
                "INSERT INTO "
                        + COLUMN_NAMES
                        + " SELECT a.attrelid, a.attnum, a.attname, format_type(a.atttypid,"
                        + " a.atttypmod) FROM pg_attribute a JOIN pg_class c ON c.oid ="
                        + " a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE"
                        + " c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped AND"
                        + " n.nspname IN ("
                        + schemas
                        + ") ON CONFLICT (relid, attnum) DO UPDATE SET name = EXCLUDED.name, type"
                        + " = EXCLUDED.type");
        // a table that loses its key gets REPLICA IDENTITY FULL, marked as set here; one that
        // gets a key back has it taken back, so its changes are keyed again (and the decoder
        // tells a FULL change made before the key from one made after: see the
        // cdc-lab-debezium-postgres module)
        String keyless =
                keylessFull
                        ? " IF r.relreplident = 'd' AND keycols IS NULL THEN EXECUTE"
                                + " format('ALTER TABLE %I.%I REPLICA IDENTITY FULL', r.nspname,"
                                + " r.relname); UPDATE "
                                + TABLE_NAMES
                                + " SET full_by_lab = true WHERE relid = r.objid; ELSIF"
                                + " r.relreplident = 'f' AND keycols IS NOT NULL AND"
                                + " COALESCE(labfull, false) THEN EXECUTE format('ALTER TABLE %I.%I"
                                + " REPLICA IDENTITY DEFAULT', r.nspname, r.relname); UPDATE "
                                + TABLE_NAMES
                                + " SET full_by_lab = false WHERE relid = r.objid; END IF;"
                        : "";
        s.execute(
                "ALTER TABLE "
                        + TABLE_NAMES
                        + " ADD COLUMN IF NOT EXISTS key_columns TEXT, ADD COLUMN IF NOT EXISTS"
                        + " full_by_lab BOOLEAN NOT NULL DEFAULT false");
        String ddlSql =
                DdlTriggerSql.captureDdl()
                        .replace("${lab}", lab)
                        .replace("${schemas}", schemas)
                        .replace("${keyless}", keyless)
                        .replace("${table_names}", TABLE_NAMES)
                        .replace("${column_names}", COLUMN_NAMES)
                        .replace("${ddl}", DDL_TABLE);
        s.execute(ddlSql);
        s.execute(
                "INSERT INTO "
                        + TABLE_NAMES
                        + " (relid, name, key_columns) SELECT c.oid, n.nspname || '.' || c.relname, "
                        + lab
                        + ".key_columns(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid ="
                        + " c.relnamespace WHERE c.relkind IN ('r', 'p') AND n.nspname IN ("
                        + schemas
                        + ") ON CONFLICT (relid) DO UPDATE SET name = EXCLUDED.name, key_columns ="
                        + " EXCLUDED.key_columns");
        for (var e : keylessTables.entrySet()) {
            if (e.getValue().startsWith("REPLICA IDENTITY FULL, set by cdc-lab")) {
                s.execute(
                        "UPDATE "
                                + TABLE_NAMES
                                + " SET full_by_lab = true WHERE relid = '"
                                + e.getKey().replace("'", "''")
                                + "'::regclass");
            }
        }

        s.execute(
                "CREATE OR REPLACE FUNCTION "
                        + lab
                        + ".capture_drop() RETURNS event_trigger LANGUAGE plpgsql"
                        + DEFINER
                        + " AS $$ DECLARE r"
                        + " record; BEGIN FOR r IN SELECT o.objid, o.schema_name, o.object_name"
                        + " FROM pg_event_trigger_dropped_objects() o WHERE o.classid ="
                        + " 'pg_class'::regclass AND o.object_type = 'table' AND NOT"
                        + " o.is_temporary AND o.schema_name IN ("
                        + schemas
                        + ") LOOP INSERT INTO "
                        + DDL_TABLE
                        + " (kind, name) VALUES ('drop', r.schema_name || '.' || r.object_name);"
                        + " DELETE FROM "
                        + TABLE_NAMES
                        + " WHERE relid = r.objid; DELETE FROM "
                        + COLUMN_NAMES
                        + " WHERE relid = r.objid; END LOOP; END $$");
        s.execute("DROP EVENT TRIGGER IF EXISTS " + DDL_TRIGGER);
        s.execute("DROP EVENT TRIGGER IF EXISTS " + DROP_TRIGGER);
        s.execute(
                "CREATE EVENT TRIGGER "
                        + DDL_TRIGGER
                        + " ON ddl_command_end WHEN TAG IN ('CREATE TABLE', 'CREATE TABLE AS',"
                        + " 'SELECT INTO', 'ALTER TABLE') EXECUTE FUNCTION "
                        + lab
                        + ".capture_ddl()");
        s.execute(
                "CREATE EVENT TRIGGER "
                        + DROP_TRIGGER
                        + " ON sql_drop WHEN TAG IN ('DROP TABLE') EXECUTE FUNCTION "
                        + lab
                        + ".capture_drop()");
        ddlTriggers = true;
    }

    /** Debezium's signal table: an insert of an {@code execute-snapshot} row starts one. */
    public static final String SIGNAL_TABLE = CaptureConfig.LAB_SCHEMA + ".debezium_signal";

    /** Where the connector reports its snapshots' progress, under the run's prefix. */
    public static String notificationTopic(CaptureConfig c) {
        return RunNames.notificationTopic(c.get(CaptureConfig.TOPIC_PREFIX));
    }

    @Override
    public long resnapshot(String table, Duration timeout) {
        String id = "cdclab-resnapshot-" + Long.toHexString(System.nanoTime());
        String topic = notificationTopic(config);
        Properties p = new Properties();
        p.put("bootstrap.servers", config.get(CaptureConfig.KAFKA_BOOTSTRAP_SERVERS));
        p.put("key.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class);
        p.put("value.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class);
        p.put("enable.auto.commit", "false");
        Poll poll = Poll.within(timeout).every(Duration.ofMillis(200));
        try (Connection c = connect();
                Statement s = c.createStatement();
                var consumer =
                        new org.apache.kafka.clients.consumer.KafkaConsumer<String, String>(p)) {
            String from;
            try (ResultSet rs = s.executeQuery("SELECT pg_current_wal_insert_lsn()::text")) {
                rs.next();
                // every row the snapshot reads, and every change after, is logged past this
                from = dev.cdclab.change.SourcePosition.postgres(Lsn.parse(rs.getString(1)));
            }
            // every partition sees a position past it before the first row read: the rows go
            // after the last position their partition has seen. Twice: a position starts with
            // the commit before its transaction, which for the first may still be before `from`.
            // The heartbeat row names the table: from here the net-change app keeps the keys the
            // log changes, and drops a row read again for one of them
            for (int i = 0; i < 2; i++) {
                markReading(c, table);
            }
            awaitTransactionsInProgress(c, table, poll);
            try (PreparedStatement ps =
                    c.prepareStatement(
                            "INSERT INTO "
                                    + SIGNAL_TABLE
                                    + " (id, type, data) VALUES (?, 'execute-snapshot', ?)")) {
                ps.setString(1, id);
                var data = new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode();
                data.putArray("data-collections").add(java.util.regex.Pattern.quote(table));
                data.put("type", "incremental");
                ps.setString(2, data.toString());
                ps.executeUpdate();
            }
            long rows = awaitSnapshot(consumer, topic, id, table, poll);
            try (PreparedStatement ps =
                    c.prepareStatement(
                            "INSERT INTO "
                                    + DDL_TABLE
                                    + " (kind, name, new_name) VALUES ('snapshot', ?, ?)")) {
                ps.setString(1, table);
                ps.setString(2, from);
                ps.executeUpdate();
            }
            markReading(c, null);
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot re-snapshot " + table + ": " + e.getMessage(), e);
        }
    }

    /** Names the table a re-snapshot reads (null: none) in every partition's heartbeat row. */
    private static void markReading(Connection c, String table) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "UPDATE "
                                + DebeziumConnectorConfig.HEARTBEAT_TABLE
                                + " SET ts = now(), reading = ?")) {
            ps.setString(1, table);
            ps.executeUpdate();
        }
    }

    /**
     * Waits, as {@code CREATE INDEX CONCURRENTLY} does, until every transaction that had written
     * when the heartbeat row named the table has ended. A transaction whose commit is logged is
     * invisible until its backend has flushed it (and heard from synchronous standbys): one logged
     * before the heartbeat but still invisible to a chunk's {@code SELECT} would put its row's
     * value from before it behind its change, and the net-change app would not know the key.
     */
    private static void awaitTransactionsInProgress(Connection c, String table, Poll overall)
            throws SQLException {
        long horizon;
        try (Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT txid_snapshot_xmax(txid_current_snapshot())")) {
            rs.next();
            horizon = rs.getLong(1);
        }
        Poll poll =
                Poll.within(overall.remaining())
                        .backoff(Duration.ofMillis(2), Duration.ofMillis(200));
        try (PreparedStatement ended =
                c.prepareStatement("SELECT txid_snapshot_xmin(txid_current_snapshot()) >= ?")) {
            ended.setLong(1, horizon);
            while (true) {
                try (ResultSet rs = ended.executeQuery()) {
                    rs.next();
                    if (rs.getBoolean(1)) {
                        return;
                    }
                }
                if (poll.expired()) {
                    String writers = openWriters(c);
                    markReading(c, null);
                    throw new IllegalStateException(
                            "cannot re-snapshot "
                                    + table
                                    + ": transactions open when it began have not ended within "
                                    + overall.timeout().toSeconds()
                                    + " s (backends "
                                    + writers
                                    + ")");
                }
                poll.pause();
            }
        }
    }

    /** Process ids of the sessions holding a transaction id, oldest first. */
    private static String openWriters(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT string_agg(pid::text, ', ' ORDER BY xact_start) FROM"
                                        + " pg_stat_activity WHERE backend_xid IS NOT NULL AND pid <>"
                                        + " pg_backend_pid()")) {
            String pids = rs.next() ? rs.getString(1) : null;
            return pids == null ? "none: a prepared transaction?" : pids;
        }
    }

    /** Reads the connector's notifications until the snapshot {@code id} completes. */
    private static long awaitSnapshot(
            org.apache.kafka.clients.consumer.KafkaConsumer<String, String> consumer,
            String topic,
            String id,
            String table,
            Poll poll) {
        com.fasterxml.jackson.databind.ObjectMapper mapper =
                new com.fasterxml.jackson.databind.ObjectMapper();
        boolean assigned = false;
        long rows = 0;
        while (!poll.expired()) {
            if (!assigned) {
                var parts = consumer.partitionsFor(topic, Duration.ofSeconds(2));
                if (parts == null || parts.isEmpty()) {
                    poll.pause();
                    continue;
                }
                var tps =
                        parts.stream()
                                .map(
                                        i ->
                                                new org.apache.kafka.common.TopicPartition(
                                                        i.topic(), i.partition()))
                                .toList();
                consumer.assign(tps);
                consumer.seekToBeginning(tps);
                assigned = true;
            }
            for (var r : consumer.poll(Duration.ofMillis(200))) {
                com.fasterxml.jackson.databind.JsonNode n;
                try {
                    n = mapper.readTree(r.value());
                } catch (java.io.IOException e) {
                    continue;
                }
                if (n.has("payload")) {
                    n = n.get("payload");
                }
                if (!id.equals(n.path("id").asText())) {
                    continue;
                }
                String type = n.path("type").asText();
                var data = n.path("additional_data");
                if (type.equals("TABLE_SCAN_COMPLETED")) {
                    String status = data.path("status").asText();
                    if (!status.equals("SUCCEEDED") && !status.equals("EMPTY")) {
                        throw new IllegalStateException(
                                "cannot re-snapshot "
                                        + table
                                        + ": the connector reports "
                                        + status
                                        + (status.equals("NO_PRIMARY_KEY")
                                                ? " (Debezium's incremental snapshot needs a key)"
                                                : ""));
                    }
                    rows += data.path("total_rows_scanned").asLong(0);
                } else if (type.equals("ABORTED")) {
                    throw new IllegalStateException(
                            "cannot re-snapshot " + table + ": the connector aborted it");
                } else if (type.equals("COMPLETED")) {
                    return rows;
                }
            }
        }
        throw new IllegalStateException(
                "re-snapshot of "
                        + table
                        + " did not complete in time; it goes on in the connector");
    }

    /** The captured log of table renames and drops. */
    public static final String DDL_TABLE = CaptureConfig.LAB_SCHEMA + ".ddl_events";

    /** Table oids to names, for telling a rename's old name; not captured. */
    static final String TABLE_NAMES = CaptureConfig.LAB_SCHEMA + ".table_names";

    /** Each table's column numbers to names, for telling a column rename; not captured. */
    static final String COLUMN_NAMES = CaptureConfig.LAB_SCHEMA + ".column_names";

    private static final String DDL_TRIGGER = "cdc_lab_capture_ddl";

    /**
     * The event triggers' functions run as the superuser that installed them: an application's role
     * that may alter its tables need not write cdc-lab's log for its DDL to succeed.
     */
    private static final String DEFINER = " SECURITY DEFINER SET search_path = pg_catalog, pg_temp";

    private static final String DROP_TRIGGER = "cdc_lab_capture_drop";
    private boolean ddlTriggers;

    private static boolean publicationExists(Statement s, String publication) throws SQLException {
        try (ResultSet rs =
                s.executeQuery(
                        "SELECT 1 FROM pg_publication WHERE pubname = '"
                                + publication.replace("'", "''")
                                + "'")) {
            return rs.next();
        }
    }

    /**
     * {@code FOR ALL TABLES}, or, when tables without a key are excluded, for the tables of the
     * captured schemas that have one and the heartbeat table; with {@code
     * publish_via_partition_root}, so a partitioned table's changes carry its own name.
     */
    private void createPublication(
            Connection c,
            Statement s,
            String publication,
            CaptureConfig.KeylessTables policy,
            List<String> keyless)
            throws SQLException {
        String tables;
        if (policy == CaptureConfig.KeylessTables.EXCLUDE) {
            List<String> keyed = new ArrayList<>();
            try (PreparedStatement ps =
                    c.prepareStatement(
                            "SELECT format('%I.%I', n.nspname, c.relname) FROM pg_class c JOIN"
                                    + " pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind"
                                    + " IN ('r', 'p') AND NOT c.relispartition AND n.nspname ="
                                    + " ANY (?) ORDER BY 1")) {
                ps.setArray(1, c.createArrayOf("text", config.schemas().toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        if (!keyless.contains(rs.getString(1))) {
                            keyed.add(rs.getString(1));
                        }
                    }
                }
            }
            keyed.add(DebeziumConnectorConfig.HEARTBEAT_TABLE);
            keyed.add(DDL_TABLE);
            keyed.add(SIGNAL_TABLE);
            tables = "FOR TABLE " + String.join(", ", keyed);
        } else {
            tables = "FOR ALL TABLES";
        }
        s.execute(
                "CREATE PUBLICATION "
                        + quote(publication)
                        + " "
                        + tables
                        + " WITH (publish_via_partition_root = true"
                        + (publishesGeneratedColumns(c)
                                ? ", publish_generated_columns = stored"
                                : "")
                        + ")");
    }

    /**
     * Whether the source's logical decoding can carry stored generated columns: PostgreSQL 18 and
     * later, through the publication's {@code publish_generated_columns}. Before 18 the stream
     * leaves them out, and {@code verify} names them.
     */
    static boolean publishesGeneratedColumns(Connection c) throws SQLException {
        return c.getMetaData().getDatabaseMajorVersion() >= 18;
    }

    /** Partitions of partitioned tables in the captured schemas, as {@code schema.table}. */
    private List<String> partitions(Connection c) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n"
                                + " ON n.oid = c.relnamespace WHERE c.relispartition AND"
                                + " n.nspname = ANY (?) ORDER BY 1")) {
            ps.setArray(1, c.createArrayOf("text", config.schemas().toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return List.copyOf(out);
    }

    /** Tables without a key when capture was prepared, and how each is captured. */
    @Override
    public Map<String, String> keylessTables() {
        return Map.copyOf(keylessTables);
    }

    /**
     * The connector's least-privilege role: LOGIN and REPLICATION, SELECT on what it captures,
     * UPDATE on the heartbeat table.
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
        // the connector writes its snapshot watermarks there
        s.execute("GRANT INSERT, DELETE ON " + SIGNAL_TABLE + " TO " + r);
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
        if (ddlTriggers) {
            try (Connection c = connect();
                    Statement s = c.createStatement()) {
                s.execute("DROP EVENT TRIGGER IF EXISTS " + DDL_TRIGGER);
                s.execute("DROP EVENT TRIGGER IF EXISTS " + DROP_TRIGGER);
            } catch (SQLException e) {
                throw new IllegalStateException(
                        "cannot drop cdc-lab's event triggers: " + e.getMessage(), e);
            }
        }
    }

    /**
     * Drops the replication slot once no walsender holds it, waiting up to {@code wait} for the
     * connector's task to let go; no error when it does not exist.
     *
     * @throws IllegalStateException when it is still active after {@code wait}
     */
    public void dropSlot(String slot, Duration wait) {
        Poll poll = Poll.within(wait).every(Duration.ofMillis(100));
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
                if (poll.expired()) {
                    throw new IllegalStateException(
                            "replication slot " + slot + " is still in use; not dropped");
                }
                poll.pause();
            }
            drop.setString(1, slot);
            drop.execute();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot drop slot " + slot + ": " + e.getMessage(), e);
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
