package dev.cdclab.sink.warehouse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.change.ColumnSpec;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** DuckDB stages the merges of one warehouse transaction together, in one shared table. */
class DuckDbSharedStagingTest {
    private static final TableName ITEMS = new TableName("public", "items");
    private static final TableName WIDE = new TableName("public", "wide");
    private static final TableName WIDER = new TableName("public", "wider");

    @TempDir Path dir;

    private final DuckDbDialect dialect = new DuckDbDialect();
    private Connection c;

    @BeforeEach
    void open() throws SQLException {
        c = dialect.connect("jdbc:duckdb:" + dir.resolve("w.duckdb"), null, null);
        dialect.createMetadataTables(c);
        dialect.createTable(c, ITEMS, columns(2));
        dialect.createTable(c, WIDE, columns(4));
        dialect.createTable(c, WIDER, columns(6));
        c.commit();
    }

    @AfterEach
    void close() throws SQLException {
        c.close();
        DuckDbDialect.stageRowsBeforeRenewal = DuckDbDialect.STAGE_ROWS_BEFORE_RENEWAL;
    }

    @Test
    void theTablesOfATransactionShareOneStagingTableEachReadingItsOwnRows() throws Exception {
        long written =
                dialect.mergeAll(
                        c,
                        List.of(
                                request(ITEMS, 2, insert(1, 1, "a"), insert(2, 2, "b")),
                                request(WIDE, 4, insert(5, 1, "w"), insert(6, 7, "x")),
                                // a second generation of a table in the same transaction
                                request(ITEMS, 2, update(3, 1, "a2"), delete(4, 2))));
        c.commit();

        assertThat(written).isEqualTo(6);
        assertThat(rows(ITEMS)).containsExactly("1|a2");
        assertThat(rows(WIDE)).containsExactly("1|w|w|w", "7|x|x|x");
        assertThat(temporaryTables()).as("one staging table for both tables").hasSize(1);

        String before = temporaryTables().get(0);
        dialect.mergeAll(
                c,
                List.of(
                        request(WIDER, 6, insert(9, 6, "z")),
                        request(WIDE, 4, insert(10, 8, "y"))));
        c.commit();
        assertThat(rows(WIDER)).containsExactly("6|z|z|z|z|z");
        assertThat(rows(WIDE)).containsExactly("1|w|w|w", "7|x|x|x", "8|y|y|y");
        assertThat(temporaryTables())
                .as("a wider table replaces the shared staging table")
                .hasSize(1)
                .doesNotContain(before);

        dialect.mergeAll(
                c, List.of(request(ITEMS, 2, insert(11, 5, "c")), request(WIDE, 4, delete(12, 8))));
        c.commit();
        assertThat(rows(ITEMS)).containsExactly("1|a2", "5|c");
        assertThat(rows(WIDE)).containsExactly("1|w|w|w", "7|x|x|x");
        assertThat(temporaryTables()).as("narrower tables fit the wider one").hasSize(1);

        dialect.mergeAll(c, List.of(request(ITEMS, 2, insert(13, 6, "d"))));
        c.commit();
        assertThat(rows(ITEMS)).containsExactly("1|a2", "5|c", "6|d");
        assertThat(temporaryTables())
                .as("one table's rows take a staging table of its own")
                .hasSize(2);
    }

    @Test
    void theDeletesOfEveryTableLeaveTombstonesAndTheRowsTheyRemovedAreCounted() throws Exception {
        dialect.mergeAll(
                c,
                List.of(
                        request(ITEMS, 2, insert(1, 1, "a"), insert(2, 2, "b")),
                        request(WIDE, 4, insert(3, 1, "w"), insert(4, 2, "x"))));
        c.commit();

        long written =
                dialect.mergeAll(
                        c,
                        List.of(
                                // key 9 was never written: its delete removes nothing
                                request(ITEMS, 2, delete(5, 1), update(6, 2, "b2"), delete(7, 9)),
                                request(WIDE, 4, delete(8, 2))));
        c.commit();

        assertThat(written).as("two rows deleted, one new version").isEqualTo(3);
        assertThat(rows(ITEMS)).containsExactly("2|b2");
        assertThat(rows(WIDE)).containsExactly("1|w|w|w");
        assertThat(tombstones())
                .containsExactlyInAnyOrder(
                        ITEMS + "|{\"id\":1}|00000005",
                        ITEMS + "|{\"id\":9}|00000007",
                        WIDE + "|{\"id\":2}|00000008");

        long replayed =
                dialect.mergeAll(
                        c,
                        List.of(
                                replay(request(ITEMS, 2, insert(1, 1, "a"))),
                                replay(request(WIDE, 4, insert(4, 2, "x")))));
        c.commit();
        assertThat(replayed).isZero();
        assertThat(rows(ITEMS)).as("the tombstones keep a replay out").containsExactly("2|b2");
        assertThat(rows(WIDE)).containsExactly("1|w|w|w");
    }

