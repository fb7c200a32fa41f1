package dev.cdclab.sink.warehouse;

import static dev.cdclab.sink.warehouse.MergeSql.quote;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cdclab.change.ColumnSpec;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DuckDB warehouse: rows go into a temporary staging table through DuckDB's appender, then
 * set-based statements replace the changed rows: delete the versions being replaced, insert the new
 * ones. In a column store this beats UPDATE/MERGE, whose update chains slow every scan until the
 * next checkpoint. A table with a one-column key gets an index on it, so that the rows to replace
 * in a large table are found without a scan.
 */
public final class DuckDbDialect extends SqlWarehouseDialect {
    private static final Logger LOG = LoggerFactory.getLogger(DuckDbDialect.class);

    /** DuckDB's checkpoint_threshold unless the warehouse URL sets one. */
    static final String CHECKPOINT_THRESHOLD = "48MiB";

    /** DuckDB's disabled_compression_methods unless the warehouse URL sets them. */
    static final String DISABLED_COMPRESSION = "dictionary";

    private final Map<String, Staging> stagings = new HashMap<>();
    private int stagesCreated;
    private final Map<String, long[]> rowEstimates = new HashMap<>();
    private final Set<String> indexed = new HashSet<>();

    /**
     * The merge statements, prepared once: given as text, DuckDB parses, binds and plans each
     * statement anew, about half a millisecond of the five or six a table's merge runs.
     */
    private final Map<String, PreparedStatement> prepared = new HashMap<>();

    /** An appender per staging table, kept open: creating one cost as much as the rows it took. */
    private final Map<String, DuckDBAppender> appenders = new HashMap<>();

    private PreparedStatement prepared(Connection c, String sql) throws SQLException {
        PreparedStatement ps = prepared.get(sql);
        if (ps == null) {
            ps = c.prepareStatement(sql);
            prepared.put(sql, ps);
        }
        return ps;
    }

    private long update(Connection c, String sql) throws SQLException {
        return prepared(c, sql).executeUpdate();
    }

    /** Runs a statement that reads one slot of the shared staging table; none when negative. */
    private long update(Connection c, String sql, int slot) throws SQLException {
        PreparedStatement ps = prepared(c, sql);
        if (slot >= 0) {
            ps.setInt(1, slot);
        }
        return ps.executeUpdate();
    }

    /** Closes the prepared statements, after the tables or staging tables they name changed. */
    private void forgetPrepared() {
        for (PreparedStatement ps : prepared.values()) {
            try {
                ps.close();
            } catch (SQLException e) {
                // the statement is dropped all the same
            }
        }
        prepared.clear();
    }

    @Override
    public String name() {
        return "duckdb";
    }

