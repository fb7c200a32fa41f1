package dev.cdclab.sink.warehouse;

import static dev.cdclab.sink.warehouse.MergeSql.quote;

import dev.cdclab.change.ColumnSpec;
import dev.cdclab.config.OneLineError;
import java.io.IOException;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL (15+) warehouse: rows are staged with COPY into a temporary table, then merged with
 * MERGE. Unlike DuckDB it takes several concurrent sink instances.
 */
public final class PostgresWarehouseDialect extends SqlWarehouseDialect {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresWarehouseDialect.class);

    /**
     * One statement, as the driver would split the text (it sends several in one round trip, where
     * a {@code COMMIT} would end the read-only transaction), in a session whose every transaction
     * is read-only: PostgreSQL itself refuses each write. The role the reader connects as ({@code
     * query.user}) should hold no write grants either: then nothing the statement does can write.
     */
    @Override
    public void beginReadOnly(Connection reader, String sql) throws SQLException {
        List<org.postgresql.core.NativeQuery> parsed =
                org.postgresql.core.Parser.parseJdbcSql(sql, true, false, true, false, false);
        if (parsed.size() != 1) {
            throw new ReadOnlyQuery.RefusedException(
                    parsed.isEmpty() ? "no statement" : "one statement at a time");
        }
        try (Statement s = reader.createStatement()) {
            s.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY");
        }
        reader.setAutoCommit(false);
        reader.setReadOnly(true);
    }

    /**
     * Merges of at most this many staged rows run as prepared statements, which the driver prepares
     * on the server from their fifth use on. PostgreSQL then plans such a merge once and keeps the
     * plan until a table it reads changes (its statistics, its columns): planned for a stage this
     * small, it looks the rows up by the warehouse table's key, which suits every smaller stage
     * too. Larger merges are planned each time; planning costs little against their rows, and a
     * plan made for a large stage (a scan of the whole table) is not kept for small ones.
     */
    static final int PREPARED_MAX_ROWS = 256;

    /** A staging table and the statements that use it, per table and column signature. */
    private record Stage(
            String name, String empty, String merge, String tombstones, String insertAll) {}

    private final Map<String, Stage> stages = new HashMap<>();
    private int stagesCreated;

    /**
     * The most the writer's session lets the planner assume for a random page read. PostgreSQL's
     * default (4) is a spinning disk's; with it, a merge of a few hundred staged rows into a table
     * of up to about 100,000 rows reads the whole table and hashes it (11 ms at 60,000 rows) where
     * looking the rows up by key takes a fraction. 1.1 is the usual figure for a server on SSD or
     * in memory. A server set lower keeps its own.
     */
    static final String RANDOM_PAGE_COST = "1.1";

    @Override
    public String name() {
        return "postgresql";
    }

    @Override
    public Connection connect(String url, String user, String password) throws SQLException {
        Properties p = new Properties();
        if (user != null) {
            p.setProperty("user", user);
        }
        if (password != null) {
            p.setProperty("password", password);
        }
        Connection c = DriverManager.getConnection(url, p);
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT set_config('random_page_cost', ?, false) WHERE"
                                + " current_setting('random_page_cost')::float8 > ?::float8")) {
            ps.setString(1, RANDOM_PAGE_COST);
            ps.setString(2, RANDOM_PAGE_COST);
            ps.executeQuery().close();
        } catch (SQLException e) {
            c.close();
            throw e;
        }
        c.setAutoCommit(false);
        return c;
    }

    @Override
    public String sqlType(ColumnKind kind, ColumnSpec c) {
        return switch (kind) {
            case INT16 -> "SMALLINT";
            case INT32 -> "INTEGER";
            case INT64, INTERVAL_MICROS -> "BIGINT";
            case FLOAT32 -> "REAL";
            case FLOAT64 -> "DOUBLE PRECISION";
            case DECIMAL -> "NUMERIC(" + c.length() + "," + c.scale() + ")";
            case MONEY ->
                    "NUMERIC(" + ColumnKind.MONEY_PRECISION + "," + ColumnKind.moneyScale(c) + ")";
            case BOOLEAN -> "BOOLEAN";
            case DATE -> "DATE";
            case TIMESTAMP -> "TIMESTAMP";
            case TIMESTAMPTZ -> "TIMESTAMPTZ";
            case TIME -> "TIME";
            case INTERVAL -> "INTERVAL";
            case BYTES -> "BYTEA";
            case UUID -> "UUID";
            case JSON -> "JSONB";
            case BITS -> "BIT VARYING";
            case XML -> "XML";
            case TSVECTOR -> "TSVECTOR";
            case POINT -> "POINT";
            // ColumnKind names only PostgreSQL's own network and range types
            case NETWORK, RANGE -> c.sourceType().toUpperCase(Locale.ROOT);
            case ARRAY -> sqlType(ColumnKind.elementOf(c), c.element()) + "[]";
            case NUMERIC_TEXT, TEXT -> "TEXT";
        };
    }

    @Override
    protected String cast(String expr, ColumnKind kind, ColumnSpec c) {
        return switch (kind) {
            case TEXT, NUMERIC_TEXT -> expr;
            case BYTES -> "decode(" + expr + ", 'hex')";
            case POINT ->
                    "point(CAST(CAST("
                            + expr
                            + " AS JSONB)->>'x' AS DOUBLE PRECISION), CAST(CAST("
                            + expr
                            + " AS JSONB)->>'y' AS DOUBLE PRECISION))";
            // a JSON array of the elements' texts, each cast as a value of the element's kind,
            // in their order
            case ARRAY ->
                    "CASE WHEN "
                            + expr
                            + " IS NULL THEN NULL ELSE ARRAY(SELECT "
                            + cast("_e.v", ColumnKind.elementOf(c), c.element())
                            + " FROM jsonb_array_elements_text(CAST("
                            + expr
                            + " AS JSONB)) WITH ORDINALITY AS _e(v, n) ORDER BY _e.n) END";
            default -> "CAST(" + expr + " AS " + sqlType(kind, c) + ")";
        };
    }

    /**
     * A transaction-level advisory lock: concurrent {@code CREATE ... IF NOT EXISTS} of one name
     * from two sessions otherwise fails in the catalog ({@code pg_type_typname_nsp_index}).
     */
    @Override
    protected void lockCatalog(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SELECT pg_advisory_xact_lock(hashtext('cdc_lab.catalog'))");
        }
    }

    @Override
    public void createMetadataTables(Connection c) throws SQLException {
        lockCatalog(c);
        try (Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS cdc_lab");
            s.execute(
                    "CREATE TABLE IF NOT EXISTS cdc_lab.tombstones (table_name TEXT, key TEXT, lsn"
                            + " TEXT COLLATE \"C\", commit_ms BIGINT, PRIMARY KEY (table_name,"
                            + " key))");
            // warehouses written before tombstones were pruned. Only then: ALTER takes the table's
            // exclusive lock even when the column is there, and a sink applying beside this one
            // holds a lock on the table and waits for the catalog lock this session holds
            if (!hasColumn(s, "tombstones", "commit_ms")) {
                s.execute(
                        "ALTER TABLE cdc_lab.tombstones ADD COLUMN IF NOT EXISTS commit_ms BIGINT");
            }
            s.execute(
                    "CREATE TABLE IF NOT EXISTS cdc_lab.progress (id INTEGER PRIMARY KEY,"
                            + " applied_through_ms BIGINT, committed_at_ms BIGINT)");
            s.execute(
                    "CREATE TABLE IF NOT EXISTS cdc_lab.table_state (table_name TEXT PRIMARY KEY,"
                            + " emptied_at TEXT COLLATE \"C\", keyless_through TEXT COLLATE \"C\","
                            + " diverged TEXT, schema_at TEXT COLLATE \"C\", moves TEXT)");
            // warehouses written before schema positions and moves were kept (only then: see
            // the tombstones above)
            if (!hasColumn(s, "table_state", "moves")) {
                s.execute(
                        "ALTER TABLE cdc_lab.table_state ADD COLUMN IF NOT EXISTS schema_at TEXT"
                                + " COLLATE \"C\", ADD COLUMN IF NOT EXISTS moves TEXT");
            }
            if (!hasColumn(s, "table_state", "column_changes")) {
                s.execute("ALTER TABLE cdc_lab.table_state ADD COLUMN column_changes TEXT");
            }
            s.execute(
                    "CREATE TABLE IF NOT EXISTS cdc_lab.initial_loads (slot TEXT, state TEXT, at_ms"
                            + " BIGINT)");
            StagingArea.createTables(s);
        }
        c.commit();
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

    @Override
    protected String rowId() {
        return "ctid";
    }

    @Override
    protected boolean hasEquality(ColumnKind kind) {
        return kind != ColumnKind.XML && kind != ColumnKind.POINT;
    }

    @Override
    protected void createKeylessStage(Connection c, String stage, List<ColumnSpec> columns)
            throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(
                    "CREATE TEMP TABLE IF NOT EXISTS "
                            + stage
                            + " (_seq INTEGER, _old BOOLEAN, _lsn TEXT COLLATE \"C\", _commit_ms"
                            + " BIGINT"
                            + columns.stream()
                                    .map(col -> ", " + quote(col.name()) + " TEXT")
                                    .collect(Collectors.joining())
                            + ") ON COMMIT DELETE ROWS");
            analyzeEmpty(s, stage);
        }
    }

    /**
     * Analyzes a stage while it is empty. A table never analyzed is planned as at least ten pages
     * (about 200 staged rows), which makes a merge of a few rows hash-join a scan of the whole
     * warehouse table and of its tombstones; once analyzed, the planner sizes the stage by its
     * pages at each merge, and the commit that empties it keeps those statistics.
     */
    private static void analyzeEmpty(Statement s, String stage) throws SQLException {
        s.execute("DELETE FROM " + stage);
        s.execute("ANALYZE " + stage);
    }

    @Override
    protected void loadKeylessStage(Connection c, String stage, List<KeylessStaged> rows)
            throws SQLException {
        StringBuilder csv = new StringBuilder(rows.size() * 128);
        for (KeylessStaged r : rows) {
            csv.append(r.seq())
                    .append(',')
                    .append(r.old())
                    .append(',')
                    .append(r.position())
                    .append(',')
                    .append(r.commitMs());
            for (String v : r.values()) {
                csv.append(',');
                if (v != null) {
                    quoteCsv(csv, v);
                }
            }
            csv.append('\n');
        }
        copy(c, stage, csv);
    }

    private static void copy(Connection c, String stage, StringBuilder csv) throws SQLException {
        try {
            c.unwrap(PGConnection.class)
                    .getCopyAPI()
                    .copyIn(
                            "COPY " + stage + " FROM STDIN WITH (FORMAT csv)",
                            new StringReader(csv.toString()));
        } catch (IOException e) {
            throw new SQLException("COPY into " + stage + " failed", e);
        }
    }

    /**
     * The primary key follows the source's: dropped when the source's is, replaced when its columns
     * change. A new key that the rows already there would violate is not added (the merge still
     * matches by it), and a warning says so.
     */
    @Override
    public void keyChanged(Connection c, TableName t, List<ColumnSpec> columns)
            throws SQLException {
        lockCatalog(c);
        String pkName = null;
        List<String> pkColumns = new ArrayList<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT k.conname, a.attname FROM pg_constraint k JOIN pg_attribute a ON"
                                + " a.attrelid = k.conrelid AND a.attnum = ANY (k.conkey) WHERE"
                                + " k.conrelid = ?::regclass AND k.contype = 'p'")) {
            ps.setString(1, MergeSql.qualified(t));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    pkName = rs.getString(1);
                    pkColumns.add(rs.getString(2));
                }
            }
        }
        try (Statement s = c.createStatement()) {
            if (pkName != null) {
                // the NOT NULL a key gave its columns outlives the key: the source's column takes
                // NULL once its key is gone
                StringBuilder sql =
                        new StringBuilder("ALTER TABLE ")
                                .append(MergeSql.qualified(t))
                                .append(" DROP CONSTRAINT ")
                                .append(quote(pkName));
                for (String col : pkColumns) {
                    sql.append(", ALTER COLUMN ").append(quote(col)).append(" DROP NOT NULL");
                }
                s.execute(sql.toString());
            }
            String pk = constraints(columns);
            if (pk.isEmpty()) {
                return;
            }
            Savepoint sp = c.setSavepoint();
            try {
                s.execute("ALTER TABLE " + MergeSql.qualified(t) + " ADD" + pk.substring(1));
                c.releaseSavepoint(sp);
            } catch (SQLException e) {
                c.rollback(sp);
                LOG.warn("Warehouse table {} keeps no primary key: {}", t, OneLineError.of(e));
            }
        }
    }

    @Override
    protected String positionType() {
        return "TEXT COLLATE \"C\"";
    }

    @Override
    protected String constraints(List<ColumnSpec> columns) {
        String pk =
                columns.stream()
                        .filter(ColumnSpec::key)
                        .map(col -> quote(col.name()))
                        .collect(Collectors.joining(", "));
        return pk.isEmpty() ? "" : ", PRIMARY KEY (" + pk + ")";
    }

    @Override
    public void rolledBack() {
        // staging tables created in the rolled-back transaction are gone
        super.rolledBack();
        stages.clear();
    }

    /** PostgreSQL has no TRY_CAST: the cast is tried, and undone when it fails. */
    @Override
    protected boolean castsInPlace(Connection c, TableName t, String column, String type)
            throws SQLException {
        Savepoint sp = c.setSavepoint();
        try (Statement s = c.createStatement()) {
            s.execute(
                    "SELECT count(CAST("
                            + quote(column)
                            + " AS "
                            + type
                            + ")) FROM "
                            + MergeSql.qualified(t));
            c.releaseSavepoint(sp);
            return true;
        } catch (SQLException e) {
            c.rollback(sp);
            return false;
        }
    }

    /** PostgreSQL's catalog spelling, with precision and scale ({@code numeric(10,2)}). */
    @Override
    public Map<String, String> existingColumns(Connection c, TableName t) throws SQLException {
        Map<String, String> cols = new java.util.LinkedHashMap<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a"
                                + " JOIN pg_class r ON r.oid = a.attrelid JOIN pg_namespace n ON"
                                + " n.oid = r.relnamespace WHERE n.nspname = ? AND r.relname = ?"
                                + " AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum")) {
            ps.setString(1, t.schema());
            ps.setString(2, t.table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    cols.put(rs.getString(1), rs.getString(2));
                }
            }
        }
        return cols;
    }

    @Override
    public long merge(
            Connection c,
            TableName t,
            List<ColumnSpec> columns,
            List<String> warehouseOnly,
            List<StagedRow> rows,
            boolean newer)
            throws SQLException {
        try (Statement s = c.createStatement()) {
            Stage stage = staged(c, s, t, columns, warehouseOnly, rows);
            long written =
                    rows.size() <= PREPARED_MAX_ROWS
                            ? update(c, stage.merge())
                            : s.executeUpdate(stage.merge());
            if (rows.stream().anyMatch(StagedRow::delete)) {
                // one plan (a scan of the stage) fits every size
                update(c, stage.tombstones());
            }
            return written;
        }
    }

    /** Rows of a table that holds none of their keys, staged with COPY and inserted in one go. */
    @Override
    public long insertNew(Connection c, TableName t, List<ColumnSpec> columns, List<StagedRow> rows)
            throws SQLException {
        if (!columns.isEmpty()
                && columns.stream().map(ColumnKind::of).allMatch(PostgresWarehouseDialect::input)) {
            // every value's staged text is what its column's input function reads: COPY
            // straight into the table
            StringBuilder csv = new StringBuilder(rows.size() * 128);
            for (StagedRow r : rows) {
                String[] values = r.values();
                for (int i = 0; i < values.length; i++) {
                    if (i > 0) {
                        csv.append(',');
                    }
                    if (values[i] != null) {
                        quoteCsv(csv, values[i]);
                    }
                }
                csv.append(',').append(r.position()).append(',').append(r.commitMs()).append('\n');
            }
            copy(
                    c,
                    MergeSql.qualified(t)
                            + " ("
                            + columns.stream()
                                    .map(col -> quote(col.name()))
                                    .collect(Collectors.joining(", "))
                            + ", _cdc_lsn, _cdc_commit_ms)",
                    csv);
            return rows.size();
        }
        try (Statement s = c.createStatement()) {
            Stage stage = staged(c, s, t, columns, List.of(), rows);
            long n = s.executeUpdate(stage.insertAll());
            // rows deleted in a transaction stay in the table's pages until it ends: a load of
            // many chunks would scan every earlier chunk again
            s.execute("TRUNCATE " + stage.name());
            return n;
        }
    }

    /** Whether {@link #cast} of a value of this kind is its column type's input of the text. */
    private static boolean input(ColumnKind kind) {
        return kind != ColumnKind.BYTES && kind != ColumnKind.POINT && kind != ColumnKind.ARRAY;
    }

    /** Fills the stage of the table's shape (created on first use) with {@code rows}. */
    private Stage staged(
            Connection c,
            Statement s,
            TableName t,
            List<ColumnSpec> columns,
            List<String> warehouseOnly,
            List<StagedRow> rows)
            throws SQLException {
        String signature = signature(t, columns) + "|" + String.join(",", warehouseOnly);
        Stage stage = stages.get(signature);
        if (stage == null) {
            String name = "cdc_stage_" + stagesCreated++;
            s.execute(
                    "CREATE TEMP TABLE IF NOT EXISTS "
                            + name
                            + " (_op TEXT, _lsn TEXT COLLATE \"C\", _commit_ms BIGINT, _key TEXT,"
                            + " _unchanged TEXT, "
                            + columns.stream()
                                    .map(col -> quote(col.name()) + " TEXT")
                                    .collect(Collectors.joining(", "))
                            + ") ON COMMIT DELETE ROWS");
            analyzeEmpty(s, name);
            stage =
                    new Stage(
                            name,
                            "DELETE FROM " + name,
                            MergeSql.merge(t, name, columns, warehouseOnly, this::cast),
                            MergeSql.tombstones(t, name),
                            MergeSql.insertAll(t, name, columns, this::cast));
            stages.put(signature, stage);
        } else {
            // a commit empties the stage in place (ON COMMIT DELETE ROWS), so this scans no
            // page unless the stage was filled earlier in this transaction; a TRUNCATE would
            // give the table a new file and a catalog update in every transaction
            update(c, stage.empty());
        }
        StringBuilder csv = new StringBuilder(rows.size() * 128);
        for (StagedRow r : rows) {
            csv.append(r.delete() ? 'd' : 'u')
                    .append(',')
                    .append(r.position())
                    .append(',')
                    .append(r.commitMs())
                    .append(',');
            quoteCsv(csv, r.key());
            csv.append(',');
            quoteCsv(csv, r.unchanged());
            for (String v : r.values()) {
                csv.append(',');
                if (v != null) {
                    quoteCsv(csv, v);
                }
            }
            csv.append('\n');
        }
        copy(c, stage.name(), csv);
        return stage;
    }

    /** Runs a statement through the driver's cache of statements prepared on the server. */
    private static int update(Connection c, String sql) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            return ps.executeUpdate();
        }
    }

    private static void quoteCsv(StringBuilder sb, String v) {
        sb.append('"');
        for (int i = 0; i < v.length(); i++) {
            char ch = v.charAt(i);
            if (ch == '"') {
                sb.append('"');
            }
            sb.append(ch);
        }
        sb.append('"');
    }

    @Override
    public void saveProgress(Connection c, long appliedThroughMs, long committedAtMs)
            throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "INSERT INTO cdc_lab.progress VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE"
                                + " SET applied_through_ms = GREATEST(cdc_lab.progress"
                                + ".applied_through_ms, EXCLUDED.applied_through_ms),"
                                + " committed_at_ms = EXCLUDED.committed_at_ms")) {
            ps.setLong(1, appliedThroughMs);
            ps.setLong(2, committedAtMs);
            ps.executeUpdate();
        }
    }
}
