package dev.cdclab.sink.warehouse;

import static dev.cdclab.sink.warehouse.NetChanges.M;
import static dev.cdclab.sink.warehouse.NetChanges.delete;
import static dev.cdclab.sink.warehouse.NetChanges.insert;
import static dev.cdclab.sink.warehouse.NetChanges.keyless;
import static dev.cdclab.sink.warehouse.NetChanges.logRow;
import static dev.cdclab.sink.warehouse.NetChanges.row;
import static dev.cdclab.sink.warehouse.NetChanges.snapshotRead;
import static dev.cdclab.sink.warehouse.NetChanges.truncate;
import static dev.cdclab.sink.warehouse.NetChanges.upsert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cdclab.change.ColumnSpec;
import dev.cdclab.change.IntervalRecord;
import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetChangeMode;
import dev.cdclab.change.NetOperation;
import dev.cdclab.change.RowImage;
import dev.cdclab.change.Schemas;
import dev.cdclab.change.SourcePosition;
import dev.cdclab.change.StageTimes;
import dev.cdclab.change.TableEvent;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every warehouse dialect must do, written once (after kafka-connect-jdbc's dialect tests):
 * idempotent upserts guarded by log position, deletes with tombstones, unchanged values kept,
 * tables created and widened, types preserved.
 */
abstract class WarehouseContract {
    /** Warehouse URL, user and password for a fresh, empty warehouse. */
    record Target(String url, String user, String password) {}

    protected abstract Target freshWarehouse() throws Exception;

    /** Whether the warehouse's DECIMAL holds NaN (PostgreSQL) or gets NULL for it (DuckDB). */
    protected abstract boolean decimalHoldsNaN();

    /** The warehouse's SQL for a point column's x and y, e.g. {@code p.x, p.y}. */
    protected abstract String pointCoordinates(String column);

    protected WarehouseWriter writer;
    private String table;

    private Target target;

    @BeforeEach
    void open() throws Exception {
        Target t = freshWarehouse();
        target = t;
        writer = new WarehouseWriter(t.url(), t.user(), t.password());
        table = "public.items_" + Long.toHexString(System.nanoTime());
    }

    @AfterEach
    void close() throws Exception {
        writer.close();
    }

    private Map<Integer, String> names() throws Exception {
        Map<Integer, String> out = new TreeMap<>();
        try (Connection c = writer.openReader();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, name FROM " + quoted(table))) {
            while (rs.next()) {
                int id = rs.getInt(1);
                assertThat(out.put(id, rs.getString(2))).as("a second row of key " + id).isNull();
            }
        }
        return out;
    }

    private static String quoted(String t) {
        String[] p = t.split("\\.");
        return "\"" + p[0] + "\".\"" + p[1] + "\"";
    }

    /** The rows of a table without a key, as {@code name:n}, sorted, duplicates kept. */
    private List<String> logRows(String t) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = writer.openReader();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT name, n FROM " + quoted(t) + " ORDER BY name, n")) {
            while (rs.next()) {
                out.add(rs.getString(1) + ":" + rs.getInt(2));
            }
        }
        return out;
    }

    @Test
    void loadedRowsAppearAtTheirCommitAndTheChangesAfterTheSnapshotApplyOnTop() throws Exception {
        java.util.Iterator<String[]> rows =
                List.of(
                                new String[] {"1", "a", null, "1.50"},
                                new String[] {"2", "b", "x", null},
                                new String[] {"3", "c", null, "0.00"})
                        .iterator();
        assertThat(writer.initialLoadState("slot_a")).isEmpty();
        writer.initialLoadStarted("slot_a");
        long n =
                writer.load(
                        table,
                        NetChanges.ITEMS,
                        rows,
                        dev.cdclab.change.SourcePosition.postgres(1, 1),
                        5,
                        2);
        assertThat(n).isEqualTo(3);
        assertThat(writer.initialLoadState("slot_a")).contains("started");
        writer.initialLoadDone("slot_a");
        writer.commit(5);
        assertThat(writer.initialLoadState("slot_a")).contains("done");
        assertThat(names()).containsExactly(entry(1, "a"), entry(2, "b"), entry(3, "c"));
        // the first changes the log delivers after the snapshot
        writer.apply(List.of(upsert(table, 2, "b2", null, 10), delete(table, 3, 11)), 100);
        assertThat(names()).containsExactly(entry(1, "a"), entry(2, "b2"));
    }

    @Test
    void aReadOnlyQueryAnswersWhileTheWriterWritesAndCapsItsRows() throws Exception {
        writer.apply(
                List.of(upsert(table, 1, "a", null, 10), upsert(table, 2, "b", null, 11)), 100);
        writer.write(List.of(upsert(table, 3, "c", null, 12)));
        ReadOnlyQuery.Result r =
                writer.query(
                        "SELECT id, name FROM " + quoted(table) + " ORDER BY id",
                        1,
                        Duration.ofSeconds(30));
        assertThat(r.columns()).containsExactly("id", "name");
        assertThat(r.rows()).hasSize(1);
        assertThat(r.rows().get(0).get(1)).isEqualTo("a");
        assertThat(r.truncated()).isTrue();
        // the writer's open transaction is not visible and still commits
        writer.commit(200);
        assertThat(names()).containsOnlyKeys(1, 2, 3);
    }

    @Test
    void aQueryThatWouldWriteIsRefusedAndChangesNothing() throws Exception {
        writer.apply(List.of(upsert(table, 1, "a", null, 10)), 100);
        for (String sql :
                List.of(
                        "DELETE FROM " + quoted(table),
                        "UPDATE " + quoted(table) + " SET name = 'x'",
                        "CREATE TABLE public.intruder (a int)",
                        "DROP TABLE " + quoted(table))) {
            assertThatThrownBy(() -> writer.query(sql, 10, Duration.ofSeconds(30)))
                    .as(sql)
                    .isInstanceOf(SQLException.class);
        }
        assertThat(names()).isEqualTo(Map.of(1, "a"));
        writer.apply(List.of(upsert(table, 2, "b", null, 11)), 200);
        assertThat(names()).isEqualTo(Map.of(1, "a", 2, "b"));
    }

    @Test
    void aTruncateEmptiesTheTableAsOfItsPositionAndLaterChangesApplyAfterIt() throws Exception {
        writer.apply(
                List.of(upsert(table, 1, "a", null, 10), upsert(table, 2, "b", null, 11)), 100);
        // one interval: 3 changed before the truncate, 1 re-inserted after it
        writer.apply(
                List.of(
                        upsert(table, 3, "c", null, 12),
                        truncate(table, 13),
                        upsert(table, 1, "a again", null, 14)),
                200);
        assertThat(names()).isEqualTo(Map.of(1, "a again"));
    }

    @Test
    void rowsInsertedAgainAfterASkippedTruncateReplaceTheRowsKept() throws Exception {
        writer.close();
        writer = new WarehouseWriter(target.url(), target.user(), target.password(), true);
        writer.apply(List.of(insert(table, 1, "a", 10), insert(table, 2, "b", 11)), 100);
        // TRUNCATE, then the same keys inserted again: the warehouse still holds them
        writer.apply(List.of(truncate(table, 20), insert(table, 1, "a again", 21)), 200);
        writer.apply(List.of(insert(table, 2, "b again", 30)), 300);
        assertThat(names()).isEqualTo(Map.of(1, "a again", 2, "b again"));
    }

    @Test
    void aReplayedTruncateNeverRemovesARowWrittenAfterIt() throws Exception {
        writer.apply(List.of(upsert(table, 1, "a", null, 10)), 100);
        List<IntervalRecord> interval =
                List.of(truncate(table, 20), upsert(table, 2, "b", null, 21));
        writer.apply(interval, 200);
        writer.apply(List.of(upsert(table, 3, "c", null, 30)), 300);
        // a crash replays the interval: the truncate at 20 must not touch 2 (21) or 3 (30)
        writer.apply(interval, 200);
        // nor may a replayed change from before the truncate come back
        writer.apply(List.of(upsert(table, 1, "a", null, 10)), 100);
        assertThat(names()).isEqualTo(Map.of(2, "b", 3, "c"));
    }

    @Test
    void aTruncateRemovesRowsFromBeforeThePipeline() throws Exception {
        writer.apply(List.of(upsert(table, 1, "a", null, 10)), 100);
        try (Connection c = writer.openReader();
                Statement s = c.createStatement()) {
            // a row the pipeline did not write: no log position
            s.execute("INSERT INTO " + quoted(table) + " (id, name) VALUES (9, 'loaded by hand')");
        }
        writer.apply(List.of(truncate(table, 20)), 200);
        assertThat(names()).isEmpty();
    }

    @Test
    void aTruncateWrittenAheadStillOrdersTheChangesAfterIt() throws Exception {
        writer.apply(List.of(upsert(table, 1, "a", null, 10)), 100);
        writer.write(List.of(truncate(table, 20), upsert(table, 2, "b", null, 21)));
        writer.write(List.of(upsert(table, 3, "c", null, 22)));
        writer.apply(List.of(upsert(table, 2, "b2", null, 23)), 200);
        assertThat(names()).isEqualTo(Map.of(2, "b2", 3, "c"));
    }

    @Test
    void aTruncateOfATableTheWarehouseNeverSawIsHarmless() throws Exception {
        writer.apply(List.of(truncate(table, 20), upsert(table, 1, "a", null, 21)), 200);
        assertThat(names()).isEqualTo(Map.of(1, "a"));
    }

    @Test
    void rowsOfATableWithoutAKeyKeepTheirDuplicates() throws Exception {
        writer.apply(
                List.of(
                        keyless(table, NetOperation.INSERT, null, logRow("a", 1), 10),
                        keyless(table, NetOperation.INSERT, null, logRow("a", 1), 11),
                        keyless(table, NetOperation.INSERT, null, logRow("b", 2), 12),
                        keyless(table, NetOperation.INSERT, null, logRow("b", 2), 13)),
                100);
        List<IntervalRecord> second =
                List.of(
                        keyless(table, NetOperation.DELETE, logRow("a", 1), null, 20),
                        keyless(table, NetOperation.UPDATE, logRow("b", 2), logRow("b", 3), 21),
                        keyless(table, NetOperation.INSERT, null, logRow("c", 4), 22));
        writer.apply(second, 200);
        assertThat(logRows(table)).containsExactly("a:1", "b:2", "b:3", "c:4");
        // a replay is a duplicate, not a second delete or update
        writer.apply(second, 200);
        assertThat(logRows(table)).containsExactly("a:1", "b:2", "b:3", "c:4");
    }

    @Test
    void changesOfATableWithoutAKeyApplyInSourceOrderWhateverOrderTheyArriveIn() throws Exception {
        writer.apply(
                List.of(
                        keyless(table, NetOperation.UPDATE, logRow("a", 1), logRow("a", 2), 11),
                        keyless(table, NetOperation.INSERT, null, logRow("a", 1), 10),
                        keyless(table, NetOperation.DELETE, logRow("a", 2), null, 12),
                        keyless(table, NetOperation.INSERT, null, logRow("z", 9), 13)),
                100);
        assertThat(logRows(table)).containsExactly("z:9");
    }

    @Test
    void manyRowsOfATableWithoutAKeySharingLogPositionsAndWrittenAheadAllArrive() throws Exception {
        List<IntervalRecord> first = new ArrayList<>();
        first.add(truncate(table, 9));
        for (int i = 0; i < 3000; i++) {
            // a COPY logs a page of rows as one record: 60 rows share each log position
            String position = SourcePosition.withOffset(SourcePosition.postgres(10 + i / 60), i);
            first.add(
                    keyless(table, NetOperation.INSERT, null, logRow("r" + (i % 7), i), position));
        }
        writer.write(first.subList(0, 1200));
        writer.write(first.subList(1200, 2500));
        writer.apply(first.subList(2500, first.size()), 100);
        assertThat(logRows(table)).hasSize(3000);
        // the table gains a key: its next changes are merged by it
        writer.apply(
                List.of(
                        NetChanges.change(
                                table,
                                List.of(
                                        new ColumnSpec(
                                                "name", "STRING", false, true, null, null, "string",
                                                null),
                                        new ColumnSpec(
                                                "n", "INT32", true, false, null, null, "int32",
                                                null)),
                                NetOperation.UPDATE,
                                5,
                                logRow("changed", 5),
                                List.of(),
                                5000,
                                NetChangeMode.ALL)),
                200);
        List<String> rows = logRows(table);
        assertThat(rows).hasSize(3000).contains("changed:5").doesNotContain("r5:5");
    }

    @Test
    void aTruncateOfATableWithoutAKeyEmptiesItAndTheChangesAfterItApply() throws Exception {
        writer.apply(
                List.of(
                        keyless(table, NetOperation.INSERT, null, logRow("a", 1), 10),
                        keyless(table, NetOperation.INSERT, null, logRow("a", 1), 11)),
                100);
        writer.apply(
                List.of(
                        keyless(table, NetOperation.INSERT, null, logRow("b", 1), 12),
                        truncate(table, 13),
                        keyless(table, NetOperation.INSERT, null, logRow("c", 1), 14)),
                200);
        assertThat(logRows(table)).containsExactly("c:1");
    }

    @Test
    void aSnapshotOfATableWithoutAKeyReplacesAnInterruptedOne() throws Exception {
        String p1 = SourcePosition.postgres(100);
        List<IntervalRecord> first = new ArrayList<>();
        first.add(snapshotStart(table, p1));
        first.add(
                keyless(
                        table,
                        NetOperation.INSERT,
                        null,
                        logRow("a", 1),
                        SourcePosition.withOffset(p1, 5)));
        first.add(
                keyless(
                        table,
                        NetOperation.INSERT,
                        null,
                        logRow("a", 1),
                        SourcePosition.withOffset(p1, 6)));
        writer.apply(first, 100);
        // replayed from the middle: the row at offset 6 is a duplicate
        writer.apply(
                List.of(
                        keyless(
                                table,
                                NetOperation.INSERT,
                                null,
                                logRow("a", 1),
                                SourcePosition.withOffset(p1, 6)),
                        keyless(
                                table,
                                NetOperation.INSERT,
                                null,
                                logRow("b", 2),
                                SourcePosition.withOffset(p1, 7))),
                100);
        assertThat(logRows(table)).containsExactly("a:1", "a:1", "b:2");
        // the snapshot ran again, from a later position: it replaces everything
        String p2 = SourcePosition.postgres(200);
        writer.apply(
                List.of(
                        snapshotStart(table, p2),
                        keyless(
                                table,
                                NetOperation.INSERT,
                                null,
                                logRow("a", 1),
                                SourcePosition.withOffset(p2, 50)),
                        keyless(
                                table,
                                NetOperation.INSERT,
                                null,
                                logRow("b", 2),
                                SourcePosition.withOffset(p2, 51))),
                200);
        assertThat(logRows(table)).containsExactly("a:1", "b:2");
    }

    private static TableEvent snapshotStart(String table, String position) {
        return new TableEvent(
                TableEvent.Kind.SNAPSHOT,
                table,
                position + SourcePosition.OFFSET_SEPARATOR,
                "1",
                1_700_000_000_000L,
                0,
                10);
    }

    @Test
    void skippedTruncatesMarkTheTableDiverged() throws Exception {
        Target t = freshWarehouse();
        try (WarehouseWriter skipping =
                new WarehouseWriter(t.url(), t.user(), t.password(), true)) {
            skipping.apply(List.of(upsert(table, 1, "a", null, 10)), 100);
            skipping.apply(List.of(truncate(table, 20), upsert(table, 2, "b", null, 21)), 200);
            assertThat(skipping.tableStates().get(TableName.of(table)).diverged())
                    .contains("TRUNCATE at " + SourcePosition.postgres(20) + " not applied");
        }
    }

    private static List<ColumnSpec> idAnd(ColumnSpec... more) {
        List<ColumnSpec> cols = new ArrayList<>();
        cols.add(new ColumnSpec("id", "INT32", true, false, null, null, "int32", null));
        cols.addAll(List.of(more));
        return cols;
    }

    private List<String> rowsOf(String t, String columns) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = writer.openReader();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT " + columns + " FROM " + quoted(t) + " ORDER BY id")) {
            int n = rs.getMetaData().getColumnCount();
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

    @Test
    void aColumnWhoseTypeChangesFollowsItKeepingItsValues() throws Exception {
        List<ColumnSpec> before =
                idAnd(new ColumnSpec("n", "INT4", false, true, null, null, "int32", null));
        List<ColumnSpec> after =
                idAnd(new ColumnSpec("n", "INT8", false, true, null, null, "int64", null));
        writer.apply(
                List.of(
                        NetChanges.change(
                                table,
                                before,
                                NetOperation.INSERT,
                                1,
                                M.createObjectNode().put("id", 1).put("n", 7),
                                List.of(),
                                10,
                                NetChangeMode.ALL)),
                100);
        writer.apply(
                List.of(
                        NetChanges.change(
                                table,
                                after,
                                NetOperation.INSERT,
                                2,
                                M.createObjectNode().put("id", 2).put("n", 5_000_000_000L),
                                List.of(),
                                20,
                                NetChangeMode.ALL)),
                200);
        assertThat(rowsOf(table, "id, n")).containsExactly("1|7", "2|5000000000");
    }

    @Test
    void aWidenedDecimalIsWidenedInTheWarehouse() throws Exception {
        writer.apply(List.of(upsert(table, 1, "a", null, 10)), 100);
        List<ColumnSpec> wider = new ArrayList<>();
        for (ColumnSpec c : NetChanges.ITEMS) {
            wider.add(
                    c.name().equals("price")
                            ? new ColumnSpec("price", "NUMERIC", false, true, 14, 2, "string", null)
                            : c);
        }
        ObjectNode after = row(2, "b", null);
        after.put("price", "123456789012.50");
        writer.apply(
                List.of(
                        NetChanges.change(
                                table,
                                wider,
                                NetOperation.INSERT,
                                2,
                                after,
                                List.of(),
                                20,
                                NetChangeMode.ALL)),
                200);
        assertThat(rowsOf(table, "id, CAST(price AS VARCHAR)"))
                .containsExactly("1|12.30", "2|123456789012.50");
    }

    @Test
    void aColumnWhoseValuesCannotBeCastIsKeptAsideAndANewOneAdded() throws Exception {
        List<ColumnSpec> before =
                idAnd(new ColumnSpec("s", "TEXT", false, true, null, null, "string", null));
        List<ColumnSpec> after =
                idAnd(new ColumnSpec("s", "INT4", false, true, null, null, "int32", null));
        writer.apply(
                List.of(
                        NetChanges.change(
                                table,
                                before,
                                NetOperation.INSERT,
                                1,
                                M.createObjectNode().put("id", 1).put("s", "one"),
                                List.of(),
                                10,
                                NetChangeMode.ALL)),
                100);
        writer.apply(
                List.of(
                        NetChanges.change(
                                table,
                                after,
                                NetOperation.INSERT,
                                2,
                                M.createObjectNode().put("id", 2).put("s", 2),
                                List.of(),
                                20,
                                NetChangeMode.ALL)),
                200);
        assertThat(rowsOf(table, "id, s, s__was_text")).containsExactly("1|null|one", "2|2|null");
    }

    @Test
    void aDroppedColumnStaysAndRowsWrittenAfterTheDropHoldNull() throws Exception {
        writer.apply(
                List.of(upsert(table, 1, "a", "note a", 10), upsert(table, 2, "b", "note b", 11)),
                100);
        List<ColumnSpec> without =
                NetChanges.ITEMS.stream().filter(c -> !c.name().equals("note")).toList();
        ObjectNode row = M.createObjectNode().put("id", 1).put("name", "a2").put("price", "1.00");
        writer.apply(
                List.of(
                        NetChanges.change(
                                table,
                                without,
                                NetOperation.UPDATE,
                                1,
                                row,
                                List.of(),
                                20,
                                NetChangeMode.ALL)),
                200);
        assertThat(rowsOf(table, "id, name, note")).containsExactly("1|a2|null", "2|b|note b");
    }

    /** Each row's {@code name} by {@code id}, in table {@code t}. */
    protected Map<Integer, String> namesOf(String t) throws Exception {
        Map<Integer, String> out = new TreeMap<>();
        try (Connection c = writer.openReader();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, name FROM " + quoted(t))) {
            while (rs.next()) {
                out.put(rs.getInt(1), rs.getString(2));
            }
        }
        return out;
    }

    private boolean warehouseHas(String t) throws Exception {
        try (Connection c = writer.openReader();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT count(*) FROM information_schema.tables WHERE"
                                        + " table_schema = 'public' AND table_name = '"
                                        + t.substring(t.indexOf('.') + 1)
                                        + "'")) {
            rs.next();
            return rs.getInt(1) > 0;
        }
    }

    @Test
    void aRenamedTableKeepsItsRowsUnderItsNewName() throws Exception {
        String renamed = table + "_renamed";
        writer.apply(
                List.of(upsert(table, 1, "a", null, 10), upsert(table, 2, "b", null, 11)), 100);
        // the new name's changes arrive first in the batch: they still apply after the rename
        writer.apply(
                List.of(
                        upsert(renamed, 1, "a after", null, 14),
                        upsert(table, 3, "c", null, 12),
                        NetChanges.renameOrDrop(table, renamed, 13)),
                200);
        assertThat(warehouseHas(table)).isFalse();
        assertThat(namesOf(renamed)).isEqualTo(Map.of(1, "a after", 2, "b", 3, "c"));
        // a replay of the rename finds nothing left to rename
        writer.apply(List.of(NetChanges.renameOrDrop(table, renamed, 13)), 200);
        assertThat(namesOf(renamed)).hasSize(3);
    }

    @Test
    void aDroppedTableIsKeptAsideAndOneCreatedUnderItsNameStartsEmpty() throws Exception {
        writer.apply(
                List.of(upsert(table, 1, "a", null, 10), upsert(table, 2, "b", null, 11)), 100);
        writer.apply(
                List.of(
                        upsert(table, 2, "b2", null, 12),
                        NetChanges.renameOrDrop(table, null, 13),
                        upsert(table, 9, "new table", null, 14)),
                200);
        assertThat(names()).isEqualTo(Map.of(9, "new table"));
        String aside = table + "__dropped_" + SourcePosition.postgres(13).replace("/", "");
        assertThat(namesOf(aside)).isEqualTo(Map.of(1, "a", 2, "b2"));
        assertThat(writer.tableStates().get(TableName.of(aside)).diverged())
                .startsWith("dropped at the source at");
    }

    @Test
    void createsTheTableAndUpserts() throws Exception {
        writer.apply(
                List.of(upsert(table, 1, "a", null, 10), upsert(table, 2, "b", null, 11)), 100);
        writer.apply(List.of(upsert(table, 1, "a2", null, 12)), 200);
        assertThat(names()).isEqualTo(Map.of(1, "a2", 2, "b"));
    }

    @Test
    void anIntervalWrittenAheadInBatchesAppearsOnlyAtItsCommit() throws Exception {
        writer.apply(List.of(upsert(table, 1, "a", null, 10)), 100);
        writer.write(List.of(upsert(table, 2, "b", null, 11), upsert(table, 3, "c", null, 12)));
        assertThat(names()).as("nothing before the commit").isEqualTo(Map.of(1, "a"));
        writer.write(List.of(upsert(table, 2, "b2", null, 13), delete(table, 1, 14)));
        // a replayed change of the first batch, after the second: the log position keeps b2
        writer.apply(
                List.of(upsert(table, 4, "d", null, 15), upsert(table, 2, "b", null, 11)), 200);
        assertThat(names()).isEqualTo(Map.of(2, "b2", 3, "c", 4, "d"));
    }

    @Test
    void aRollbackDropsWhatWasWrittenAhead() throws Exception {
        writer.apply(List.of(upsert(table, 1, "a", null, 10)), 100);
        String other = table + "_new";
        writer.write(List.of(upsert(table, 2, "b", null, 11), upsert(other, 1, "x", null, 12)));
        writer.rollback();
        assertThat(names()).isEqualTo(Map.of(1, "a"));
        // the table created in the rolled-back transaction is created again
        writer.apply(List.of(upsert(other, 1, "x", null, 12)), 200);
        try (Connection c = writer.openReader();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM " + quoted(other))) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(1);
        }
    }

    @Test
    void everyCommitRecordsHowFarTheWarehouseIsComplete() throws Exception {
        try (Connection c = writer.openReader()) {
            assertThat(WarehouseProgress.appliedThroughMs(c)).isEqualTo(Long.MIN_VALUE);
        }
        writer.apply(List.of(upsert(table, 1, "a", null, 10)), 100);
        writer.apply(List.of(upsert(table, 2, "b", null, 11)), 200);
        try (Connection c = writer.openReader();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM cdc_lab.progress")) {
            assertThat(WarehouseProgress.appliedThroughMs(c)).isEqualTo(200);
            rs.next();
            assertThat(rs.getLong(1)).as("one progress row").isEqualTo(1);
        }
    }

    @Test
    void replayingABatchChangesNothing() throws Exception {
        List<NetChange> batch = List.of(upsert(table, 1, "a", null, 10), delete(table, 2, 11));
        writer.apply(List.of(upsert(table, 2, "b", null, 5)), 50);
        writer.apply(batch, 100);
        Map<Integer, String> once = names();
        WarehouseWriter.Applied again = writer.apply(batch, 100);
        assertThat(names()).isEqualTo(once).isEqualTo(Map.of(1, "a"));
        assertThat(again.rowsWritten()).isZero();
    }

    @Test
    void tombstonesOlderThanTheRetentionArePruned() throws Exception {
        writer.tombstoneRetention(Duration.ofSeconds(1), Duration.ZERO);
        long commitMs = delete(table, 1, 10).commitMs();
        writer.apply(List.of(upsert(table, 1, "a", null, 9)), commitMs - 1);
        writer.apply(List.of(delete(table, 1, 10)), commitMs);
        writer.apply(List.of(upsert(table, 1, "stale", null, 8)), commitMs + 500);
        assertThat(names()).as("the tombstone holds").isEmpty();
        assertThat(writer.tombstonesPruned()).isZero();

        writer.apply(List.of(upsert(table, 2, "b", null, 5_000)), commitMs + 4_990);
        assertThat(writer.tombstonesPruned()).isEqualTo(1);
        try (Connection c = writer.openReader();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM cdc_lab.tombstones")) {
            rs.next();
            assertThat(rs.getLong(1)).isZero();
        }
    }

    /**
     * The writer runs the same statements in every warehouse transaction: changes and replays of
     * keys far from those the statements first met still find their rows.
     */
    @Test
    void changesToKeysBeyondThoseOfEarlierTransactionsFindTheirRows() throws Exception {
        writer.apply(List.of(insert(table, 1, "a", 10), insert(table, 2, "b", 11)), 100);
        writer.apply(List.of(upsert(table, 1, "a2", null, 20)), 200);
        // a replay, while the table has no tombstone
        writer.apply(List.of(upsert(table, 2, "stale", null, 5)), 300);
        writer.apply(List.of(insert(table, 1000, "x", 30), insert(table, 1001, "y", 31)), 400);
        writer.apply(List.of(upsert(table, 1000, "x2", null, 40), delete(table, 1001, 41)), 500);
        writer.apply(
                List.of(upsert(table, 1000, "stale", null, 35), insert(table, 1001, "y", 31)), 600);
        assertThat(names()).isEqualTo(Map.of(1, "a2", 2, "b", 1000, "x2"));
    }

    @Test
    void aChangeOlderThanOrEqualToTheStoredPositionIsIgnored() throws Exception {
        writer.apply(List.of(upsert(table, 1, "new", null, 20)), 100);
        writer.apply(List.of(upsert(table, 1, "old", null, 19)), 100);
        writer.apply(List.of(upsert(table, 1, "same", null, 20)), 100);
        assertThat(names()).isEqualTo(Map.of(1, "new"));
    }

    @Test
    void deleteRemovesTheRowAndAStaleInsertCannotBringItBack() throws Exception {
        writer.apply(List.of(upsert(table, 1, "a", null, 10)), 100);
        writer.apply(List.of(delete(table, 1, 20)), 200);
        assertThat(names()).isEmpty();
        writer.apply(List.of(upsert(table, 1, "a", null, 10)), 200);
        assertThat(names()).as("replayed insert older than the delete").isEmpty();
        writer.apply(List.of(upsert(table, 1, "again", null, 30)), 300);
        assertThat(names()).as("re-insert newer than the delete").isEqualTo(Map.of(1, "again"));
    }

    @Test
    void aKeyDeletedAgainKeepsItsNewestDeleteAgainstStaleInserts() throws Exception {
        writer.apply(List.of(upsert(table, 1, "a", null, 10)), 100);
        writer.apply(List.of(delete(table, 1, 20)), 200);
        writer.apply(List.of(upsert(table, 1, "b", null, 30)), 300);
        writer.apply(List.of(delete(table, 1, 40)), 400);
        writer.apply(List.of(upsert(table, 1, "b", null, 30)), 400);
        assertThat(names()).as("replayed insert between the two deletes").isEmpty();
        writer.apply(List.of(upsert(table, 1, "c", null, 50)), 500);
        assertThat(names()).isEqualTo(Map.of(1, "c"));
    }

    @Test
    void unchangedColumnsKeepTheirValue() throws Exception {
        writer.apply(List.of(upsert(table, 1, "a", "big value", 10)), 100);
        ObjectNode after = row(1, "b", "__debezium_unavailable_value");
        NetChange u =
                NetChanges.change(
                        table,
                        NetChanges.ITEMS,
                        NetOperation.UPDATE,
                        1,
                        after,
                        List.of("note"),
                        11,
                        NetChangeMode.ALL);
        writer.apply(List.of(u), 200);
        try (Connection c = writer.openReader();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT name, note FROM " + quoted(table))) {
            rs.next();
            assertThat(rs.getString(1)).isEqualTo("b");
            assertThat(rs.getString(2)).isEqualTo("big value");
        }
    }

    @Test
    void insertsAreAppendedAndARowDeletedAndInsertedAgainInOneBatchIsReplaced() throws Exception {
        writer.apply(List.of(insert(table, 1, "a", 10), insert(table, 2, "b", 11)), 100);
        assertThat(names()).isEqualTo(Map.of(1, "a", 2, "b"));
        // two windows of key 1 in one transaction: the row existed before the first one
        writer.apply(List.of(delete(table, 1, 20), insert(table, 1, "a2", 21)), 200);
        // key 3 inserted, then updated in a later window of the same transaction
        writer.apply(List.of(insert(table, 3, "c", 30), upsert(table, 3, "c2", null, 31)), 300);
        assertThat(names()).isEqualTo(Map.of(1, "a2", 2, "b", 3, "c2"));
    }

    @Test
    void aSnapshotReadOrAReplayedInsertOfARowTheWarehouseHoldsReplacesItOrNothing()
            throws Exception {
        writer.apply(List.of(insert(table, 1, "a", 10), upsert(table, 2, "b", null, 11)), 100);
        writer.apply(List.of(upsert(table, 1, "a2", null, 20)), 200);
        writer.apply(List.of(insert(table, 1, "a", 10)), 300);
        assertThat(names()).as("a replayed insert").isEqualTo(Map.of(1, "a2", 2, "b"));
        writer.apply(
                List.of(snapshotRead(table, 2, "b2", 40), upsert(table, 4, "d", null, 41)), 400);
        assertThat(names()).as("read again").isEqualTo(Map.of(1, "a2", 2, "b2", 4, "d"));
    }

    @Test
    void severalIntervalsOfOneKeyInOneBatchApplyTheNewest() throws Exception {
        writer.apply(
                List.of(
                        upsert(table, 1, "a", null, 10),
                        upsert(table, 1, "c", null, 30),
                        upsert(table, 1, "b", null, 20)),
                100);
        assertThat(names()).isEqualTo(Map.of(1, "c"));
    }

    @Test
    void unfoldedChangesAreAllWrittenInOrder() throws Exception {
        List<NetChange> raw = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            raw.add(
                    NetChanges.change(
                            table,
                            NetChanges.ITEMS,
                            NetOperation.UPDATE,
                            1,
                            row(1, "v" + i, null),
                            List.of(),
                            i,
                            NetChangeMode.OFF));
        }
        WarehouseWriter.Applied a = writer.apply(raw, 100);
        assertThat(names()).isEqualTo(Map.of(1, "v5"));
        assertThat(a.rowsWritten()).isEqualTo(5);
    }

    @Test
    void aNewSourceColumnWidensTheTable() throws Exception {
        writer.apply(List.of(upsert(table, 1, "a", null, 10)), 100);
        List<ColumnSpec> wider = new ArrayList<>(NetChanges.ITEMS);
        wider.add(new ColumnSpec("qty", "INT32", false, true, null, null, "int32", null));
        ObjectNode after = row(2, "b", null);
        after.put("qty", 5);
        writer.apply(
                List.of(
                        NetChanges.change(
                                table,
                                wider,
                                NetOperation.INSERT,
                                2,
                                after,
                                List.of(),
                                11,
                                NetChangeMode.ALL)),
                200);
        try (Connection c = writer.openReader();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT id, qty FROM " + quoted(table) + " ORDER BY id")) {
            rs.next();
            assertThat(rs.getObject(2)).isNull();
            rs.next();
            assertThat(rs.getInt(2)).isEqualTo(5);
        }
    }

    @Test
    void aColumnAddedWithADefaultGivesTheRowsAlreadyThereThatDefault() throws Exception {
        writer.apply(List.of(upsert(table, 1, "a", null, 10)), 100);
        List<ColumnSpec> wider = new ArrayList<>(NetChanges.ITEMS);
        wider.add(new ColumnSpec("qty", "INT32", false, false, null, null, "int32", null, "7"));
        wider.add(
                new ColumnSpec(
                        "since",
                        "DATE",
                        false,
                        true,
                        null,
                        null,
                        "int32",
                        "io.debezium.time.Date",
                        "19000"));
        wider.add(
                new ColumnSpec(
                        "label", "VARCHAR", false, true, null, null, "string", null, "\"it's\""));
        ObjectNode after = row(2, "b", null);
        after.put("qty", 5);
        after.put("since", 20000);
        after.put("label", "x");
        writer.apply(
                List.of(
                        NetChanges.change(
                                table,
                                wider,
                                NetOperation.INSERT,
                                2,
                                after,
                                List.of(),
                                11,
                                NetChangeMode.ALL)),
                200);
        try (Connection c = writer.openReader();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT id, qty, CAST(since AS VARCHAR), label FROM "
                                        + quoted(table)
                                        + " ORDER BY id")) {
            rs.next();
            assertThat(rs.getInt(2)).isEqualTo(7);
            assertThat(rs.getString(3)).isEqualTo("2022-01-08");
            assertThat(rs.getString(4)).isEqualTo("it's");
            rs.next();
            assertThat(rs.getInt(2)).isEqualTo(5);
            assertThat(rs.getString(3)).isEqualTo("2024-10-04");
            assertThat(rs.getString(4)).isEqualTo("x");
        }
    }

    @Test
    void theChangesTheWarehouseRefusesAreFoundAndTheRestApplies() throws Exception {
        writer.apply(List.of(upsert(table, 1, "a", null, 10)), 100);
        writer.apply(List.of(upsert(table, 2, "b", null, 11)), 200);
        // one value does not fit the declared numeric(10,2): the warehouse refuses that row
        List<NetChange> batch = new ArrayList<>();
        for (int id = 3; id <= 10; id++) {
            ObjectNode after = row(id, "n" + id, null);
            after.put("price", id == 7 ? "123456789012.50" : id + ".25");
            batch.add(
                    NetChanges.change(
                            table,
                            NetChanges.ITEMS,
                            NetOperation.INSERT,
                            id,
                            after,
                            List.of(),
                            12 + id,
                            NetChangeMode.ALL));
        }
        assertThatThrownBy(() -> writer.apply(batch, 300)).isInstanceOf(SQLException.class);
        List<WarehouseWriter.Refused> refused = writer.refused(batch);
        assertThat(refused)
                .singleElement()
                .satisfies(
                        r -> {
                            assertThat(r.change().key().get("id").asInt()).isEqualTo(7);
                            assertThat(r.reason()).isNotBlank();
                        });
        assertThat(names()).as("the trials left nothing written").containsOnlyKeys(1, 2);
        List<NetChange> rest = new ArrayList<>(batch);
        rest.remove(refused.get(0).change());
        writer.apply(rest, 300);
        assertThat(names()).containsOnlyKeys(1, 2, 3, 4, 5, 6, 8, 9, 10);
    }

    @Test
    void typesSurviveTheTrip() throws Exception {
        writer.apply(
                List.of(
                        NetChanges.change(
                                table,
                                typedColumns(),
                                NetOperation.INSERT,
                                1,
                                typedRow(),
                                List.of(),
                                10,
                                NetChangeMode.ALL)),
                100);
        assertTypedRow(typedColumns(), typedRow());
    }

    @Test
    void unchangedValuesOfEveryTypeSurviveAnUpdateThatDoesNotSendThem() throws Exception {
        List<ColumnSpec> cols = typedColumns();
        writer.apply(
                List.of(
                        NetChanges.change(
                                table,
                                cols,
                                NetOperation.INSERT,
                                1,
                                typedRow(),
                                List.of(),
                                10,
                                NetChangeMode.ALL)),
                100);
        ObjectNode placeholder = typedRow();
        List<String> unchanged = new ArrayList<>();
        for (ColumnSpec c : cols) {
            if (!c.key()) {
                placeholder.put(c.name(), "__debezium_unavailable_value");
                unchanged.add(c.name());
            }
        }
        writer.apply(
                List.of(
                        NetChanges.change(
                                table,
                                cols,
                                NetOperation.UPDATE,
                                1,
                                placeholder,
                                unchanged,
                                11,
                                NetChangeMode.ALL)),
                200);
        assertTypedRow(cols, typedRow());
        try (Connection c = writer.openReader();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT _cdc_lsn FROM " + quoted(table))) {
            rs.next();
            assertThat(rs.getString(1))
                    .as("the update was applied")
                    .isEqualTo(SourcePosition.postgres(11));
        }
    }

    @Test
    void postgresEdgeValuesKeepTheirMeaning() throws Exception {
        List<ColumnSpec> cols =
                List.of(
                        new ColumnSpec("id", "INT32", true, false, null, null, "int32", null),
                        new ColumnSpec("price", "NUMERIC", false, true, 5, 2, "string", null),
                        new ColumnSpec("n", "NUMERIC", false, true, null, null, "string", null),
                        new ColumnSpec(
                                "d",
                                "DATE",
                                false,
                                true,
                                null,
                                null,
                                "int32",
                                "io.debezium.time.Date"),
                        new ColumnSpec(
                                "at",
                                "TIMESTAMP",
                                false,
                                true,
                                null,
                                null,
                                "int64",
                                "io.debezium.time.MicroTimestamp"),
                        new ColumnSpec(
                                "ms",
                                "TIMESTAMP",
                                false,
                                true,
                                null,
                                null,
                                "int64",
                                "io.debezium.time.Timestamp"),
                        new ColumnSpec(
                                "zt",
                                "TIMESTAMPTZ",
                                false,
                                true,
                                null,
                                null,
                                "string",
                                "io.debezium.time.ZonedTimestamp"),
                        new ColumnSpec(
                                "t",
                                "TIME",
                                false,
                                true,
                                null,
                                null,
                                "int64",
                                "io.debezium.time.MicroTime"));
        // what Debezium 3.7's PostgreSQL connector emits for these values (decimal mode string)
        ObjectNode infinite = M.createObjectNode();
        infinite.put("id", 1);
        infinite.put("price", "NAN");
        infinite.put("n", "POSITIVE_INFINITY");
        infinite.put("d", 2146033979);
        infinite.put("at", Long.MAX_VALUE);
        infinite.put("ms", 9223372036825200000L);
        infinite.put("zt", "infinity");
        infinite.put("t", 86_400_000_000L);
        ObjectNode negative = M.createObjectNode();
        negative.put("id", 2);
        negative.put("price", "12.30");
        negative.put("n", "NEGATIVE_INFINITY");
        negative.put("d", -2147472691);
        negative.put("at", Long.MIN_VALUE);
        negative.put("ms", -9223372036832400000L);
        negative.put("zt", "-infinity");
        negative.put("t", 0);
        ObjectNode farFuture = M.createObjectNode();
        farFuture.put("id", 3);
        farFuture.put("n", "NAN");
        farFuture.put("d", 6956716); // 21016-11-04
        farFuture.put("at", 601060298400000000L); // 21016-11-04 10:00:00
        farFuture.put("zt", "+21016-11-04T10:00:00.000000Z");
        List<NetChange> changes = new ArrayList<>();
        int lsn = 10;
        for (ObjectNode row : List.of(infinite, negative, farFuture)) {
            changes.add(
                    NetChanges.change(
                            table,
                            cols,
                            NetOperation.INSERT,
                            row.get("id").asInt(),
                            row,
                            List.of(),
                            lsn++,
                            NetChangeMode.ALL));
        }
        writer.apply(changes, 100);

        Map<Integer, List<String>> rows = new TreeMap<>();
        try (Connection c = writer.openReader();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT id, CAST(price AS VARCHAR), n, CAST(d AS VARCHAR),"
                                        + " CAST(\"at\" AS VARCHAR), CAST(ms AS VARCHAR),"
                                        + " CASE WHEN zt IN ('infinity', '-infinity') THEN"
                                        + " CAST(zt AS VARCHAR) ELSE CAST(extract(year FROM zt) AS"
                                        + " VARCHAR) END, CAST(t AS VARCHAR) FROM "
                                        + quoted(table)
                                        + " ORDER BY id")) {
            while (rs.next()) {
                List<String> r = new ArrayList<>();
                for (int i = 2; i <= 8; i++) {
                    r.add(rs.getString(i));
                }
                rows.put(rs.getInt(1), r);
            }
        }
        String nan = decimalHoldsNaN() ? "NaN" : null;
        assertThat(rows.get(1))
                .containsExactly(
                        nan,
                        "Infinity",
                        "infinity",
                        "infinity",
                        "infinity",
                        "infinity",
                        "24:00:00");
        assertThat(rows.get(2))
                .containsExactly(
                        "12.30",
                        "-Infinity",
                        "-infinity",
                        "-infinity",
                        "-infinity",
                        "-infinity",
                        "00:00:00");
        assertThat(rows.get(3).subList(0, 5))
                .containsExactly(null, "NaN", "21016-11-04", "21016-11-04 10:00:00", null);
        assertThat(rows.get(3).get(5)).isEqualTo("21016");
    }

    @Test
    void datesAndTimestampsBeforeChristKeepTheirDay() throws Exception {
        List<ColumnSpec> cols =
                List.of(
                        new ColumnSpec("id", "INT32", true, false, null, null, "int32", null),
                        new ColumnSpec(
                                "d",
                                "DATE",
                                false,
                                true,
                                null,
                                null,
                                "int32",
                                "io.debezium.time.Date"),
                        new ColumnSpec(
                                "at",
                                "TIMESTAMP",
                                false,
                                true,
                                null,
                                null,
                                "int64",
                                "io.debezium.time.MicroTimestamp"),
                        new ColumnSpec(
                                "ms",
                                "TIMESTAMP",
                                false,
                                true,
                                null,
                                null,
                                "int64",
                                "io.debezium.time.Timestamp"),
                        new ColumnSpec(
                                "zt",
                                "TIMESTAMPTZ",
                                false,
                                true,
                                null,
                                null,
                                "string",
                                "io.debezium.time.ZonedTimestamp"));
        // what Debezium 3.7's PostgreSQL connector streams: proleptic ISO days and micros (year 0
        // is 1 BC), ZonedTimestamp as ISO text with a signed year, at UTC
        ObjectNode idesOfMarch = M.createObjectNode();
        idesOfMarch.put("id", 1);
        idesOfMarch.put("d", -735160); // 0044-03-15 BC
        idesOfMarch.put("at", -63517778703210988L); // 0044-03-15 12:34:56.789012 BC
        idesOfMarch.put("ms", -62167219199877L); // 0001-01-01 00:00:00.123 BC
        idesOfMarch.put("zt", "-0043-03-15T10:34:56.789012Z"); // 12:34:56.789012+02 BC
        ObjectNode first = M.createObjectNode();
        first.put("id", 2);
        first.put("d", -2440588); // 4714-11-24 BC, PostgreSQL's first day
        first.put("at", -210863520000000000L); // 4713-01-01 00:00:00 BC
        first.put("zt", "0000-01-01T00:00:00.000000Z"); // 0001-01-01 00:00:00+00 BC
        ObjectNode last = M.createObjectNode();
        last.put("id", 3);
        last.put("d", -719163); // 0001-12-31 BC
        last.put("at", -62135596800000001L); // 0001-12-31 23:59:59.999999 BC
        last.put("zt", "-4713-11-24T00:00:00.000000Z"); // 4714-11-24 00:00:00+00 BC
        List<NetChange> changes = new ArrayList<>();
        int lsn = 10;
        for (ObjectNode row : List.of(idesOfMarch, first, last)) {
            changes.add(
                    NetChanges.change(
                            table,
                            cols,
                            NetOperation.INSERT,
                            row.get("id").asInt(),
                            row,
                            List.of(),
                            lsn++,
                            NetChangeMode.ALL));
        }
        writer.apply(changes, 100);
        List<String> expected =
                List.of(
                        "1|-735160|-735160 12:34:56.789012|-719528 00:00:00.123"
                                + "|-735160 10:34:56.789012",
                        "2|-2440588|-2440550 00:00:00|null|-719528 00:00:00",
                        "3|-719163|-719163 23:59:59.999999|null|-2440588 00:00:00");
        assertThat(daysAndTimes()).containsExactlyElementsOf(expected);

        // an update that sends none of them keeps them (DuckDB copies them through text)
        ObjectNode placeholder = M.createObjectNode();
        placeholder.put("id", 1);
        List<String> unchanged = List.of("d", "at", "ms", "zt");
        unchanged.forEach(c -> placeholder.put(c, "__debezium_unavailable_value"));
        writer.apply(
                List.of(
                        NetChanges.change(
                                table,
                                cols,
                                NetOperation.UPDATE,
                                1,
                                placeholder,
                                unchanged,
                                20,
                                NetChangeMode.ALL)),
                200);
        assertThat(daysAndTimes()).containsExactlyElementsOf(expected);
    }

    /**
     * Each row as id, then days since 1970-01-01 and time of day (timestamptz at UTC), computed by
     * the warehouse itself, so no date text of either warehouse is trusted.
     */
    private List<String> daysAndTimes() throws Exception {
        String epoch = "CAST('1970-01-01' AS DATE)";
        String zt = "(zt AT TIME ZONE 'UTC')";
        List<String> rows = new ArrayList<>();
        try (Connection c = writer.openReader();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT id, CAST(d - "
                                        + epoch
                                        + " AS BIGINT), CAST(CAST(\"at\" AS DATE) - "
                                        + epoch
                                        + " AS BIGINT), CAST(CAST(\"at\" AS TIME) AS VARCHAR),"
                                        + " CAST(CAST(ms AS DATE) - "
                                        + epoch
                                        + " AS BIGINT), CAST(CAST(ms AS TIME) AS VARCHAR),"
                                        + " CAST(CAST("
                                        + zt
                                        + " AS DATE) - "
                                        + epoch
                                        + " AS BIGINT), CAST(CAST("
                                        + zt
                                        + " AS TIME) AS VARCHAR) FROM "
                                        + quoted(table)
                                        + " ORDER BY id")) {
            while (rs.next()) {
                rows.add(
                        rs.getInt(1)
                                + "|"
                                + rs.getString(2)
                                + "|"
                                + rs.getString(3)
                                + " "
                                + rs.getString(4)
                                + "|"
                                + (rs.getString(5) == null
                                        ? "null"
                                        : rs.getString(5) + " " + rs.getString(6))
                                + "|"
                                + rs.getString(7)
                                + " "
                                + rs.getString(8));
            }
        }
        return rows;
    }

    private static List<ColumnSpec> typedColumns() {
        return List.of(
                new ColumnSpec("id", "INT32", true, false, null, null, "int32", null),
                new ColumnSpec("small", "INT16", false, true, null, null, "int16", null),
                new ColumnSpec("big", "INT64", false, true, null, null, "int64", null),
                new ColumnSpec("f", "FLOAT64", false, true, null, null, "float64", null),
                new ColumnSpec("price", "NUMERIC", false, true, 10, 2, "string", null),
                new ColumnSpec("flag", "BOOLEAN", false, true, null, null, "boolean", null),
                new ColumnSpec(
                        "d", "INT32", false, true, null, null, "int32", "io.debezium.time.Date"),
                new ColumnSpec(
                        "at",
                        "INT64",
                        false,
                        true,
                        null,
                        null,
                        "int64",
                        "io.debezium.time.MicroTimestamp"),
                new ColumnSpec(
                        "zt",
                        "STRING",
                        false,
                        true,
                        null,
                        null,
                        "string",
                        "io.debezium.time.ZonedTimestamp"),
                new ColumnSpec("blob", "BYTES", false, true, null, null, "bytes", null),
                new ColumnSpec(
                        "u", "STRING", false, true, null, null, "string", "io.debezium.data.Uuid"),
                new ColumnSpec(
                        "doc",
                        "STRING",
                        false,
                        true,
                        null,
                        null,
                        "string",
                        "io.debezium.data.Json"),
                new ColumnSpec("txt", "STRING", false, true, null, null, "string", null));
    }

    private static ObjectNode typedRow() {
        ObjectNode a = M.createObjectNode();
        a.put("id", 1);
        a.put("small", 7);
        a.put("big", 9_000_000_000L);
        a.put("f", 1.25);
        a.put("price", "12.30");
        a.put("flag", true);
        a.put("d", 20_000);
        a.put("at", 1_795_240_610_959_924L);
        a.put("zt", "2026-11-21T05:56:45.123456Z");
        a.put("blob", "q80=");
        a.put("u", "3f2504e0-4f89-11d3-9a0c-0305e82c3301");
        a.put("doc", "{\"a\": 1}");
        a.put("txt", "it's \"quoted\", with, commas\nand a newline");
        return a;
    }

    private void assertTypedRow(List<ColumnSpec> cols, ObjectNode a) throws Exception {
        try (Connection c = writer.openReader();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT small, big, f, price, flag, d, \"at\", zt, blob, u, doc, txt FROM "
                                        + quoted(table))) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(7);
            assertThat(rs.getLong(2)).isEqualTo(9_000_000_000L);
            assertThat(rs.getDouble(3)).isEqualTo(1.25);
            assertThat(rs.getBigDecimal(4)).isEqualByComparingTo(new BigDecimal("12.30"));
            assertThat(rs.getBoolean(5)).isTrue();
            assertThat(rs.getString(6)).isEqualTo(LocalDate.ofEpochDay(20_000).toString());
            assertThat(rs.getString(7)).startsWith("2026-11-21");
            assertThat(rs.getString(7)).isEqualTo("2026-11-21 05:56:50.959924");
            assertThat(rs.getObject(8, OffsetDateTime.class).toInstant())
                    .isEqualTo(Instant.parse("2026-11-21T05:56:45.123456Z"));
            assertThat(rs.getBytes(9)).containsExactly(0xAB, 0xCD);
            assertThat(rs.getObject(10).toString())
                    .isEqualTo("3f2504e0-4f89-11d3-9a0c-0305e82c3301");
            assertThat(rs.getString(11)).isEqualTo("{\"a\": 1}");
            assertThat(rs.getString(12)).isEqualTo("it's \"quoted\", with, commas\nand a newline");
        }
    }

    /** A column as Debezium 3.7's PostgreSQL connector describes it (source type propagated). */
    private static ColumnSpec pg(String name, String type, String connect, String semantic) {
        return new ColumnSpec(name, type, false, true, null, null, connect, semantic);
    }

    private static ColumnSpec pg(
            String name,
            String type,
            Integer length,
            Integer scale,
            String connect,
            String semantic) {
        return new ColumnSpec(name, type, false, true, length, scale, connect, semantic);
    }

    /** An array column with its element's Connect type and name. */
    private static ColumnSpec pgArray(
            String name,
            String type,
            Integer length,
            Integer scale,
            String items,
            String semantic) {
        return new ColumnSpec(
                name, type, false, true, length, scale, "array", null, null, items, semantic);
    }

    private static List<ColumnSpec> postgresTypeColumns() {
        return List.of(
                new ColumnSpec("id", "INT4", true, false, 10, 0, "int32", null),
                pgArray("d_arr", "_DATE", 13, 0, "int32", "io.debezium.time.Date"),
                pgArray("ts_arr", "_TIMESTAMP", 29, 6, "int64", "io.debezium.time.MicroTimestamp"),
                pgArray(
                        "tstz_arr",
                        "_TIMESTAMPTZ",
                        35,
                        6,
                        "string",
                        "io.debezium.time.ZonedTimestamp"),
                pgArray("tm_arr", "_TIME", 15, 6, "int64", "io.debezium.time.MicroTime"),
                pgArray("i2_arr", "_INT2", 5, 0, "int16", null),
                pgArray("i_arr", "_INT4", 10, 0, "int32", null),
                pgArray("i8_arr", "_INT8", 19, 0, "int64", null),
                pgArray("f4_arr", "_FLOAT4", 8, 8, "float", null),
                pgArray("f_arr", "_FLOAT8", 17, 17, "double", null),
                pgArray("num_arr", "_NUMERIC", 12, 3, "string", null),
                pgArray("b_arr", "_BOOL", 1, 0, "boolean", null),
                pgArray("t_arr", "_TEXT", null, null, "string", null),
                pgArray("ch_arr", "_BPCHAR", 3, 0, "string", null),
                pgArray("u_arr", "_UUID", null, null, "string", "io.debezium.data.Uuid"),
                pgArray("j_arr", "_JSONB", null, null, "string", "io.debezium.data.Json"),
                pgArray("by_arr", "_BYTEA", null, null, "bytes", null),
                pgArray("mood_arr", "_MOOD", null, null, "string", "io.debezium.data.Enum"),
                pgArray("ip_arr", "_INET", null, null, "string", null),
                pgArray("ir_arr", "_INT4RANGE", null, null, "string", null),
                pgArray("dom_arr", "_POSINT", null, null, "bytes", null),
                pg("mood", "MOOD", "string", "io.debezium.data.Enum"),
                pg("dom_n", "PRICE", 10, 2, "string", null),
                pg("addr", "ADDRESS", "bytes", null),
                pg("ch", "BPCHAR", 5, 0, "string", null),
                pg("ct", "CITEXT", "string", null),
                pg("iv", "INTERVAL", 49, 6, "string", "io.debezium.time.Interval"),
                pg("j", "JSON", "string", "io.debezium.data.Json"),
                pg("jb", "JSONB", "string", "io.debezium.data.Json"),
                pg("hs", "HSTORE", "string", "io.debezium.data.Json"),
                pg("x", "XML", "string", "io.debezium.data.Xml"),
                pg("tsv", "TSVECTOR", "string", "io.debezium.data.Tsvector"),
                pg("ip", "INET", "string", null),
                pg("cidr", "CIDR", "string", null),
                pg("mac", "MACADDR", "string", null),
                pg("mac8", "MACADDR8", "string", null),
                pg("mo", "MONEY", 2147483647, 0, "string", null),
                pg("ir", "INT4RANGE", "string", null),
                pg("tsr", "TSRANGE", "string", null),
                pg("pt", "POINT", "struct", "io.debezium.data.geometry.Point"),
                pg("bt", "BIT", 1, 0, "boolean", null),
                pg("b3", "BIT", 3, 0, "bytes", "io.debezium.data.Bits"),
                pg("vb", "VARBIT", 8, 0, "bytes", "io.debezium.data.Bits"),
                pg("u", "UUID", "string", "io.debezium.data.Uuid"),
                pg("bin", "BYTEA", "bytes", null),
                pg("tstz_max", "TIMESTAMPTZ", 35, 6, "string", "io.debezium.time.ZonedTimestamp"));
    }

    /** A row as Debezium 3.7 streams it (read off its change events). */
    private static ObjectNode postgresTypeRow() throws Exception {
        return (ObjectNode)
                M.readTree(
                        """
                        {"id": 1,
                         "d_arr": [17109, 17110, -622191234, null],
                         "ts_arr": [1478253600500000],
                         "tstz_arr": ["2016-11-04T08:00:00.500000Z", "infinity"],
                         "tm_arr": [36000000000, 0],
                         "i2_arr": [1, 2],
                         "i_arr": [1, null, 3],
                         "i8_arr": [9000000000],
                         "f4_arr": [1.5, "NaN"],
                         "f_arr": [2.25, "Infinity"],
                         "num_arr": ["1.500", null],
                         "b_arr": [true, false, null],
                         "t_arr": ["a", "b c", "", "NULL", null, "q\\"uote", "back\\\\slash", "com,ma"],
                         "ch_arr": ["ab ", "c  "],
                         "u_arr": ["3f2504e0-4f89-11d3-9a0c-0305e82c3301"],
                         "j_arr": ["{\\"b\\": 2}", null],
                         "by_arr": ["3q0=", null],
                         "mood_arr": ["happy", "sad"],
                         "ip_arr": ["192.168.0.1", "::1"],
                         "ir_arr": ["[1,2)"],
                         "dom_arr": ["MQ==", "Mg=="],
                         "mood": "happy",
                         "dom_n": "12.34",
                         "addr": "KCJNYWluICIiU3QiIiwgMSIsMTIzNDUp",
                         "ch": "ab   ",
                         "ct": "CiText",
                         "iv": "P1Y2M3DT4H5M6.789S",
                         "j": "{\\"a\\": [1, 2]}",
                         "jb": "{\\"b\\": {\\"c\\": null}}",
                         "hs": "{\\"a\\":\\"1\\",\\"b\\":null,\\"c d\\":\\"e,f\\"}",
                         "x": "<a>x</a>",
                         "tsv": "'a' 'cat' 'fat'",
                         "ip": "192.168.0.1/24",
                         "cidr": "10.0.0.0/8",
                         "mac": "08:00:2b:01:02:03",
                         "mac8": "08:00:2b:01:02:03:04:05",
                         "mo": "1234.56",
                         "ir": "[1,10)",
                         "tsr": "[\\"2016-01-01 10:00:00\\",\\"2016-01-01 11:00:00\\")",
                         "pt": {"x": 1.5, "y": 2.5, "wkb": "AQEAAAAAAAAAAAD4PwAAAAAAAARA", "srid": null},
                         "bt": true,
                         "b3": "BQ==",
                         "vb": "Aw==",
                         "u": "3f2504e0-4f89-11d3-9a0c-0305e82c3301",
                         "bin": "3q2+7w==",
                         "tstz_max": "+294247-01-01T23:59:59.999999Z"}
                        """);
    }

    /**
     * Each value as a user would query it, in SQL both warehouses run: array elements by position,
     * intervals, JSON, ranges and the rest by comparison with a literal of their type.
     */
    private void assertPostgresTypeRow() throws Exception {
        String[] expressions = {
            "CAST(d_arr[1] AS VARCHAR)",
            "CAST(d_arr[2] AS VARCHAR)",
            "CAST(d_arr[3] AS VARCHAR)",
            "CAST(d_arr[4] AS VARCHAR)",
            "CAST(ts_arr[1] AS VARCHAR)",
            "CAST(tstz_arr[1] AT TIME ZONE 'UTC' AS VARCHAR)",
            "CAST(tm_arr[1] AS VARCHAR)",
            "i2_arr[2] + i_arr[3] + i8_arr[1]",
            "CAST(i_arr[2] AS VARCHAR)",
            "f4_arr[1] * 2",
            "CAST(f_arr[2] > 1e308 AS VARCHAR)",
            "num_arr[1] * 2",
            "CAST(b_arr[2] AS VARCHAR)",
            "t_arr[2] || '|' || t_arr[3] || '|' || t_arr[4] || '|' || t_arr[6] || '|' || t_arr[7]"
                    + " || '|' || t_arr[8]",
            "CAST(t_arr[5] IS NULL AS VARCHAR)",
            "ch_arr[1] || '|'",
            "CAST(u_arr[1] AS VARCHAR)",
            "CAST(j_arr[1] AS VARCHAR)",
            "mood_arr[1] || ',' || mood_arr[2]",
            "ip_arr[2]",
            "ir_arr[1]",
            "dom_arr[2]",
            "mood || ' ' || dom_n || ' ' || addr || ' ' || ch || '|' || ct",
            "CAST(iv = CAST('1 year 2 months 3 days 04:05:06.789' AS INTERVAL) AS VARCHAR)",
            "CAST(j AS VARCHAR)",
            "CAST(jb AS VARCHAR)",
            "hs->>'a'",
            "CAST(x AS VARCHAR) || ' ' || CAST(tsv AS VARCHAR)",
            "CAST(ip AS VARCHAR) || ' ' || CAST(cidr AS VARCHAR) || ' ' || CAST(mac AS VARCHAR)"
                    + " || ' ' || CAST(mac8 AS VARCHAR)",
            "mo * 2",
            "CAST(ir AS VARCHAR) || ' ' || CAST(tsr AS VARCHAR)",
            pointCoordinates("pt"),
            "CAST(bt AS VARCHAR) || ' ' || CAST(b3 AS VARCHAR) || ' ' || CAST(vb AS VARCHAR)",
            "CAST(u AS VARCHAR)"
        };
        List<String> got = new ArrayList<>();
        try (Connection c = writer.openReader();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT "
                                        + String.join(", ", expressions)
                                        + ", by_arr[1], bin, tstz_max FROM "
                                        + quoted(table))) {
            assertThat(rs.next()).isTrue();
            for (int i = 1; i <= expressions.length; i++) {
                Object v = rs.getObject(i);
                got.add(
                        v instanceof BigDecimal d
                                ? d.stripTrailingZeros().toPlainString()
                                : String.valueOf(v));
            }
            assertThat(rs.getBytes(expressions.length + 1)).containsExactly(0xDE, 0xAD);
            assertThat(rs.getBytes(expressions.length + 2)).containsExactly(0xDE, 0xAD, 0xBE, 0xEF);
            assertThat(rs.getObject(expressions.length + 3, OffsetDateTime.class).toInstant())
                    .isEqualTo(Instant.parse("+294247-01-01T23:59:59.999999Z"));
        }
        assertThat(got)
                .containsExactly(
                        "2016-11-04",
                        "2016-11-05",
                        "infinity",
                        "null",
                        "2016-11-04 10:00:00.5",
                        "2016-11-04 08:00:00.5",
                        "10:00:00",
                        "9000000005",
                        "null",
                        "3.0",
                        "true",
                        "3",
                        "false",
                        "b c||NULL|q\"uote|back\\slash|com,ma",
                        "true",
                        "ab |",
                        "3f2504e0-4f89-11d3-9a0c-0305e82c3301",
                        "{\"b\": 2}",
                        "happy,sad",
                        "::1",
                        "[1,2)",
                        "2",
                        "happy 12.34 (\"Main \"\"St\"\", 1\",12345) ab   |CiText",
                        "true",
                        "{\"a\": [1, 2]}",
                        "{\"b\": {\"c\": null}}",
                        "1",
                        "<a>x</a> 'a' 'cat' 'fat'",
                        "192.168.0.1/24 10.0.0.0/8 08:00:2b:01:02:03 08:00:2b:01:02:03:04:05",
                        "2469.12",
                        "[1,10) [\"2016-01-01 10:00:00\",\"2016-01-01 11:00:00\")",
                        "1.5 2.5",
                        "true 101 11",
                        "3f2504e0-4f89-11d3-9a0c-0305e82c3301");
    }

    @Test
    void postgresTypesLandAsTheWarehousesOwnTypes() throws Exception {
        writer.apply(
                List.of(
                        NetChanges.change(
                                table,
                                postgresTypeColumns(),
                                NetOperation.INSERT,
                                1,
                                postgresTypeRow(),
                                List.of(),
                                10,
                                NetChangeMode.ALL)),
                100);
        assertPostgresTypeRow();

        // an update that sends none of them keeps them (DuckDB copies them through text)
        ObjectNode placeholder = M.createObjectNode();
        placeholder.put("id", 1);
        List<String> unchanged = new ArrayList<>();
        for (ColumnSpec c : postgresTypeColumns()) {
            if (!c.key()) {
                placeholder.put(c.name(), "__debezium_unavailable_value");
                unchanged.add(c.name());
            }
        }
        writer.apply(
                List.of(
                        NetChanges.change(
                                table,
                                postgresTypeColumns(),
                                NetOperation.UPDATE,
                                1,
                                placeholder,
                                unchanged,
                                11,
                                NetChangeMode.ALL)),
                200);
        assertPostgresTypeRow();
    }

    @Test
    void aTableMadeByTheEarlierMappingKeepsItsColumnTypes() throws Exception {
        // the earlier mapping: arrays without their element type and JSON as text, intervals as
        // microseconds, bit strings as binary
        List<ColumnSpec> before =
                List.of(
                        new ColumnSpec("id", "INT4", true, false, 10, 0, "int32", null),
                        new ColumnSpec("days", "ARRAY", false, true, null, null, "array", null),
                        pg("doc", "TEXT", "string", null),
                        pg("iv", "INT64", "int64", "io.debezium.time.MicroDuration"),
                        pg("b3", "BYTES", "bytes", null));
        ObjectNode first =
                (ObjectNode)
                        M.readTree(
                                "{\"id\": 1, \"days\": [17109], \"doc\": \"{}\", \"iv\": 1000000,"
                                        + " \"b3\": \"BQ==\"}");
        writer.apply(
                List.of(
                        NetChanges.change(
                                table,
                                before,
                                NetOperation.INSERT,
                                1,
                                first,
                                List.of(),
                                10,
                                NetChangeMode.ALL)),
                100);
        List<ColumnSpec> now =
                List.of(
                        new ColumnSpec("id", "INT4", true, false, 10, 0, "int32", null),
                        pgArray("days", "_DATE", 13, 0, "int32", "io.debezium.time.Date"),
                        pg("doc", "JSONB", "string", "io.debezium.data.Json"),
                        pg("iv", "INTERVAL", 49, 6, "string", "io.debezium.time.Interval"),
                        pg("b3", "BIT", 3, 0, "bytes", "io.debezium.data.Bits"),
                        pgArray("more", "_DATE", 13, 0, "int32", "io.debezium.time.Date"));
        ObjectNode second =
                (ObjectNode)
                        M.readTree(
                                "{\"id\": 2, \"days\": [17110, null], \"doc\": \"{\\\"a\\\": 1}\","
                                        + " \"iv\": \"P0Y1M0DT0H0M1S\", \"b3\": \"BQ==\","
                                        + " \"more\": [17111]}");
        writer.apply(
                List.of(
                        NetChanges.change(
                                table,
                                now,
                                NetOperation.INSERT,
                                2,
                                second,
                                List.of(),
                                11,
                                NetChangeMode.ALL)),
                200);
        try (Connection c = writer.openReader();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT days, doc, iv, b3, CAST(more[1] AS VARCHAR) FROM "
                                        + quoted(table)
                                        + " WHERE id = 2")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("[17110,null]");
            assertThat(rs.getString(2)).isEqualTo("{\"a\": 1}");
            // a month of 30.4375 days and a second, as Debezium's microseconds count them
            assertThat(rs.getLong(3)).isEqualTo(2_629_801_000_000L);
            assertThat(rs.getBytes(4)).containsExactly(5);
            assertThat(rs.getString(5)).isEqualTo("2016-11-06");
        }
    }

    /** Columns as the Debezium SQL Server connector describes them. */
    private static List<ColumnSpec> sqlServerColumns() {
        return List.of(
                new ColumnSpec("id", "INT32", true, false, null, null, "int32", null),
                new ColumnSpec("status", "STRING", false, true, null, null, "string", null),
                new ColumnSpec("amount", "DECIMAL", false, true, 12, 2, "string", null),
                new ColumnSpec("paid", "BOOLEAN", false, true, null, null, "boolean", null),
                new ColumnSpec(
                        "placed_at",
                        "INT64",
                        false,
                        true,
                        null,
                        null,
                        "int64",
                        "io.debezium.time.NanoTimestamp"),
                new ColumnSpec(
                        "shipped_at",
                        "STRING",
                        false,
                        true,
                        null,
                        null,
                        "string",
                        "io.debezium.time.ZonedTimestamp"),
                new ColumnSpec("ref", "STRING", false, true, null, null, "string", null));
    }

    private static NetChange sqlServerChange(
            String table, NetOperation op, int id, String status, String position) {
        ObjectNode key = NetChanges.M.createObjectNode().put("id", id);
        ObjectNode after = null;
        if (op != NetOperation.DELETE) {
            after =
                    NetChanges.M.createObjectNode()
                            .put("id", id)
                            .put("status", status)
                            .put("amount", "12.30")
                            .put("paid", "paid".equals(status))
                            .put("placed_at", 1_763_683_200_123_456_700L)
                            .put("shipped_at", "2025-11-21T00:00:00.123456Z")
                            .put("ref", "6F9619FF-8B86-D011-B42D-00C04FC964FF");
        }
        return new NetChange(
                table,
                op,
                key,
                after == null ? null : RowImage.of(after),
                null,
                List.of(),
                Schemas.describe(sqlServerColumns()),
                0,
                1000,
                position,
                position,
                position.substring(0, 22),
                1_763_683_200_000L,
                1,
                false,
                NetChangeMode.ALL,
                new StageTimes(1, 2, 3, 4),
                null);
    }

    @Test
    void sqlServerChangesApplyInTheOrderOfTheirPositions() throws Exception {
        String t = "dbo.orders_" + Long.toHexString(System.nanoTime());
        String p1 =
                SourcePosition.sqlServer("00000027:00000758:0005", "00000027:00000750:0002", 1L);
        String p2 =
                SourcePosition.sqlServer("00000027:00000758:0005", "00000027:00000750:0002", 2L);
        String p3 =
                SourcePosition.sqlServer("00000028:00000010:0001", "00000027:00000900:0001", 1L);
        writer.apply(List.of(sqlServerChange(t, NetOperation.INSERT, 1, "new", p1)), 100);
        writer.apply(List.of(sqlServerChange(t, NetOperation.UPDATE, 1, "paid", p3)), 200);
        // a replay of the older change must not take the row back
        writer.apply(List.of(sqlServerChange(t, NetOperation.UPDATE, 1, "stale", p2)), 300);
        writer.apply(List.of(sqlServerChange(t, NetOperation.INSERT, 2, "new", p1)), 400);
        writer.apply(List.of(sqlServerChange(t, NetOperation.DELETE, 2, null, p3)), 500);
        writer.apply(List.of(sqlServerChange(t, NetOperation.INSERT, 2, "ghost", p2)), 600);
        String[] parts = t.split("\\.");
        try (Connection c = writer.openReader();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT id, status, amount, paid, placed_at, shipped_at, ref,"
                                        + " _cdc_lsn FROM \""
                                        + parts[0]
                                        + "\".\""
                                        + parts[1]
                                        + "\" ORDER BY id")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isEqualTo(1);
            assertThat(rs.getString(2)).isEqualTo("paid");
            assertThat(rs.getBigDecimal(3)).isEqualByComparingTo("12.30");
            assertThat(rs.getBoolean(4)).isTrue();
            assertThat(rs.getObject(5).toString())
                    .startsWith("2025-11-21")
                    .contains("00:00:00.123456");
            assertThat(rs.getObject(6)).isNotNull();
            assertThat(rs.getString(7)).isEqualTo("6F9619FF-8B86-D011-B42D-00C04FC964FF");
            assertThat(rs.getString(8)).isEqualTo(p3);
            assertThat(rs.next()).as("the deleted key stays deleted").isFalse();
        }
    }

    @Test
    void progressIsRecordedWithTheData() throws Exception {
        writer.apply(List.of(upsert(table, 1, "a", null, 10)), 4242);
        try (Connection c = writer.openReader();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT max(applied_through_ms) FROM cdc_lab.progress")) {
            rs.next();
            assertThat(rs.getLong(1)).isEqualTo(4242);
        }
    }
}
