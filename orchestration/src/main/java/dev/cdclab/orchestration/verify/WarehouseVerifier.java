package dev.cdclab.orchestration.verify;

import dev.cdclab.config.SourceKind;
import dev.cdclab.sink.warehouse.ColumnKind;
import dev.cdclab.sink.warehouse.TableName;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Compares source tables with their warehouse copies: row count, an order-independent checksum of
 * every row's canonical content, and the first differing keys, found by merging both sides in key
 * order.
 */
public final class WarehouseVerifier {
    private static final int MAX_DIFFERENCES = 10;

    /** Opens connections. */
    @FunctionalInterface
    public interface Connector {
        Connection open() throws SQLException;
    }

    private final Connector source;
    private final Connector warehouse;
    private final SourceCatalog catalog;
    private Map<String, List<String>> capturedColumns = Map.of();

    /** A verifier of a PostgreSQL source. */
    public WarehouseVerifier(Connector source, Connector warehouse) {
        this(source, warehouse, SourceCatalog.of(SourceKind.POSTGRES));
    }

    public WarehouseVerifier(Connector source, Connector warehouse, SourceCatalog catalog) {
        this.source = source;
        this.warehouse = warehouse;
        this.catalog = catalog;
    }

    /**
     * Compares only the captured columns (and the keys): table ({@code schema.table} or {@code
     * table}, {@code ""} for every table) to column names, as {@code capture.captured.columns}
     * gives them. Empty compares every column.
     */
    public WarehouseVerifier capturedColumns(Map<String, List<String>> byTable) {
        this.capturedColumns = Map.copyOf(byTable);
        return this;
    }

    private final List<String> notLanding = new ArrayList<>();

    private List<TableColumn> captured(TableName name, List<TableColumn> cols) {
        List<String> only = capturedColumns.get(name.schema() + "." + name.table());
        if (only == null) {
            only = capturedColumns.get(name.table());
        }
        if (only == null) {
            only = capturedColumns.get("");
        }
        if (only == null) {
            return cols;
        }
        java.util.Set<String> keep = new java.util.HashSet<>(only);
        return cols.stream().filter(c -> c.key() || keep.contains(c.name())).toList();
    }

    /**
     * Compares every table of the given source schemas: by key where the table has one (its primary
     * key, or the index its replica identity names), else as multisets of rows. Tables the
     * warehouse has and the source no longer does are listed, not compared.
     *
     * @throws SQLException when a database cannot be read
     */
    public VerificationResult verify(List<String> schemas) throws SQLException {
        List<TableResult> results = new ArrayList<>();
        notLanding.clear();
        try (Connection src = source.open();
                Connection wh = warehouse.open()) {
            Map<TableName, String> diverged = divergedTables(wh);
            List<TableName> sourceTables = catalog.tables(src, schemas);
            for (TableName table : sourceTables) {
                results.add(compare(src, wh, table, diverged.get(table)));
            }
            for (TableName table : warehouseTables(wh, schemas)) {
                if (!sourceTables.contains(table)) {
                    String why = diverged.get(table);
                    results.add(
                            TableResult.skipped(
                                    table.toString(),
                                    why != null
                                            ? why
                                            : "only in the warehouse (dropped or renamed at the"
                                                    + " source while its DDL was not followed):"
                                                    + " kept as it was"));
                }
            }
        }
        return new VerificationResult(results, List.copyOf(notLanding));
    }

