package dev.cdclab.sink.warehouse;

import static dev.cdclab.sink.warehouse.MergeSql.quote;

import dev.cdclab.change.ColumnSpec;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * DuckDB warehouse: rows go into a temporary staging table through DuckDB's appender, then
 * set-based statements replace the changed rows: delete the versions being replaced, insert the new
 * ones. In a column store this beats UPDATE/MERGE, whose update chains slow every scan until the
 * next checkpoint.
 */
public final class DuckDbDialect extends SqlWarehouseDialect {
    private final Map<String, String> stages = new HashMap<>();
    private int stagesCreated;
    private final Map<String, String[]> statements = new HashMap<>();

    @Override
    public String name() {
        return "duckdb";
    }

    @Override
    public Connection connect(String url, String user, String password) throws SQLException {
        Connection c = DriverManager.getConnection(url);
        c.setAutoCommit(false);
        return c;
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
                            + " VARCHAR, lsn VARCHAR)");
            s.execute(
                    "CREATE TABLE IF NOT EXISTS cdc_lab.progress (id INTEGER, applied_through_ms"
                            + " BIGINT, committed_at_ms BIGINT)");
            s.execute(
                    "CREATE TABLE IF NOT EXISTS cdc_lab.table_state (table_name VARCHAR,"
                            + " emptied_at VARCHAR, keyless_through VARCHAR, diverged VARCHAR)");
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
                for (String v : r.values()) {
                    if (v == null) {
                        ap.appendNull();
                    } else {
                        ap.append(v);
                    }
                }
                ap.endRow();
            }
        }
    }

    @Override
    protected String positionType() {
        return "VARCHAR";
    }

    @Override
    protected String constraints(List<ColumnSpec> columns) {
        // no key index: it would slow every bulk delete/insert, and keys stay unique by merging
        return "";
    }

    @Override
    public void rolledBack() {
        // staging tables created in the rolled-back transaction are gone
        super.rolledBack();
        stages.clear();
        statements.clear();
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

    /** Columns the source no longer has are NULL in rows written: the rows are written whole. */
    @Override
    public long merge(
            Connection c,
            TableName t,
            List<ColumnSpec> columns,
            List<String> warehouseOnly,
            List<StagedRow> rows)
            throws SQLException {
        String signature = signature(t, columns);
        String stage = stages.get(signature);
        try (Statement s = c.createStatement()) {
            if (stage == null) {
                stage = "cdc_stage_" + stagesCreated++;
                s.execute(
                        "CREATE OR REPLACE TEMP TABLE "
                                + stage
                                + " (_op VARCHAR, _lsn VARCHAR, _commit_ms BIGINT, _key VARCHAR,"
                                + " _unchanged VARCHAR, "
                                + columns.stream()
                                        .map(col -> quote(col.name()) + " VARCHAR")
                                        .collect(Collectors.joining(", "))
                                + ")");
                stages.put(signature, stage);
                statements.put(
                        signature,
                        new String[] {
                            MergeSql.fillUnchanged(t, stage, columns, this::cast, this::toText),
                            MergeSql.deleteReplaced(t, stage, columns, this::cast, true),
                            MergeSql.deleteReplaced(t, stage, columns, this::cast, false),
                            MergeSql.insertNew(t, stage, columns, this::cast)
                        });
            } else {
                s.execute("DELETE FROM " + stage);
            }
            DuckDBConnection duck = c.unwrap(DuckDBConnection.class);
            try (DuckDBAppender ap = duck.createAppender("temp", "main", stage)) {
                for (StagedRow r : rows) {
                    ap.beginRow();
                    ap.append(r.delete() ? "d" : "u");
                    ap.append(r.position());
                    ap.append(r.commitMs());
                    ap.append(r.key());
                    ap.append(r.unchanged());
                    for (String v : r.values()) {
                        if (v == null) {
                            ap.appendNull();
                        } else {
                            ap.append(v);
                        }
                    }
                    ap.endRow();
                }
            }
            String[] sql = statements.get(signature);
            boolean unchanged = false;
            boolean deletes = false;
            for (StagedRow r : rows) {
                unchanged |= !r.delete() && r.unchanged().length() > 1;
                deletes |= r.delete();
            }
            if (unchanged) {
                s.executeUpdate(sql[0]);
            }
            long written = 0;
            if (deletes) {
                written += s.executeUpdate(sql[1]);
            }
            s.executeUpdate(sql[2]);
            written += s.executeUpdate(sql[3]);
            if (deletes) {
                s.executeUpdate(MergeSql.tombstones(t, stage));
            }
            return written;
        }
    }

    @Override
    public void saveProgress(Connection c, long appliedThroughMs, long committedAtMs)
            throws SQLException {
        try (Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM cdc_lab.progress");
            s.executeUpdate(
                    "INSERT INTO cdc_lab.progress VALUES (1, "
                            + appliedThroughMs
                            + ", "
                            + committedAtMs
                            + ")");
        }
    }
}
