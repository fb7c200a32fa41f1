package dev.cdclab.sink.warehouse;

import static dev.cdclab.sink.warehouse.MergeSql.qualified;
import static dev.cdclab.sink.warehouse.MergeSql.quote;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cdclab.change.ColumnSpec;
import dev.cdclab.change.NetOperation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What the SQL warehouses share: catalog lookups and DDL through information_schema, table state,
 * and the row-by-row statements of tables without a key.
 */
abstract class SqlWarehouseDialect implements WarehouseDialect {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** Keyless staging tables by signature, created in the open transaction or before. */
    private final Map<String, String> keylessStages = new HashMap<>();

    private int keylessStagesCreated;

    /** A staged text expression cast to the column's warehouse type. */
    protected abstract String cast(String expr, ColumnKind kind, ColumnSpec column);

    /**
     * Whether the warehouse type of {@code kind} has an equality operator; one without
     * (PostgreSQL's {@code xml} and {@code point}) is compared by its text when a keyless change
     * looks for its row.
     */
    protected boolean hasEquality(ColumnKind kind) {
        return true;
    }

    /** The pseudo-column that names one physical row ({@code rowid}, {@code ctid}). */
    protected abstract String rowId();

    /**
     * Creates a temporary table {@code stage} with {@code _seq INTEGER, _old BOOLEAN, _lsn,
     * _commit_ms BIGINT} and one text column per source column, emptied at commit.
     */
    protected abstract void createKeylessStage(Connection c, String stage, List<ColumnSpec> columns)
            throws SQLException;

    /** Loads the staged rows into an empty keyless staging table. */
    protected abstract void loadKeylessStage(Connection c, String stage, List<KeylessStaged> rows)
            throws SQLException;

    /** One row of a keyless staging table: an old or a new image of change {@code seq}. */
    protected record KeylessStaged(
            int seq, boolean old, String position, long commitMs, String[] values) {}

    @Override
    public void rolledBack() {
        keylessStages.clear();
    }