    /**
     * Why tables no longer follow the source, as the sink recorded it; empty where it recorded
     * none.
     */
    private static Map<TableName, String> divergedTables(Connection wh) throws SQLException {
        Map<TableName, String> out = new java.util.HashMap<>();
        if (!warehouseHas(wh, "cdc_lab", "table_state")) {
            return out;
        }
        try (Statement s = wh.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT table_name, diverged FROM cdc_lab.table_state WHERE"
                                        + " diverged IS NOT NULL")) {
            while (rs.next()) {
                out.put(TableName.of(rs.getString(1)), rs.getString(2));
            }
        }
        return out;
    }

    private static List<TableName> warehouseTables(Connection wh, List<String> schemas)
            throws SQLException {
        List<TableName> out = new ArrayList<>();
        try (Statement s = wh.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT table_schema, table_name FROM information_schema.tables"
                                        + " WHERE table_type = 'BASE TABLE' ORDER BY 1, 2")) {
            while (rs.next()) {
                if (schemas.contains(rs.getString(1))) {
                    out.add(new TableName(rs.getString(1), rs.getString(2)));
                }
            }
        }
        return out;
    }

    private TableResult compare(Connection src, Connection wh, TableName name, String diverged)
            throws SQLException {
        String table = name.schema() + "." + name.table();
        List<TableColumn> cols = captured(name, catalog.columns(src, name));
        java.util.Map<String, String> cannot = catalog.notLanding(src, name);
        if (!cannot.isEmpty()) {
            cannot.forEach((col, why) -> notLanding.add(table + "." + col + ": " + why));
            cols = cols.stream().filter(c -> !cannot.containsKey(c.name())).toList();
        }
        List<TableColumn> keys = cols.stream().filter(TableColumn::key).toList();
        String notCaptured = catalog.notCaptured(src, name);
        if (notCaptured != null) {
            return TableResult.skipped(table, notCaptured);
        }
        TableResult result =
                keys.isEmpty()
                        ? compareRows(src, wh, name, cols)
                        : compareByKey(src, wh, name, cols, keys);
        if (diverged != null) {
            List<Difference> diffs = new ArrayList<>();
            diffs.add(Difference.table("diverged: " + diverged));
            diffs.addAll(result.differences());
            return new TableResult(
                    result.table(),
                    result.sourceRows(),
                    result.warehouseRows(),
                    result.sourceChecksum(),
                    result.warehouseChecksum(),
                    diffs,
                    null,
                    result.comparedAs());
        }
        return result;
    }

    /** A table missing in the warehouse: a match only when the source table is empty. */
    private TableResult missing(Connection src, String table, TableName name, String comparedAs)
            throws SQLException {
        long n = count(src, catalog.qualified(name));
        if (n == 0) {
            // nothing was ever written, so nothing was captured: still a match
            return new TableResult(table, 0, 0, "0", "0", List.of(), null, comparedAs);
        }
        return new TableResult(
                table,
                n,
                0,
                "",
                "",
                List.of(Difference.table("table missing in the warehouse")),
                null,
                comparedAs);
    }

    /**
     * A table without a key, compared as multisets of rows: equal counts and checksums of the
     * canonical rows mean equal tables (duplicate rows counted as often as they occur); otherwise
     * the rows on one side only are listed, found by counting each distinct row.
     */
    private TableResult compareRows(
            Connection src, Connection wh, TableName name, List<TableColumn> cols)
            throws SQLException {
        String table = name.schema() + "." + name.table();
        String comparedAs = "rows (no key)";
        if (!warehouseHas(wh, name.schema(), name.table())) {
            return missing(src, table, name, comparedAs);
        }
        Map<String, String> whTypes = warehouseColumns(wh, name.schema(), name.table());
        List<Difference> diffs = new ArrayList<>();
        cols = readable(cols, whTypes, diffs);
        boolean duckDb = isDuckDb(wh);
        List<TableColumn> read = cols;
        String srcSelect =
                "SELECT "
                        + read.stream().map(catalog::select).collect(Collectors.joining(", "))
                        + " FROM "
                        + catalog.qualified(name);
        String whSelect =
                "SELECT "
                        + read.stream()
                                .map(c -> warehouseColumn(c, whTypes.get(c.name()), duckDb))
                                .collect(Collectors.joining(", "))
                        + " FROM "
                        + quote(name.schema())
                        + "."
                        + quote(name.table());
        Side s = new Side(duckDb);
        Side w = new Side(false);
        scan(src, srcSelect, s, cols, null);
        scan(wh, whSelect, w, cols, null);
        if (s.rows != w.rows || s.checksum != w.checksum) {
            Map<String, Integer> counts = new java.util.HashMap<>();
            if (s.rows + w.rows <= MAX_ROWS_TO_LIST) {
                Side s2 = new Side(isDuckDb(wh));
                Side w2 = new Side(false);
                scan(src, srcSelect, s2, cols, row -> counts.merge(row, 1, Integer::sum));
                scan(wh, whSelect, w2, cols, row -> counts.merge(row, -1, Integer::sum));
                for (Map.Entry<String, Integer> e : counts.entrySet()) {
                    for (int i = 0; i < Math.abs(e.getValue()); i++) {
                        addDiff(
                                diffs,
                                e.getValue() > 0
                                        ? Difference.missing(e.getKey())
                                        : Difference.extra(e.getKey()));
                    }
                }
            }
        }
        return new TableResult(
                table,
                s.rows,
                w.rows,
                Long.toHexString(s.checksum),
                Long.toHexString(w.checksum),
                diffs,
                null,
                comparedAs);
    }

    /** More rows than this are compared by count and checksum only, without listing rows. */
    private static final long MAX_ROWS_TO_LIST = 2_000_000;

    private void scan(
            Connection c,
            String select,
            Side side,
            List<TableColumn> cols,
            java.util.function.Consumer<String> rows)
            throws SQLException {
        boolean auto = c.getAutoCommit();
        try (Statement st = c.createStatement()) {
            if (auto) {
                c.setAutoCommit(false);
            }
            st.setFetchSize(10_000);
            try (ResultSet rs = st.executeQuery(select)) {
                String[] row;
                while ((row = side.next(rs, cols)) != null) {
                    if (rows != null) {
                        rows.accept(rowText(row, cols));
                    }
                }
            }
        } finally {
            if (auto) {
                c.commit();
                c.setAutoCommit(true);
            }
        }
    }

    private static String rowText(String[] row, List<TableColumn> cols) {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < cols.size(); i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(cols.get(i).name()).append('=').append(row[i]);
        }
        return sb.append(')').toString();
    }

    private TableResult compareByKey(
            Connection src,
            Connection wh,
            TableName name,
            List<TableColumn> cols,
            List<TableColumn> keys)
            throws SQLException {
        String table = name.schema() + "." + name.table();
        String comparedAs =
                "key ("
                        + keys.stream().map(TableColumn::name).collect(Collectors.joining(", "))
                        + ")";
        String srcTable = catalog.qualified(name);
        String whTable = quote(name.schema()) + "." + quote(name.table());
        if (!warehouseHas(wh, name.schema(), name.table())) {
            return missing(src, table, name, comparedAs);
        }
        Map<String, String> whTypes = warehouseColumns(wh, name.schema(), name.table());
        List<Difference> diffs = new ArrayList<>();
        cols = readable(cols, whTypes, diffs);
        if (cols.stream().filter(TableColumn::key).count() != keys.size()) {
            return new TableResult(table, count(src, srcTable), 0, "", "", diffs, null, comparedAs);
        }
        boolean duckDb = isDuckDb(wh);
        String srcSelect = cols.stream().map(catalog::select).collect(Collectors.joining(", "));
        String select =
                cols.stream()
                        .map(c -> warehouseColumn(c, whTypes.get(c.name()), duckDb))
                        .collect(Collectors.joining(", "));
        String srcOrder = keys.stream().map(catalog::orderBy).collect(Collectors.joining(", "));
        String whOrder = keys.stream().map(k -> quote(k.name())).collect(Collectors.joining(", "));
        // DuckDB's DECIMAL cannot hold NaN or infinity; the sink writes NULL there
        Side s = new Side(duckDb);
        Side w = new Side(false);
        try (Statement ss = src.createStatement();
                Statement ws = wh.createStatement()) {
            ss.setFetchSize(10_000);
            src.setAutoCommit(false);
            try (ResultSet sr =
                            ss.executeQuery(
                                    "SELECT "
                                            + srcSelect
                                            + " FROM "
                                            + srcTable
                                            + " ORDER BY "
                                            + srcOrder);
                    ResultSet wr =
                            ws.executeQuery(
                                    "SELECT "
                                            + select
                                            + " FROM "
                                            + whTable
                                            + " ORDER BY "
                                            + whOrder)) {
                String[] a = s.next(sr, cols);
                String[] b = w.next(wr, cols);
                while (a != null || b != null) {
                    int c = a == null ? 1 : b == null ? -1 : compareKeys(a, b, cols);
                    if (c < 0) {
                        addDiff(diffs, Difference.missing(key(a, cols)));
                        a = s.next(sr, cols);
                    } else if (c > 0) {
                        addDiff(diffs, Difference.extra(key(b, cols)));
                        b = w.next(wr, cols);
                    } else {
                        for (int i = 0; i < cols.size(); i++) {
                            if (!Objects.equals(a[i], b[i])) {
                                addDiff(
                                        diffs,
                                        Difference.value(
                                                key(a, cols), cols.get(i).name(), a[i], b[i]));
                                break;
                            }
                        }
                        a = s.next(sr, cols);
                        b = w.next(wr, cols);
                    }
                }
            } finally {
                src.commit();
                src.setAutoCommit(true);
            }
        }
        return new TableResult(
                table,
                s.rows,
                w.rows,
                Long.toHexString(s.checksum),
                Long.toHexString(w.checksum),
                diffs,
                null,
                comparedAs);
    }

    /**
     * The columns both sides have, as the warehouse holds them; a column the connector does not
     * send (e.g. {@code interval[]}) never reaches the warehouse, and is a difference.
     */
    private static List<TableColumn> readable(
            List<TableColumn> cols, Map<String, String> whTypes, List<Difference> diffs) {
        for (TableColumn c : cols) {
            if (!whTypes.containsKey(c.name())) {
                addDiff(
                        diffs,
                        Difference.table(
                                "column "
                                        + c.name()
                                        + " ("
                                        + c.sourceType()
                                        + ") missing in the warehouse"));
            }
        }
        return cols.stream()
                .filter(c -> whTypes.containsKey(c.name()))
                .map(c -> asHeld(c, whTypes.get(c.name())))
                .toList();
    }

    private static void addDiff(List<Difference> diffs, Difference d) {
        if (diffs.size() < MAX_DIFFERENCES) {
            diffs.add(d);
        }
    }

    private static long count(Connection c, String table) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static boolean warehouseHas(Connection wh, String schema, String table)
            throws SQLException {
        try (PreparedStatement ps =
                wh.prepareStatement(
                        "SELECT count(*) FROM information_schema.tables WHERE table_schema = ? AND"
                                + " table_name = ?")) {
            ps.setString(1, schema);
            ps.setString(2, table);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1) > 0;
            }
        }
    }

    private static int compareKeys(String[] a, String[] b, List<TableColumn> cols) {
        for (int i = 0; i < cols.size(); i++) {
            TableColumn c = cols.get(i);
            if (!c.key()) {
                continue;
            }
            int r = compareValue(a[i], b[i], c.kind());
            if (r != 0) {
                return r;
            }
        }
        return 0;
    }

    private static int compareValue(String x, String y, ColumnKind kind) {
        if (x == null || y == null) {
            return x == null ? (y == null ? 0 : -1) : 1;
        }
        return switch (kind) {
            case INT16, INT32, INT64 -> Long.compare(Long.parseLong(x), Long.parseLong(y));
            case DECIMAL, NUMERIC_TEXT ->
                    new java.math.BigDecimal(x).compareTo(new java.math.BigDecimal(y));
            case FLOAT32, FLOAT64 -> Double.compare(Double.parseDouble(x), Double.parseDouble(y));
            default ->
                    java.util.Arrays.compareUnsigned(
                            x.getBytes(StandardCharsets.UTF_8), y.getBytes(StandardCharsets.UTF_8));
        };
    }

    private static String key(String[] row, List<TableColumn> cols) {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < cols.size(); i++) {
            if (cols.get(i).key()) {
                if (sb.length() > 1) {
                    sb.append(", ");
                }
                sb.append(cols.get(i).name()).append('=').append(row[i]);
            }
        }
        return sb.append(')').toString();
    }

    private static String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }

    /** Column name to {@code information_schema} data type of a warehouse table. */
    private static Map<String, String> warehouseColumns(Connection wh, String schema, String table)
            throws SQLException {
        Map<String, String> types = new HashMap<>();
        try (PreparedStatement ps =
                wh.prepareStatement(
                        "SELECT column_name, data_type FROM information_schema.columns WHERE"
                                + " table_schema = ? AND table_name = ?")) {
            ps.setString(1, schema);
            ps.setString(2, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    types.put(rs.getString(1), rs.getString(2).toUpperCase(Locale.ROOT));
                }
            }
        }
        return types;
    }

    /**
     * Dates, times and timestamps are read as the warehouse's own text: DuckDB's JDBC driver turns
     * infinities into far-off (or wrapped-around) values and fails on 24:00:00; its text does
     * neither. Timestamps with time zone are read at UTC: DuckDB's text drops the seconds of an old
     * local-mean-time offset (+00:53:28 for Berlin), and UTC has none; in DuckDB through epoch
     * microseconds, as its time zone conversion overflows within days of its largest timestamp.
     * Arrays are read as arrays of element texts. A column of another type than the mapping gives
     * (made by an earlier mapping: arrays as JSON text) is read as it is.
     */
    private static String warehouseColumn(TableColumn c, String type, boolean duckDb) {
        String q = quote(c.name());
        return switch (c.kind()) {
            case DATE, TIME, TIMESTAMP -> "CAST(" + q + " AS VARCHAR)";
            case TIMESTAMPTZ ->
                    duckDb ? duckDbTimestamptz(q) : "CAST(" + q + " AT TIME ZONE 'UTC' AS VARCHAR)";
            case INTERVAL, BITS, JSON -> duckDb ? "CAST(" + q + " AS VARCHAR)" : q;
            case POINT ->
                    duckDb && type.startsWith("STRUCT") ? "CAST(to_json(" + q + ") AS VARCHAR)" : q;
            case ARRAY -> {
                if (!(duckDb ? type.endsWith("[]") : type.equals("ARRAY"))) {
                    yield q;
                }
                yield duckDb
                        ? "list_transform("
                                + q
                                + ", lambda _e: "
                                + duckDbElementText("_e", c.element().kind())
                                + ")"
                        : "CAST(" + q + " AS TEXT[])";
            }
            default -> q;
        };
    }

    /** A DuckDB list element as text. */
    private static String duckDbElementText(String e, ColumnKind kind) {
        return switch (kind) {
            case TIMESTAMPTZ -> duckDbTimestamptz(e);
            case BYTES -> "hex(" + e + ")";
            default -> "CAST(" + e + " AS VARCHAR)";
        };
    }

    private static String duckDbTimestamptz(String q) {
        return "CASE WHEN isinf("
                + q
                + ") THEN CAST("
                + q
                + " AS VARCHAR) ELSE CAST(make_timestamp(epoch_us("
                + q
                + ")) AS VARCHAR) END";
    }

    /**
     * A column as the warehouse holds it: an interval in a BIGINT column (an earlier mapping)
     * compares as Debezium's microseconds.
     */
    private static TableColumn asHeld(TableColumn c, String type) {
        return c.kind() == ColumnKind.INTERVAL && "BIGINT".equals(type)
                ? new TableColumn(c.name(), ColumnKind.INTERVAL_MICROS, c.key(), c.sourceType())
                : c;
    }

    private static boolean isDuckDb(Connection wh) throws SQLException {
        return wh.getMetaData()
                .getDatabaseProductName()
                .toLowerCase(Locale.ROOT)
                .contains("duckdb");
    }

    /** One side of the merge: reads canonical rows and accumulates count and checksum. */
    private static final class Side {
        private final boolean decimalSpecialsAsNull;
        long rows;
        long checksum;

        Side(boolean decimalSpecialsAsNull) {
            this.decimalSpecialsAsNull = decimalSpecialsAsNull;
        }

        String[] next(ResultSet rs, List<TableColumn> cols) throws SQLException {
            if (!rs.next()) {
                return null;
            }
            String[] row = new String[cols.size()];
            long h = 0xcbf29ce484222325L;
            for (int i = 0; i < row.length; i++) {
                row[i] = CanonicalValue.read(rs, i + 1, cols.get(i));
                if (decimalSpecialsAsNull
                        && cols.get(i).kind() == ColumnKind.DECIMAL
                        && CanonicalValue.isSpecialNumber(row[i])) {
                    row[i] = null;
                }
                h = fnv(h, row[i] == null ? "\u0000null" : row[i]);
                h = fnv(h, "\u0001");
            }
            rows++;
            checksum += mix(h);
            return row;
        }

        private static long fnv(long h, String s) {
            for (int i = 0; i < s.length(); i++) {
                h ^= s.charAt(i);
                h *= 0x100000001b3L;
            }
            return h;
        }

        private static long mix(long z) {
            z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
            z = (z ^ (z >>> 33)) * 0xc4ceb93fe53ccd53L;
            return z ^ (z >>> 33);
        }
    }
}