    /**
     * DuckDB has no read-only transaction on a connection that may write, so its own parser
     * decides: {@code json_serialize_sql} serialises SELECT statements only (SELECT, WITH, FROM,
     * VALUES, DESCRIBE, SHOW, SUMMARIZE) and says so for anything else. The transaction is rolled
     * back all the same.
     */
    @Override
    public void beginReadOnly(Connection reader, String sql) throws SQLException {
        String parsed;
        try (PreparedStatement ps =
                reader.prepareStatement("SELECT json_serialize_sql(?::VARCHAR)")) {
            ps.setString(1, sql);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                parsed = rs.getString(1);
            }
        }
        JsonNode tree;
        try {
            tree = new ObjectMapper().readTree(parsed);
        } catch (IOException e) {
            throw new SQLException("cannot read DuckDB's parse of the statement", e);
        }
        if (tree.path("error").asBoolean(false)) {
            String type = tree.path("error_type").asText("");
            String message = tree.path("error_message").asText("");
            if (type.equals("not implemented")) {
                throw new ReadOnlyQuery.RefusedException(
                        "only a query that reads (SELECT, WITH, FROM, DESCRIBE, SHOW, SUMMARIZE)"
                                + " runs here");
            }
            throw new SQLException(message);
        }
        if (tree.path("statements").size() != 1) {
            throw new ReadOnlyQuery.RefusedException("one statement at a time");
        }
        reader.setAutoCommit(false);
    }

    @Override
    public Connection connect(String url, String user, String password) throws SQLException {
        Connection c = DriverManager.getConnection(url);
        try (Statement s = c.createStatement()) {
            if (configurationLocked(s)) {
                // a database this process opened already, and set up
                c.setAutoCommit(false);
                return c;
            }
            // one thread unless the URL asks for more: a sink transaction of a few hundred rows
            // gains nothing from DuckDB's parallel operators, and on a machine shared with the
            // source their scheduling cost 10-15% of the sink's CPU and slowed its transactions
            setUnlessInUrl(s, url, "threads", "1");
            // a checkpoint holds up the writer's commit for as long as it runs (0.2-0.5 s in the
            // default run, growing with the tables); DuckDB's 16 MiB came to one every 30 s
            setUnlessInUrl(s, url, "checkpoint_threshold", "'" + CHECKPOINT_THRESHOLD + "'");
            // a checkpoint recompresses every row group the writer changed, and trying dictionary
            // encoding on columns of unique strings (the LSN, names, references) took about a
            // third of it; strings are still compressed (FSST), in about as many bytes
            setUnlessInUrl(
                    s, url, "disabled_compression_methods", "'" + DISABLED_COMPRESSION + "'");
            // the merge statements are prepared once and run for every warehouse transaction:
            // before 2.0, a plan that statistics rewrote for the rows a table held when it was
            // prepared can miss rows written since (duckdb/duckdb#23704, #24182; 2.0 plans
            // prepared statements without them), so no plan depends on them (the setting holds
            // for the whole database)
            if (majorVersion(s) < 2) {
                disable(s, NO_STATISTICS_REWRITES);
            }
            // the admin endpoint's queries run on connections of this database: they read the
            // warehouse and nothing else (no files, no other databases, no extensions loaded),
            // and cannot set that back
            s.execute("SET enable_external_access = false");
            s.execute("SET lock_configuration = true");
        }
        c.setAutoCommit(false);
        return c;
    }

    private static boolean configurationLocked(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT current_setting('lock_configuration')")) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    /** Sets a DuckDB setting to {@code value} unless the URL gives it ({@code ;name=...}). */
    private static void setUnlessInUrl(Statement s, String url, String name, String value)
            throws SQLException {
        if (!url.contains(name + "=")) {
            s.execute("SET " + name + " = " + value);
        }
    }

    private static void disable(Statement s, String optimizer) throws SQLException {
        String disabled;
        try (ResultSet rs = s.executeQuery("SELECT current_setting('disabled_optimizers')")) {
            rs.next();
            disabled = rs.getString(1);
        }
        if (!disabled.contains(optimizer)) {
            s.execute(
                    "SET disabled_optimizers = '"
                            + (disabled.isBlank() ? optimizer : disabled + "," + optimizer)
                            + "'");
        }
    }

    private static final String NO_STATISTICS_REWRITES = "statistics_propagation";

    /** The major version of the DuckDB library: {@code version()} reads {@code v1.5.6}. */
    private static int majorVersion(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT version()")) {
            rs.next();
            String v = rs.getString(1);
            int dot = v.indexOf('.');
            return Integer.parseInt(v.substring(v.startsWith("v") ? 1 : 0, dot));
        }
    }

    /**
     * Checkpoints beside the writer ({@link DuckDbCheckpointer}); none for a database in memory.
     */
    @Override
    public Upkeep startUpkeep(Connection writer) throws SQLException {
        Optional<DuckDbCheckpointer> checkpointer = DuckDbCheckpointer.start(writer);
        return checkpointer.isPresent() ? checkpointer.get() : () -> {};
    }

    @Override
    public String sqlType(ColumnKind kind, ColumnSpec c) {
        return switch (kind) {
            case INT16 -> "SMALLINT";
            case INT32 -> "INTEGER";
            case INT64, INTERVAL_MICROS -> "BIGINT";
            case FLOAT32 -> "FLOAT";
            case FLOAT64 -> "DOUBLE";
            case DECIMAL -> "DECIMAL(" + c.length() + "," + c.scale() + ")";
            case MONEY ->
                    "DECIMAL(" + ColumnKind.MONEY_PRECISION + "," + ColumnKind.moneyScale(c) + ")";
            case BOOLEAN -> "BOOLEAN";
            case DATE -> "DATE";
            case TIMESTAMP -> "TIMESTAMP";
            case TIMESTAMPTZ -> "TIMESTAMPTZ";
            case TIME -> "TIME";
            case INTERVAL -> "INTERVAL";
            case BYTES -> "BLOB";
            case UUID -> "UUID";
            case JSON -> "JSON";
            case BITS -> "BIT";
            case POINT -> POINT_TYPE;
            case ARRAY -> sqlType(ColumnKind.elementOf(c), c.element()) + "[]";
            // DuckDB has no such types (its inet extension is not bundled): their text
            case NUMERIC_TEXT, TEXT, XML, TSVECTOR, NETWORK, RANGE -> "VARCHAR";
        };
    }

    private static final String POINT_TYPE = "STRUCT(x DOUBLE, y DOUBLE)";

    private static boolean isText(ColumnKind kind) {
        return switch (kind) {
            case NUMERIC_TEXT, TEXT, XML, TSVECTOR, NETWORK, RANGE -> true;
            default -> false;
        };
    }

    /** A warehouse value back to the text the staging table holds. */
    private String toText(String expr, ColumnKind kind, ColumnSpec c) {
        if (isText(kind)) {
            return expr;
        }
        return switch (kind) {
            case BYTES -> "hex(" + expr + ")";
            // through epoch microseconds: DuckDB's time zone conversion overflows near its
            // largest timestamp (294247-01-01 23:59:59.999999+00 came back a day later)
            case TIMESTAMPTZ ->
                    "CASE WHEN isinf("
                            + expr
                            + ") THEN CAST("
                            + expr
                            + " AS VARCHAR) ELSE strftime(make_timestamp(epoch_us("
                            + expr
                            + ")), '%Y-%m-%dT%H:%M:%S.%fZ') END";
            case POINT -> "CAST(to_json(" + expr + ") AS VARCHAR)";
            case ARRAY ->
                    "CAST(to_json(list_transform("
                            + expr
                            + ", lambda _e: "
                            + toText("_e", ColumnKind.elementOf(c), c.element())
                            + ")) AS VARCHAR)";
            default -> "CAST(" + expr + " AS VARCHAR)";
        };
    }

    @Override
    protected String cast(String expr, ColumnKind kind, ColumnSpec c) {
        if (isText(kind)) {
            return expr;
        }
        return switch (kind) {
            case BYTES -> "unhex(" + expr + ")";
            // DuckDB's DECIMAL has no NaN or infinity: documented as NULL, and verify knows it
            case DECIMAL ->
                    "CASE WHEN "
                            + expr
                            + " IN ('NaN', 'Infinity', '-Infinity') THEN NULL ELSE CAST("
                            + expr
                            + " AS "
                            + sqlType(kind, c)
                            + ") END";
            case POINT -> "CAST(CAST(" + expr + " AS JSON) AS " + POINT_TYPE + ")";
            // a JSON array of the elements' texts, each cast as a value of the element's kind
            case ARRAY -> {
                ColumnKind elementKind = ColumnKind.elementOf(c);
                String texts = "CAST(CAST(" + expr + " AS JSON) AS VARCHAR[])";
                yield isText(elementKind)
                        ? texts
                        : "list_transform("
                                + texts
                                + ", lambda _e: "
                                + cast("_e", elementKind, c.element())
                                + ")";
            }
            default -> "CAST(" + expr + " AS " + sqlType(kind, c) + ")";
        };
    }

    @Override
    public void createMetadataTables(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS cdc_lab");
            s.execute(
                    "CREATE TABLE IF NOT EXISTS cdc_lab.tombstones (table_name VARCHAR, key"
                            + " VARCHAR, lsn VARCHAR, commit_ms BIGINT)");
            // warehouses written before tombstones were pruned
            s.execute("ALTER TABLE cdc_lab.tombstones ADD COLUMN IF NOT EXISTS commit_ms BIGINT");
            s.execute(
                    "CREATE TABLE IF NOT EXISTS cdc_lab.progress (id INTEGER, applied_through_ms"
                            + " BIGINT, committed_at_ms BIGINT)");
            s.execute(
                    "CREATE TABLE IF NOT EXISTS cdc_lab.table_state (table_name VARCHAR,"
                            + " emptied_at VARCHAR, keyless_through VARCHAR, diverged VARCHAR,"
                            + " schema_at VARCHAR, moves VARCHAR)");
            // warehouses written before schema positions and moves were kept
            s.execute("ALTER TABLE cdc_lab.table_state ADD COLUMN IF NOT EXISTS schema_at VARCHAR");
            s.execute("ALTER TABLE cdc_lab.table_state ADD COLUMN IF NOT EXISTS moves VARCHAR");
            s.execute(
                    "ALTER TABLE cdc_lab.table_state ADD COLUMN IF NOT EXISTS column_changes"
                            + " VARCHAR");
            s.execute(
                    "CREATE TABLE IF NOT EXISTS cdc_lab.initial_loads (slot VARCHAR, state"
                            + " VARCHAR, at_ms BIGINT)");
        }
    }

    @Override
    protected String rowId() {
        return "rowid";
    }

    @Override
    protected void createKeylessStage(Connection c, String stage, List<ColumnSpec> columns)
            throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(
                    "CREATE OR REPLACE TEMP TABLE "
                            + stage
                            + " (_seq INTEGER, _old BOOLEAN, _lsn VARCHAR, _commit_ms BIGINT"
                            + columns.stream()
                                    .map(col -> ", " + quote(col.name()) + " VARCHAR")
                                    .collect(Collectors.joining())
                            + ")");
        }
    }

    @Override
    protected void loadKeylessStage(Connection c, String stage, List<KeylessStaged> rows)
            throws SQLException {
        try (DuckDBAppender ap =
                c.unwrap(DuckDBConnection.class).createAppender("temp", "main", stage)) {
            for (KeylessStaged r : rows) {
                ap.beginRow();
                ap.append(r.seq());
                ap.append(r.old());
                ap.append(r.position());
                ap.append(r.commitMs());
                appendTexts(ap, r.values());
                ap.endRow();
            }
        }
    }

    /** Appends the staged texts of a row's columns, NULL where there is none. */
    private static void appendTexts(DuckDBAppender ap, String[] values) throws SQLException {
        for (String v : values) {
            if (v == null) {
                ap.appendNull();
            } else {
                ap.append(v);
            }
        }
    }

    @Override
    protected String positionType() {
        return "VARCHAR";
    }

    @Override
    protected String constraints(List<ColumnSpec> columns) {
        // keys stay unique by merging; the key index (see ensureKeyIndex) is not a constraint,
        // which DuckDB checks too early for a delete and insert of one key in a transaction
        return "";
    }

    @Override
    public void rolledBack() {
        // staging tables created in the rolled-back transaction are gone
        super.rolledBack();
        altered = false;
        forgetPrepared();
        for (DuckDBAppender ap : appenders.values()) {
            try {
                ap.close();
            } catch (SQLException e) {
                // its staging table is gone with the transaction
            }
        }
        appenders.clear();
        stagings.clear();
        shared = null;
        rowEstimates.clear();
        indexed.clear();
        modified.clear();
    }

    @Override
    protected boolean castsInPlace(Connection c, TableName t, String column, String type)
            throws SQLException {
        String q = quote(column);
        try (Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT count(*) FROM "
                                        + MergeSql.qualified(t)
                                        + " WHERE "
                                        + q
                                        + " IS NOT NULL AND TRY_CAST("
                                        + q
                                        + " AS "
                                        + type
                                        + ") IS NULL")) {
            rs.next();
            return rs.getLong(1) == 0;
        }
    }

    @Override
    public boolean mergesFasterWhenNewer() {
        return true;
    }

    /** A table's staging table and statements, for one column layout. */
    private record Staging(String stage, String fill, Apply apply, long[] rowsTaken) {

        /** The statements that name the staging table, as they are prepared. */
        List<String> statements() {
            List<String> out = new ArrayList<>(List.of("DELETE FROM " + stage, fill));
            out.addAll(apply.statements());
            return out;
        }
    }

    /**
     * The statements that apply one table's staged rows, read from {@code stage}: a staging table
     * of the table's own, or one slot of the shared staging table (then each statement takes the
     * slot as its one parameter).
     */
    private record Apply(
            String deleteGuarded,
            String replaceGuarded,
            String insertGuarded,
            String deleteChangedKeys,
            String insertAll,
            String tombstones,
            int keyIndex,
            ColumnKind keyKind) {

        List<String> statements() {
            return List.of(
                    deleteGuarded,
                    replaceGuarded,
                    insertGuarded,
                    deleteChangedKeys,
                    insertAll,
                    tombstones);
        }
    }

    private Apply apply(TableName t, String stage, List<ColumnSpec> columns) {
        List<ColumnSpec> keys = columns.stream().filter(ColumnSpec::key).toList();
        int keyIndex = keys.size() == 1 ? columns.indexOf(keys.get(0)) : -1;
        return new Apply(
                MergeSql.deleteReplaced(t, stage, columns, this::cast, true),
                MergeSql.deleteReplaced(t, stage, columns, this::cast, false),
                MergeSql.insertNew(t, stage, columns, this::cast),
                MergeSql.deleteChangedKeys(t, stage, columns, this::cast),
                MergeSql.insertAll(t, stage, columns, this::cast),
                MergeSql.appendTombstones(t, stage),
                keyIndex,
                keyIndex < 0 ? null : ColumnKind.of(columns.get(keyIndex)));
    }

    /**
     * The staging table the tables of one warehouse transaction share ({@link #mergeAll}): a slot
     * column numbers the merges, and text columns {@code c0...} hold each table's columns in order,
     * as many as the widest table has. Appending to a table costs DuckDB a fixed amount per column
     * and per flush (0.25 ms for 4 columns, 0.82 ms for 30, on this project's 2-core machine), and
     * emptying it a statement: one staging table per transaction instead of one per table saved
     * about 1.4 ms of a four-table transaction in a probe.
     */
    private record SharedStage(
            String name,
            int width,
            long[] rowsTaken,
            Map<String, Apply> applies,
            Map<Integer, String> tombstones) {

        /** The rows of one slot, under the table's column names. */
        String slot(List<ColumnSpec> columns) {
            StringBuilder sb = new StringBuilder("(SELECT _op, _lsn, _commit_ms, _key, _unchanged");
            for (int i = 0; i < columns.size(); i++) {
                sb.append(", c").append(i).append(" AS ").append(quote(columns.get(i).name()));
            }
            return sb.append(" FROM ").append(name).append(" WHERE _slot = ?)").toString();
        }

        /**
         * Appends a tombstone per staged delete of a transaction of {@code slots} slots, each
         * slot's table name given as a parameter.
         */
        String tombstones(int slots) {
            return tombstones.computeIfAbsent(
                    slots,
                    n -> {
                        StringBuilder sb =
                                new StringBuilder(
                                        "INSERT INTO cdc_lab.tombstones (table_name, key, lsn,"
                                                + " commit_ms) SELECT CASE _slot");
                        for (int i = 0; i < n; i++) {
                            sb.append(" WHEN ").append(i).append(" THEN CAST(? AS VARCHAR)");
                        }
                        return sb.append(" END, _key, _lsn, _commit_ms FROM ")
                                .append(name)
                                .append(" WHERE _op = 'd'")
                                .toString();
                    });
        }

        List<String> statements() {
            List<String> out = new ArrayList<>(List.of("DELETE FROM " + name));
            applies.values().forEach(a -> out.addAll(a.statements()));
            out.addAll(tombstones.values());
            return out;
        }
    }

    private SharedStage shared;

    /**
     * Merges a transaction needs before they share a staging table. One table's rows read faster
     * from a staging table of their own: its statements on a slot of the shared one made a
     * transaction of 34-83 rows cost 0.6-1.0 ms more (of 3.6-5.2 ms).
     */
    static final int MERGES_TO_SHARE = 2;

    /** {@link #MERGES_TO_SHARE}, unless a test shares the staging table for every merge. */
    static int mergesToShare = MERGES_TO_SHARE;

    /**
     * Rows a staging table takes before it is replaced by a new one. Emptying a staging table
     * deletes its rows, and DuckDB keeps deleted rows of a temporary table for as long as the table
     * lives: every statement that reads the staging table then checks them all, so a transaction
     * cost more the longer the sink had run (0.77 ms, then 1.44 ms after 5,000 transactions of 100
     * rows, in a probe of an empty and a scanned staging table).
     */
    static final long STAGE_ROWS_BEFORE_RENEWAL = 20_000;

    /** {@link #STAGE_ROWS_BEFORE_RENEWAL}, unless a test renews the staging tables sooner. */
    static long stageRowsBeforeRenewal = STAGE_ROWS_BEFORE_RENEWAL;

    /** Drops a staging table, its appender and the statements that name it. */
    private void retire(Statement s, String stage, List<String> statements) throws SQLException {
        DuckDBAppender ap = appenders.remove(stage);
        if (ap != null) {
            ap.close();
        }
        for (String sql : statements) {
            PreparedStatement ps = prepared.remove(sql);
            if (ps != null) {
                ps.close();
            }
        }
        s.execute("DROP TABLE IF EXISTS temp.main." + stage);
    }

    private DuckDBAppender appender(Connection c, String stage) throws SQLException {
        DuckDBAppender ap = appenders.get(stage);
        if (ap == null) {
            ap = c.unwrap(DuckDBConnection.class).createAppender("temp", "main", stage);
            appenders.put(stage, ap);
        }
        return ap;
    }

    /**
     * Columns the source no longer has are NULL in rows written: the rows are written whole.
     * Changes newer than the table ({@code newer}) replace their keys' rows unguarded: one delete
     * per kind and one insert, by the key index when the table is large enough for a scan to cost
     * more; inserts of rows that did not exist replace nothing and are only appended.
     */
    @Override
    public long merge(
            Connection c,
            TableName t,
            List<ColumnSpec> columns,
            List<String> warehouseOnly,
            List<StagedRow> rows,
            boolean newer)
            throws SQLException {
        modified.add(t);
        String signature = signature(t, columns);
        Staging st = stagings.get(signature);
        try (Statement s = c.createStatement()) {
            if (st != null && st.rowsTaken()[0] >= stageRowsBeforeRenewal) {
                retire(s, st.stage(), st.statements());
                stagings.remove(signature);
                st = null;
            }
            if (st == null) {
                String stage = "cdc_stage_" + stagesCreated++;
                s.execute(
                        "CREATE OR REPLACE TEMP TABLE "
                                + stage
                                + " (_op VARCHAR, _lsn VARCHAR, _commit_ms BIGINT, _key VARCHAR,"
                                + " _unchanged VARCHAR, "
                                + columns.stream()
                                        .map(col -> quote(col.name()) + " VARCHAR")
                                        .collect(Collectors.joining(", "))
                                + ")");
                st =
                        new Staging(
                                stage,
                                MergeSql.fillUnchanged(t, stage, columns, this::cast, this::toText),
                                apply(t, stage, columns),
                                new long[1]);
                stagings.put(signature, st);
            } else {
                update(c, "DELETE FROM " + st.stage());
            }
            DuckDBAppender ap = appender(c, st.stage());
            boolean unchanged = false;
            for (StagedRow r : rows) {
                ap.beginRow();
                appendStaged(ap, r);
                ap.endRow();
                unchanged |= hasUnchanged(r);
            }
            ap.flush();
            st.rowsTaken()[0] += rows.size();
            if (unchanged) {
                update(c, st.fill());
            }
            return applyStaged(c, s, t, columns, st.apply(), rows, newer, -1, true);
        }
    }

    /** A staged row's kind, position, commit time, key, unchanged columns and values. */
    private static void appendStaged(DuckDBAppender ap, StagedRow r) throws SQLException {
        ap.append(r.delete() ? "d" : r.absent() ? "i" : "u");
        ap.append(r.position());
        ap.append(r.commitMs());
        ap.append(r.key());
        ap.append(r.unchanged());
        appendTexts(ap, r.values());
    }

    private static boolean hasUnchanged(StagedRow r) {
        return !r.delete() && r.unchanged().length() > 1;
    }

    /**
     * As {@link #merge} for each, in order; the merges whose rows need no unchanged column filled
     * from the warehouse are staged together, in one shared staging table (see {@link
     * SharedStage}), with one append and one emptying for the transaction.
     */
    @Override
    public long mergeAll(Connection c, List<MergeRequest> merges) throws SQLException {
        merges.forEach(m -> modified.add(m.table()));
        // each merge's slot in the shared staging table; -1 for one that fills unchanged columns
        int[] slots = new int[merges.size()];
        boolean[] deletes = new boolean[merges.size()];
        int width = 0;
        int shareable = 0;
        for (int m = 0; m < merges.size(); m++) {
            MergeRequest merge = merges.get(m);
            boolean unchanged = false;
            for (StagedRow r : merge.rows()) {
                unchanged |= hasUnchanged(r);
                deletes[m] |= r.delete();
            }
            if (unchanged) {
                slots[m] = -1;
            } else {
                slots[m] = shareable++;
                width = Math.max(width, merge.columns().size());
            }
        }
        if (shareable < mergesToShare) {
            return super.mergeAll(c, merges);
        }
        try (Statement s = c.createStatement()) {
            if (shared != null
                    && (shared.width() < width
                            || shared.rowsTaken()[0] >= stageRowsBeforeRenewal)) {
                width = Math.max(width, shared.width());
                retire(s, shared.name(), shared.statements());
                shared = null;
            }
            if (shared == null) {
                String name = "cdc_stage_" + stagesCreated++;
                StringBuilder ddl =
                        new StringBuilder("CREATE OR REPLACE TEMP TABLE ")
                                .append(name)
                                .append(
                                        " (_slot INTEGER, _op VARCHAR, _lsn VARCHAR, _commit_ms"
                                                + " BIGINT, _key VARCHAR, _unchanged VARCHAR");
                for (int i = 0; i < width; i++) {
                    ddl.append(", c").append(i).append(" VARCHAR");
                }
                s.execute(ddl.append(")").toString());
                shared =
                        new SharedStage(name, width, new long[1], new HashMap<>(), new HashMap<>());
            } else if (shared.rowsTaken()[0] > 0) {
                update(c, "DELETE FROM " + shared.name());
            }
            DuckDBAppender ap = appender(c, shared.name());
            long staged = 0;
            for (int m = 0; m < merges.size(); m++) {
                if (slots[m] < 0) {
                    continue;
                }
                MergeRequest merge = merges.get(m);
                for (StagedRow r : merge.rows()) {
                    ap.beginRow();
                    ap.append(slots[m]);
                    appendStaged(ap, r);
                    for (int i = r.values().length; i < shared.width(); i++) {
                        ap.appendNull();
                    }
                    ap.endRow();
                }
                staged += merge.rows().size();
            }
            ap.flush();
            shared.rowsTaken()[0] += staged;
            // the tombstones of every slot go in one statement at the end, unless a table has
            // two merges here: the second one's guarded insert reads the first one's tombstones
            Set<TableName> tables = new HashSet<>();
            boolean distinct = true;
            for (MergeRequest merge : merges) {
                distinct &= tables.add(merge.table());
            }
            String[] deleted = distinct ? new String[shareable] : null;
            long written = 0;
            for (int m = 0; m < merges.size(); m++) {
                MergeRequest merge = merges.get(m);
                if (slots[m] < 0) {
                    written +=
                            merge(
                                    c,
                                    merge.table(),
                                    merge.columns(),
                                    merge.warehouseOnly(),
                                    merge.rows(),
                                    merge.newer());
                    continue;
                }
                TableName t = merge.table();
                List<ColumnSpec> columns = merge.columns();
                Apply a =
                        shared.applies()
                                .computeIfAbsent(
                                        signature(t, columns),
                                        k -> apply(t, shared.slot(columns), columns));
                written +=
                        applyStaged(
                                c,
                                s,
                                t,
                                columns,
                                a,
                                merge.rows(),
                                merge.newer(),
                                slots[m],
                                deleted == null);
                if (deleted != null && deletes[m]) {
                    deleted[slots[m]] = t.toString();
                }
            }
            if (deleted != null && Arrays.stream(deleted).anyMatch(Objects::nonNull)) {
                PreparedStatement ps = prepared(c, shared.tombstones(shareable));
                for (int i = 0; i < shareable; i++) {
                    ps.setString(i + 1, deleted[i]);
                }
                ps.executeUpdate();
            }
            return written;
        }
    }

    /**
     * Applies a table's staged rows: changes newer than the table ({@code newer}) replace their
     * keys' rows unguarded, with one delete for deletes and new versions together and one insert,
     * by the key index when the table is large enough for a scan to cost more; inserts of rows that
     * did not exist replace nothing and are only appended.
     */
    private long applyStaged(
            Connection c,
            Statement s,
            TableName t,
            List<ColumnSpec> columns,
            Apply a,
            List<StagedRow> rows,
            boolean newer,
            int slot,
            boolean tombstones)
            throws SQLException {
        if (a.keyIndex() >= 0) {
            ensureKeyIndex(c, t, columns.get(a.keyIndex()));
        }
        int deletes = 0;
        int absent = 0;
        for (StagedRow r : rows) {
            deletes += r.delete() ? 1 : 0;
            absent += !r.delete() && r.absent() ? 1 : 0;
        }
        long written = 0;
        long removed = 0;
        long inserted;
        if (newer) {
            boolean byIndex =
                    a.keyIndex() >= 0
                            && rowEstimate(c, t) >= scanRowsPerKey * rows.size()
                            && literalKeys(a.keyKind());
            int replaced = rows.size() - deletes - absent;
            if (deletes + replaced > 0) {
                // one scan of the table for both kinds (on a table of 50,000 rows a delete cost
                // about 0.45 ms): the rows it removes beyond the replaced ones are the deletes'
                // own, as every replaced row is present when changes are applied in order
                long n =
                        byIndex
                                ? deleteByIndex(s, t, columns, a, rows)
                                : update(c, a.deleteChangedKeys(), slot);
                written += Math.max(0, n - replaced);
                removed += n;
            }
            inserted = deletes < rows.size() ? update(c, a.insertAll(), slot) : 0;
        } else {
            if (deletes > 0) {
                long n = update(c, a.deleteGuarded(), slot);
                written += n;
                removed += n;
            }
            removed += update(c, a.replaceGuarded(), slot);
            inserted = update(c, a.insertGuarded(), slot);
        }
        written += inserted;
        if (deletes > 0 && tombstones) {
            update(c, a.tombstones(), slot);
        }
        long[] estimate = rowEstimates.get(t.toString());
        if (estimate != null) {
            estimate[0] += inserted - removed;
        }
        return written;
    }

    /**
     * A scan of the table costs about as much as this many key lookups per staged change: below it
     * the staged keys are joined, above it looked up in the key index.
     */
    static final long SCAN_ROWS_PER_KEY = 1_000;

    /** {@link #SCAN_ROWS_PER_KEY}, unless a test takes the key index at any size. */
    static long scanRowsPerKey = SCAN_ROWS_PER_KEY;

    /** Key kinds whose staged text is written as a SQL literal DuckDB matches in its index. */
    private static boolean literalKeys(ColumnKind kind) {
        return switch (kind) {
            case INT16, INT32, INT64, TEXT, UUID -> true;
            default -> false;
        };
    }

    /**
     * Deletes the rows of the staged keys that a delete removes or a new version replaces with
     * {@code key IN (<literals>)}, which DuckDB answers from the key index (a join with the staging
     * table scans the table).
     */
    private static long deleteByIndex(
            Statement s, TableName t, List<ColumnSpec> columns, Apply st, List<StagedRow> rows)
            throws SQLException {
        StringBuilder in = new StringBuilder(rows.size() * 12);
        boolean numeric = st.keyKind() != ColumnKind.TEXT && st.keyKind() != ColumnKind.UUID;
        for (StagedRow r : rows) {
            if (!r.delete() && r.absent()) {
                continue;
            }
            String v = r.values()[st.keyIndex()];
            if (v == null) {
                continue;
            }
            if (numeric && !INTEGER.matcher(v).matches()) {
                throw new SQLException("key " + v + " of " + t + " is not an integer");
            }
            in.append(in.length() == 0 ? "" : ",").append(numeric ? v : MergeSql.literal(v));
        }
        if (in.length() == 0) {
            return 0;
        }
        return s.executeUpdate(
                "DELETE FROM "
                        + MergeSql.qualified(t)
                        + " WHERE "
                        + quote(columns.get(st.keyIndex()).name())
                        + " IN ("
                        + in
                        + ")");
    }

    private static final java.util.regex.Pattern INTEGER =
            java.util.regex.Pattern.compile("-?[0-9]{1,20}");

    /** Rows the table holds, as DuckDB estimates them once, then counted along. */
    private long rowEstimate(Connection c, TableName t) throws SQLException {
        long[] estimate = rowEstimates.get(t.toString());
        if (estimate == null) {
            try (PreparedStatement ps =
                    c.prepareStatement(
                            "SELECT estimated_size FROM duckdb_tables() WHERE schema_name = ? AND"
                                    + " table_name = ?")) {
                ps.setString(1, t.schema());
                ps.setString(2, t.table());
                try (ResultSet rs = ps.executeQuery()) {
                    estimate = new long[] {rs.next() ? rs.getLong(1) : 0};
                }
            }
            rowEstimates.put(t.toString(), estimate);
        }
        return estimate[0];
    }

    /** Name of the index on a table's key column. */
    private static String keyIndexName(TableName t, String column) {
        return t.table() + "__cdc_key__" + column;
    }

    /**
     * Creates the index on the table's single key column, for key lookups that do not scan the
     * table; indexes of an earlier key go (DuckDB refuses to alter an indexed table).
     */
    private void ensureKeyIndex(Connection c, TableName t, ColumnSpec key) throws SQLException {
        String name = keyIndexName(t, key.name());
        if (indexed.contains(t + "|" + name)) {
            return;
        }
        dropKeyIndexes(c, t, name);
        try (Statement s = c.createStatement()) {
            s.execute(
                    "CREATE INDEX IF NOT EXISTS "
                            + quote(name)
                            + " ON "
                            + MergeSql.qualified(t)
                            + " ("
                            + quote(key.name())
                            + ")");
        }
        indexed.add(t + "|" + name);
    }

    /** Drops the key indexes of a table, except {@code keep}. */
    private void dropKeyIndexes(Connection c, TableName t, String keep) throws SQLException {
        List<String> names = new ArrayList<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT index_name FROM duckdb_indexes() WHERE schema_name = ? AND"
                                + " table_name = ? AND starts_with(index_name, ?)")) {
            ps.setString(1, t.schema());
            ps.setString(2, t.table());
            ps.setString(3, t.table() + "__cdc_key__");
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
            }
        }
        try (Statement s = c.createStatement()) {
            for (String name : names) {
                if (!name.equals(keep)) {
                    s.execute("DROP INDEX IF EXISTS " + quote(t.schema()) + "." + quote(name));
                    altered = true;
                }
            }
        }
        indexed.removeIf(k -> k.startsWith(t + "|"));
        // the key changed, a column's type or the table's name: plan the statements anew
        forgetPrepared();
    }

    @Override
    public void keyChanged(Connection c, TableName t, List<ColumnSpec> columns)
            throws SQLException {
        List<ColumnSpec> keys = columns.stream().filter(ColumnSpec::key).toList();
        dropKeyIndexes(c, t, keys.size() == 1 ? keyIndexName(t, keys.get(0).name()) : null);
    }

    @Override
    public String changeColumnType(Connection c, TableName t, ColumnSpec col, String oldType)
            throws SQLException {
        altered = true;
        // DuckDB does not alter an indexed table; the index comes back with the next merge
        dropKeyIndexes(c, t, null);
        if (!modified.contains(t)) {
            return super.changeColumnType(c, t, col, oldType);
        }
        String type = sqlType(ColumnKind.of(col), col);
        String q = quote(col.name());
        if (castsInPlace(c, t, col.name(), type)) {
            rebuild(c, t, Map.of(col.name(), "CAST(" + q + " AS " + type + ") AS " + q), null);
            return null;
        }
        String aside = asideName(c, t, col, oldType);
        renameColumn(c, t, col.name(), aside);
        rebuild(c, t, Map.of(), "CAST(NULL AS " + type + ") AS " + q);
        return aside;
    }

    /**
     * A column added: the statements prepared for the table are planned against its old shape, and
     * DuckDB refuses to commit what they write ("another transaction has altered this table").
     */
    @Override
    public void addColumn(Connection c, TableName t, ColumnSpec col, String value)
            throws SQLException {
        altered = true;
        forgetPrepared();
        if (!modified.contains(t)) {
            super.addColumn(c, t, col, value);
            if (value != null && ColumnKind.of(col) == ColumnKind.ARRAY) {
                // its rows were updated
                modified.add(t);
            }
            return;
        }
        ColumnKind kind = ColumnKind.of(col);
        // the copy's column takes the expression's type: a value's cast may leave it text
        String expr =
                "CAST("
                        + (value == null ? "NULL" : cast(MergeSql.literal(value), kind, col))
                        + " AS "
                        + sqlType(kind, col)
                        + ")";
        rebuild(c, t, Map.of(), expr + " AS " + quote(col.name()));
    }

    @Override
    public long trimTrailingSpaces(Connection c, TableName t, String column, String before)
            throws SQLException {
        modified.add(t);
        return super.trimTrailingSpaces(c, t, column, before);
    }

    /** Tables whose rows the open transaction deleted or replaced. */
    private final Set<TableName> modified = new HashSet<>();

    /**
     * DuckDB cannot commit a transaction that deleted or updated rows of a table and then added a
     * column to it or changed a column's type ("Attempting to modify table ... but another
     * transaction has altered this table"; a rename is fine). Such a table is rebuilt instead, in
     * the same transaction: a copy with the new shape takes its name.
     *
     * @param replaced columns whose value is computed, by name: the expression, with its alias
     * @param added a column added last, as an expression with its alias; null for none
     */
    private void rebuild(Connection c, TableName t, Map<String, String> replaced, String added)
            throws SQLException {
        altered = true;
        dropKeyIndexes(c, t, null);
        StringBuilder select = new StringBuilder();
        for (String name : existingColumns(c, t).keySet()) {
            select.append(select.length() == 0 ? "" : ", ")
                    .append(replaced.getOrDefault(name, quote(name)));
        }
        if (added != null) {
            select.append(", ").append(added);
        }
        TableName copy = new TableName(t.schema(), t.table() + "__cdc_rebuild");
        try (Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + MergeSql.qualified(copy));
            s.execute(
                    "CREATE TABLE "
                            + MergeSql.qualified(copy)
                            + " AS SELECT "
                            + select
                            + " FROM "
                            + MergeSql.qualified(t));
            s.execute("DROP TABLE " + MergeSql.qualified(t));
            s.execute("ALTER TABLE " + MergeSql.qualified(copy) + " RENAME TO " + quote(t.table()));
        }
        rowEstimates.remove(t.toString());
    }

    /** Whether the open transaction changed a table's shape or dropped an index. */
    private boolean altered;

    /**
     * After a transaction that changed a table's shape or dropped an index, a checkpoint: DuckDB
     * cannot always replay such a transaction from its write-ahead log after a crash ("Failure
     * while replaying WAL file ... GetDefaultDatabase with no default database set", duckdb issues
     * 20543, 22044, 22124), and the warehouse would not open again. Seen after a {@code kill -9} of
     * the sink under {@code cdc-lab fuzz --faults}. Such transactions are rare.
     */
    @Override
    public void committed(Connection c) {
        modified.clear();
        if (!altered) {
            return;
        }
        altered = false;
        try (Statement s = c.createStatement()) {
            s.execute("FORCE CHECKPOINT");
        } catch (SQLException e) {
            LOG.warn("Checkpoint after a change of a table's shape failed: {}", e.getMessage());
        }
    }

    @Override
    public KeylessOutcome applyKeyless(
            Connection c, TableName t, List<ColumnSpec> columns, List<KeylessRow> rows)
            throws SQLException {
        modified.add(t);
        return super.applyKeyless(c, t, columns, rows);
    }

    @Override
    public void createTable(Connection c, TableName t, List<ColumnSpec> columns)
            throws SQLException {
        forgetPrepared();
        super.createTable(c, t, columns);
    }

    @Override
    public long emptyBefore(Connection c, TableName t, String position) throws SQLException {
        modified.add(t);
        rowEstimates.remove(t.toString());
        return super.emptyBefore(c, t, position);
    }

    @Override
    public void renameColumn(Connection c, TableName t, String from, String to)
            throws SQLException {
        // DuckDB does not alter an indexed table; the index comes back with the next merge
        dropKeyIndexes(c, t, null);
        super.renameColumn(c, t, from, to);
    }

    /**
     * DuckDB's driver marks its transaction ended only when {@code COMMIT} or {@code ROLLBACK}
     * succeeds. When a commit fails (a write conflict), DuckDB has ended the transaction but the
     * driver believes it open, and would run the next statements each in a transaction of its own.
     * Beginning one explicitly, then rolling it back, puts both in step again.
     */
    @Override
    public void recover(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("BEGIN TRANSACTION");
        } catch (SQLException open) {
            // a transaction is open after all: the rollback below ends it
        }
        c.rollback();
    }

    @Override
    public void renameTable(Connection c, TableName from, TableName to) throws SQLException {
        dropKeyIndexes(c, from, null);
        rowEstimates.remove(from.toString());
        rowEstimates.remove(to.toString());
        boolean changedRows = modified.remove(from);
        super.renameTable(c, from, to);
        // the rows it changed are the renamed table's: a column added to it later in the
        // transaction still needs the rebuild
        if (changedRows) {
            modified.add(to);
        }
    }

    @Override
    public void saveProgress(Connection c, long appliedThroughMs, long committedAtMs)
            throws SQLException {
        // one statement in every warehouse transaction but the first
        PreparedStatement set =
                prepared(
                        c,
                        "UPDATE cdc_lab.progress SET applied_through_ms = ?, committed_at_ms = ?");
        set.setLong(1, appliedThroughMs);
        set.setLong(2, committedAtMs);
        if (set.executeUpdate() == 0) {
            PreparedStatement insert = prepared(c, "INSERT INTO cdc_lab.progress VALUES (1, ?, ?)");
            insert.setLong(1, appliedThroughMs);
            insert.setLong(2, committedAtMs);
            insert.executeUpdate();
        }
    }
}