    @Override
    public KeylessOutcome applyKeyless(
            Connection c, TableName t, List<ColumnSpec> columns, List<KeylessRow> rows)
            throws SQLException {
        String signature = "keyless|" + signature(t, columns);
        String stage = keylessStages.get(signature);
        if (stage == null) {
            stage = "cdc_keyless_" + keylessStagesCreated++;
            createKeylessStage(c, stage, columns);
            keylessStages.put(signature, stage);
        } else {
            try (Statement s = c.createStatement()) {
                s.execute("DELETE FROM " + stage);
            }
        }
        List<KeylessStaged> staged = new ArrayList<>(rows.size() + 8);
        for (int i = 0; i < rows.size(); i++) {
            KeylessRow r = rows.get(i);
            if (r.before() != null && r.op() != NetOperation.INSERT) {
                staged.add(new KeylessStaged(i, true, r.position(), r.commitMs(), r.before()));
            }
            if (r.after() != null && r.op() != NetOperation.DELETE) {
                staged.add(new KeylessStaged(i, false, r.position(), r.commitMs(), r.after()));
            }
        }
        loadKeylessStage(c, stage, staged);

        String target = MergeSql.qualified(t);
        String cols =
                columns.stream()
                        .map(col -> MergeSql.quote(col.name()))
                        .collect(Collectors.joining(", "));
        String values =
                columns.stream()
                        .map(
                                col ->
                                        cast(
                                                "s." + MergeSql.quote(col.name()),
                                                ColumnKind.of(col),
                                                col))
                        .collect(Collectors.joining(", "));
        String match =
                columns.stream()
                        .map(
                                col -> {
                                    ColumnKind kind = ColumnKind.of(col);
                                    String w = "w." + MergeSql.quote(col.name());
                                    String o = cast("o." + MergeSql.quote(col.name()), kind, col);
                                    return hasEquality(kind)
                                            ? w + " IS NOT DISTINCT FROM " + o
                                            : "CAST("
                                                    + w
                                                    + " AS TEXT) IS NOT DISTINCT FROM CAST("
                                                    + o
                                                    + " AS TEXT)";
                                })
                        .collect(Collectors.joining(" AND "));
        String oldRow =
                "(SELECT w."
                        + rowId()
                        + " FROM "
                        + target
                        + " AS w, "
                        + stage
                        + " AS o WHERE o._seq = ? AND o._old AND "
                        + match
                        + " LIMIT 1)";
        String set =
                columns.stream()
                                .map(
                                        col ->
                                                MergeSql.quote(col.name())
                                                        + " = "
                                                        + cast(
                                                                "s." + MergeSql.quote(col.name()),
                                                                ColumnKind.of(col),
                                                                col))
                                .collect(Collectors.joining(", "))
                        + ", _cdc_lsn = s._lsn, _cdc_commit_ms = s._commit_ms";
        long written = 0;
        long unmatched = 0;
        int firstUnmatched = -1;
        try (PreparedStatement insert =
                        c.prepareStatement(
                                "INSERT INTO "
                                        + target
                                        + " ("
                                        + cols
                                        + ", _cdc_lsn, _cdc_commit_ms) SELECT "
                                        + values
                                        + ", s._lsn, s._commit_ms FROM "
                                        + stage
                                        + " AS s WHERE NOT s._old AND s._seq BETWEEN ? AND ?"
                                        + " ORDER BY s._seq");
                PreparedStatement delete =
                        c.prepareStatement(
                                "DELETE FROM " + target + " WHERE " + rowId() + " = " + oldRow);
                PreparedStatement update =
                        c.prepareStatement(
                                "UPDATE "
                                        + target
                                        + " SET "
                                        + set
                                        + " FROM "
                                        + stage
                                        + " AS s WHERE s._seq = ? AND NOT s._old AND "
                                        + target
                                        + "."
                                        + rowId()
                                        + " = "
                                        + oldRow)) {
            int runStart = -1;
            for (int i = 0; i <= rows.size(); i++) {
                boolean insertHere = i < rows.size() && rows.get(i).op() == NetOperation.INSERT;
                if (insertHere) {
                    if (runStart < 0) {
                        runStart = i;
                    }
                    continue;
                }
                if (runStart >= 0) {
                    written += insertRange(insert, runStart, i - 1);
                    runStart = -1;
                }
                if (i == rows.size()) {
                    break;
                }
                KeylessRow r = rows.get(i);
                if (r.op() == NetOperation.DELETE) {
                    delete.setInt(1, i);
                    int n = r.before() == null ? 0 : delete.executeUpdate();
                    written += n;
                    if (n == 0 && unmatched++ == 0) {
                        firstUnmatched = i;
                    }
                } else {
                    update.setInt(1, i);
                    update.setInt(2, i);
                    int n = r.before() == null ? 0 : update.executeUpdate();
                    if (n == 0) {
                        // the old row is not there: the new one still belongs in the table
                        if (unmatched++ == 0) {
                            firstUnmatched = i;
                        }
                        n = insertRange(insert, i, i);
                    }
                    written += n;
                }
            }
        }
        return new KeylessOutcome(written, unmatched, firstUnmatched);
    }

    private static int insertRange(PreparedStatement insert, int from, int to) throws SQLException {
        insert.setInt(1, from);
        insert.setInt(2, to);
        return insert.executeUpdate();
    }

    @Override
    public String newestPosition(Connection c, TableName t) throws SQLException {
        String newest = null;
        try (PreparedStatement rows =
                        c.prepareStatement("SELECT max(_cdc_lsn) FROM " + MergeSql.qualified(t));
                PreparedStatement tombstones =
                        c.prepareStatement(
                                "SELECT max(lsn) FROM cdc_lab.tombstones WHERE table_name = ?")) {
            tombstones.setString(1, t.toString());
            for (PreparedStatement ps : List.of(rows, tombstones)) {
                try (ResultSet rs = ps.executeQuery()) {
                    String p = rs.next() ? rs.getString(1) : null;
                    if (p != null && (newest == null || p.compareTo(newest) > 0)) {
                        newest = p;
                    }
                }
            }
        }
        return newest;
    }