    @Test
    void aMergeThatFillsUnchangedColumnsStagesInATableOfItsOwn() throws Exception {
        dialect.mergeAll(c, List.of(request(WIDE, 4, insert(1, 1, "w"))));
        c.commit();
        String[] partial = {"1", "new", null, "new"};
        StagedRow keepsColumn2 =
                new StagedRow(false, false, pos(2), 2, "{\"id\":1}", "\u001fc2\u001f", partial);

        dialect.mergeAll(
                c,
                List.of(
                        request(ITEMS, 2, insert(3, 1, "i")),
                        new WarehouseDialect.MergeRequest(
                                WIDE, columns(4), List.of(), List.of(keepsColumn2), true)));
        c.commit();

        assertThat(rows(WIDE)).containsExactly("1|new|w|new");
        assertThat(rows(ITEMS)).containsExactly("1|i");
        assertThat(temporaryTables()).hasSize(2);
    }

    @Test
    void theSharedStagingTableIsReplacedOnceItHasTakenItsRows() throws Exception {
        DuckDbDialect.stageRowsBeforeRenewal = 3;
        List<String> seen = new ArrayList<>();
        for (int round = 0; round < 4; round++) {
            dialect.mergeAll(
                    c,
                    List.of(
                            request(ITEMS, 2, insert(round + 1, round * 2, "a")),
                            request(WIDE, 4, insert(round + 1, round * 2 + 1, "b"))));
            c.commit();
            assertThat(temporaryTables()).hasSize(1);
            if (!seen.contains(temporaryTables().get(0))) {
                seen.add(temporaryTables().get(0));
            }
        }
        // 2 rows a round, replaced once 3 were taken: rounds 1-2, 3-4
        assertThat(seen).hasSize(2);
        assertThat(rows(ITEMS)).hasSize(4);
        assertThat(rows(WIDE)).hasSize(4);
    }

    private static List<ColumnSpec> columns(int n) {
        List<ColumnSpec> out = new ArrayList<>();
        out.add(new ColumnSpec("id", "INT32", true, false, null, null, "int32", null));
        for (int i = 1; i < n; i++) {
            out.add(new ColumnSpec("c" + i, "STRING", false, true, null, null, "string", null));
        }
        return out;
    }

    private static String pos(long lsn) {
        return String.format("%08d", lsn);
    }

    private static StagedRow insert(long lsn, int id, String text) {
        return row(false, true, lsn, id, text);
    }

    private static StagedRow update(long lsn, int id, String text) {
        return row(false, false, lsn, id, text);
    }

    private static StagedRow delete(long lsn, int id) {
        return row(true, false, lsn, id, null);
    }

    private static StagedRow row(boolean delete, boolean absent, long lsn, int id, String text) {
        return new StagedRow(
                delete, absent, pos(lsn), lsn, "{\"id\":" + id + "}", "|", values(id, text));
    }

    /** The row's values, as wide as the widest table: each request keeps its table's share. */
    private static String[] values(int id, String text) {
        String[] v = new String[6];
        v[0] = Integer.toString(id);
        for (int i = 1; i < v.length; i++) {
            v[i] = text;
        }
        return v;
    }

    private static WarehouseDialect.MergeRequest request(
            TableName t, int width, StagedRow... rows) {
        List<StagedRow> fitted = new ArrayList<>();
        for (StagedRow r : rows) {
            String[] v = java.util.Arrays.copyOf(r.values(), width);
            fitted.add(
                    new StagedRow(
                            r.delete(),
                            r.absent(),
                            r.position(),
                            r.commitMs(),
                            r.key(),
                            r.unchanged(),
                            v));
        }
        return new WarehouseDialect.MergeRequest(t, columns(width), List.of(), fitted, true);
    }

    /** The same rows, read again after a restart: not known to be newer than the table. */
    private static WarehouseDialect.MergeRequest replay(WarehouseDialect.MergeRequest r) {
        return new WarehouseDialect.MergeRequest(
                r.table(), r.columns(), r.warehouseOnly(), r.rows(), false);
    }

    private List<String> tombstones() throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT table_name, key, lsn FROM cdc_lab.tombstones")) {
            while (rs.next()) {
                out.add(rs.getString(1) + "|" + rs.getString(2) + "|" + rs.getString(3));
            }
        }
        return out;
    }

    private List<String> rows(TableName t) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT * FROM " + MergeSql.qualified(t) + " ORDER BY 1")) {
            int n = rs.getMetaData().getColumnCount() - 2;
            while (rs.next()) {
                StringBuilder sb = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    sb.append(i > 1 ? "|" : "").append(rs.getString(i));
                }
                out.add(sb.toString());
            }
        }
        return out;
    }

    private List<String> temporaryTables() throws SQLException {
        return DuckDbStagingTableTest.temporaryTables(c);
    }
}