    @Override
    public long pruneTombstones(Connection c, long commitMs) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "DELETE FROM cdc_lab.tombstones WHERE COALESCE(commit_ms, 0) < ?")) {
            ps.setLong(1, commitMs);
            return ps.executeUpdate();
        }
    }

    @Override
    public long emptyBefore(Connection c, TableName t, String position) throws SQLException {
        long removed;
        try (PreparedStatement rows =
                        c.prepareStatement(
                                "DELETE FROM "
                                        + MergeSql.qualified(t)
                                        + " WHERE _cdc_lsn IS NULL OR _cdc_lsn < ?");
                PreparedStatement tombstones =
                        c.prepareStatement(
                                "DELETE FROM cdc_lab.tombstones WHERE table_name = ? AND lsn <"
                                        + " ?")) {
            rows.setString(1, position);
            removed = rows.executeUpdate();
            tombstones.setString(1, t.toString());
            tombstones.setString(2, position);
            tombstones.executeUpdate();
        }
        return removed;
    }

    @Override
    public void renameTable(Connection c, TableName from, TableName to) throws SQLException {
        lockCatalog(c);
        try (Statement s = c.createStatement()) {
            if (from.schema().equals(to.schema())) {
                s.execute(
                        "ALTER TABLE "
                                + MergeSql.qualified(from)
                                + " RENAME TO "
                                + MergeSql.quote(to.table()));
            } else {
                // DuckDB cannot move a table between schemas; a copy works on both
                s.execute("CREATE SCHEMA IF NOT EXISTS " + MergeSql.quote(to.schema()));
                s.execute(
                        "CREATE TABLE "
                                + MergeSql.qualified(to)
                                + " AS SELECT * FROM "
                                + MergeSql.qualified(from));
                s.execute("DROP TABLE " + MergeSql.qualified(from));
            }
        }
        try (PreparedStatement drop =
                        c.prepareStatement("DELETE FROM cdc_lab.tombstones WHERE table_name = ?");
                PreparedStatement tombstones =
                        c.prepareStatement(
                                "UPDATE cdc_lab.tombstones SET table_name = ? WHERE table_name ="
                                        + " ?")) {
            drop.setString(1, to.toString());
            drop.executeUpdate();
            tombstones.setString(1, to.toString());
            tombstones.setString(2, from.toString());
            tombstones.executeUpdate();
        }
    }

    @Override
    public void renameColumn(Connection c, TableName t, String from, String to)
            throws SQLException {
        lockCatalog(c);
        try (Statement s = c.createStatement()) {
            s.execute(
                    "ALTER TABLE "
                            + MergeSql.qualified(t)
                            + " RENAME COLUMN "
                            + MergeSql.quote(from)
                            + " TO "
                            + MergeSql.quote(to));
        }
    }

    @Override
    public void forgetTable(Connection c, TableName t) throws SQLException {
        for (String table : List.of("cdc_lab.tombstones", "cdc_lab.table_state")) {
            try (PreparedStatement ps =
                    c.prepareStatement("DELETE FROM " + table + " WHERE table_name = ?")) {
                ps.setString(1, t.toString());
                ps.executeUpdate();
            }
        }
    }

    private static final String STATE_COLUMNS =
            "emptied_at, keyless_through, diverged, schema_at, moves, column_changes";

    private static TableState state(ResultSet rs, int from) throws SQLException {
        return new TableState(
                rs.getString(from),
                rs.getString(from + 1),
                rs.getString(from + 2),
                rs.getString(from + 3),
                TableState.movesOf(rs.getString(from + 4)),
                TableState.columnChangesOf(rs.getString(from + 5)));
    }

    @Override
    public TableState loadTableState(Connection c, TableName t) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT "
                                + STATE_COLUMNS
                                + " FROM cdc_lab.table_state WHERE table_name = ?")) {
            ps.setString(1, t.toString());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? state(rs, 1) : TableState.NONE;
            }
        }
    }

    @Override
    public void saveTableState(Connection c, TableName t, TableState state) throws SQLException {
        try (PreparedStatement delete =
                        c.prepareStatement("DELETE FROM cdc_lab.table_state WHERE table_name = ?");
                PreparedStatement insert =
                        c.prepareStatement(
                                "INSERT INTO cdc_lab.table_state (table_name, "
                                        + STATE_COLUMNS
                                        + ") VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            delete.setString(1, t.toString());
            delete.executeUpdate();
            if (state.equals(TableState.NONE)) {
                return;
            }
            insert.setString(1, t.toString());
            insert.setString(2, state.emptiedAt());
            insert.setString(3, state.keylessThrough());
            insert.setString(4, state.diverged());
            insert.setString(5, state.schemaAt());
            insert.setString(6, state.movesJson());
            insert.setString(7, state.columnChangesJson());
            insert.executeUpdate();
        }
    }

    @Override
    public Map<TableName, TableState> tableStates(Connection c) throws SQLException {
        Map<TableName, TableState> out = new LinkedHashMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT table_name, "
                                        + STATE_COLUMNS
                                        + " FROM cdc_lab.table_state ORDER BY table_name")) {
            while (rs.next()) {
                out.put(TableName.of(rs.getString(1)), state(rs, 2));
            }
        }
        return out;
    }

    @Override
    public boolean sameType(String existing, String wanted) {
        return normalizedType(existing).equals(normalizedType(wanted));
    }

    /** A type name in one spelling: upper case, the SQL standard's long names shortened. */
    static String normalizedType(String type) {
        String t = type.trim().toUpperCase(java.util.Locale.ROOT).replace(", ", ",");
        t =
                t.replace("TIMESTAMP WITHOUT TIME ZONE", "TIMESTAMP")
                        .replace("TIMESTAMP WITH TIME ZONE", "TIMESTAMPTZ")
                        .replace("TIME WITHOUT TIME ZONE", "TIME")
                        .replace("TIME WITH TIME ZONE", "TIMETZ")
                        .replace("CHARACTER VARYING", "VARCHAR");
        // every text type holds what the sink writes as text
        return t.matches("(VARCHAR|TEXT|CHARACTER|CHAR|BPCHAR)(\\(\\d+\\))?") ? "TEXT" : t;
    }

    /** True when every non-NULL value of the column casts to {@code type}; DuckDB can tell. */
    protected abstract boolean castsInPlace(Connection c, TableName t, String column, String type)
            throws SQLException;

    @Override
    public String changeColumnType(Connection c, TableName t, ColumnSpec col, String oldType)
            throws SQLException {
        lockCatalog(c);
        String type = sqlType(ColumnKind.of(col), col);
        String q = MergeSql.quote(col.name());
        try (Statement s = c.createStatement()) {
            if (castsInPlace(c, t, col.name(), type)) {
                s.execute(
                        "ALTER TABLE "
                                + MergeSql.qualified(t)
                                + " ALTER COLUMN "
                                + q
                                + " TYPE "
                                + type
                                + " USING CAST("
                                + q
                                + " AS "
                                + type
                                + ")");
                return null;
            }
            String name = asideName(c, t, col, oldType);
            s.execute(
                    "ALTER TABLE "
                            + MergeSql.qualified(t)
                            + " RENAME COLUMN "
                            + q
                            + " TO "
                            + MergeSql.quote(name));
            s.execute("ALTER TABLE " + MergeSql.qualified(t) + " ADD COLUMN " + q + " " + type);
            return name;
        }
    }

    /** The name a column whose values do not cast to its new type is kept under. */
    protected String asideName(Connection c, TableName t, ColumnSpec col, String oldType)
            throws SQLException {
        String aside =
                col.name()
                        + "__was_"
                        + normalizedType(oldType)
                                .toLowerCase(java.util.Locale.ROOT)
                                .replaceAll("[^a-z0-9]+", "_");
        Map<String, String> existing = existingColumns(c, t);
        String name = aside;
        for (int i = 2; existing.containsKey(name); i++) {
            name = aside + "_" + i;
        }
        return name;
    }

    @Override
    public Map<String, String> existingColumns(Connection c, TableName t) throws SQLException {
        Map<String, String> cols = new LinkedHashMap<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT column_name, data_type FROM information_schema.columns WHERE"
                                + " table_schema = ? AND table_name = ? ORDER BY ordinal_position")) {
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

    /**
     * Type of the {@code _cdc_lsn} column: text that compares byte by byte, as {@link
     * dev.cdclab.change.SourcePosition}'s sortable forms need.
     */
    protected abstract String positionType();

    /**
     * Serialises DDL between writers of one warehouse until {@code c}'s transaction ends: several
     * sinks creating the same table at once must not race in the catalog. Nothing by default (a
     * DuckDB file has one writing process).
     */
    protected void lockCatalog(Connection c) throws SQLException {}

    /** Table constraints after the columns, e.g. {@code , PRIMARY KEY (id)}; empty for none. */
    protected abstract String constraints(List<ColumnSpec> columns);

    @Override
    public void createTable(Connection c, TableName t, List<ColumnSpec> columns)
            throws SQLException {
        lockCatalog(c);
        try (Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS " + quote(t.schema()));
            s.execute(
                    "CREATE TABLE IF NOT EXISTS "
                            + qualified(t)
                            + " ("
                            + MergeSql.columnDefinitions(columns, this::sqlType, positionType())
                            + constraints(columns)
                            + ")");
        }
    }

    @Override
    public void addColumn(Connection c, TableName t, ColumnSpec col) throws SQLException {
        addColumn(c, t, col, defaultText(col));
    }

    @Override
    public void addColumn(Connection c, TableName t, ColumnSpec col, String value)
            throws SQLException {
        lockCatalog(c);
        ColumnKind kind = ColumnKind.of(col);
        // an array's cast is a subquery (PostgreSQL) or a lambda, which a DEFAULT cannot hold:
        // the rows there are get the value by an UPDATE
        boolean inDefault = value != null && kind != ColumnKind.ARRAY;
        try (Statement s = c.createStatement()) {
            s.execute(
                    "ALTER TABLE "
                            + qualified(t)
                            + " ADD COLUMN IF NOT EXISTS "
                            + quote(col.name())
                            + " "
                            + sqlType(kind, col)
                            + (inDefault
                                    ? " DEFAULT " + cast(MergeSql.literal(value), kind, col)
                                    : ""));
            if (value != null && !inDefault) {
                s.execute(
                        "UPDATE "
                                + qualified(t)
                                + " SET "
                                + quote(col.name())
                                + " = "
                                + cast(MergeSql.literal(value), kind, col));
            }
        }
    }

    /**
     * The value, as staged text, of a column the source declares with a {@code DEFAULT}: the rows
     * that were there before the column was added hold it, in the source and so in the warehouse.
     * Null for none.
     */
    String defaultText(ColumnSpec col) {
        if (col.defaultJson() == null) {
            return null;
        }
        try {
            return ValueText.of(col, ColumnKind.of(col), MAPPER.readTree(col.defaultJson()));
        } catch (IOException e) {
            throw new UncheckedIOException("default of column " + col.name(), e);
        }
    }

    /**
     * Identity of a table's staging layout: names, key flags and warehouse types of its columns.
     */
    protected String signature(TableName t, List<ColumnSpec> columns) {
        return t
                + "|"
                + columns.stream()
                        .map(
                                col ->
                                        col.name()
                                                + (col.key() ? "*" : "")
                                                + ":"
                                                + sqlType(ColumnKind.of(col), col))
                        .collect(Collectors.joining(","));
    }
}
