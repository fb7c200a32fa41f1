package dev.cdclab.sink.warehouse;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cdclab.change.ColumnSpec;
import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetChangeMode;
import dev.cdclab.change.NetOperation;
import dev.cdclab.change.RowImage;
import dev.cdclab.change.Schemas;
import dev.cdclab.change.SourcePosition;
import dev.cdclab.change.StageTimes;
import dev.cdclab.change.TableEvent;
import java.util.ArrayList;
import java.util.List;

/** Builds net changes for sink tests. */
public final class NetChanges {
    static final ObjectMapper M = new ObjectMapper();

    static final List<ColumnSpec> ITEMS =
            List.of(
                    new ColumnSpec("id", "INT32", true, false, null, null, "int32", null),
                    new ColumnSpec("name", "STRING", false, true, null, null, "string", null),
                    new ColumnSpec("note", "STRING", false, true, null, null, "string", null),
                    new ColumnSpec("price", "NUMERIC", false, true, 10, 2, "string", null));

    private NetChanges() {}

    public static NetChange upsert(String table, int id, String name, String note, long lsn) {
        return change(
                table,
                ITEMS,
                NetOperation.UPDATE,
                id,
                row(id, name, note),
                List.of(),
                lsn,
                NetChangeMode.ALL);
    }

    /** An insert: the row did not exist before it. */
    public static NetChange insert(String table, int id, String name, long lsn) {
        return inserted(table, id, name, lsn, false);
    }

    /** A row a snapshot read: an insert that may find the row written already. */
    public static NetChange snapshotRead(String table, int id, String name, long lsn) {
        return inserted(table, id, name, lsn, true);
    }

    private static NetChange inserted(
            String table, int id, String name, long lsn, boolean snapshot) {
        return change(
                table,
                ITEMS,
                NetOperation.INSERT,
                id,
                row(id, name, null),
                List.of(),
                lsn,
                NetChangeMode.ALL,
                snapshot);
    }

    public static NetChange delete(String table, int id, long lsn) {
        return change(
                table, ITEMS, NetOperation.DELETE, id, null, List.of(), lsn, NetChangeMode.ALL);
    }

    /** Columns of a table without a key: a name and a count, duplicates allowed. */
    static final List<ColumnSpec> LOG =
            List.of(
                    new ColumnSpec("name", "STRING", false, true, null, null, "string", null),
                    new ColumnSpec("n", "INT32", false, true, null, null, "int32", null));

    /** A change of a table without a key, at {@code position}; null images where there are none. */
    public static NetChange keyless(
            String table, NetOperation op, ObjectNode before, ObjectNode after, String position) {
        return keyless(table, LOG, op, before, after, position);
    }

    /** A change of a table without a key, of the given columns (none a key). */
    public static NetChange keyless(
            String table,
            List<ColumnSpec> columns,
            NetOperation op,
            ObjectNode before,
            ObjectNode after,
            String position) {
        return new NetChange(
                table,
                op,
                M.createObjectNode(),
                after == null ? null : RowImage.of(after),
                before == null ? null : RowImage.of(before),
                List.of(),
                Schemas.describe(columns),
                0,
                10,
                position,
                position,
                "1",
                1_700_000_000_000L,
                1,
                false,
                NetChangeMode.OFF,
                new StageTimes(1, 2, 3, 4),
                null);
    }

    public static NetChange keyless(
            String table, NetOperation op, ObjectNode before, ObjectNode after, long lsn) {
        return keyless(table, op, before, after, SourcePosition.postgres(lsn));
    }

    static ObjectNode logRow(String name, int n) {
        return M.createObjectNode().put("name", name).put("n", n);
    }

    /** A {@code TRUNCATE} of the table at {@code lsn}. */
    public static TableEvent truncate(String table, long lsn) {
        return new TableEvent(
                TableEvent.Kind.TRUNCATE,
                table,
                SourcePosition.postgres(lsn),
                "1",
                1_700_000_000_000L + lsn,
                lsn * 10,
                lsn * 10 + 10);
    }

    /** A rename ({@code to} non-null) or drop of the table at {@code lsn}. */
    public static TableEvent renameOrDrop(String table, String to, long lsn) {
        return new TableEvent(
                to == null ? TableEvent.Kind.DROP : TableEvent.Kind.RENAME,
                table,
                SourcePosition.postgres(lsn),
                "1",
                1_700_000_000_000L + lsn,
                lsn * 10,
                lsn * 10 + 10,
                to);
    }

    static ObjectNode row(int id, String name, String note) {
        ObjectNode n = M.createObjectNode();
        n.put("id", id);
        n.put("name", name);
        n.put("note", note);
        n.put("price", "12.30");
        return n;
    }

    static NetChange change(
            String table,
            List<ColumnSpec> columns,
            NetOperation op,
            int id,
            ObjectNode after,
            List<String> unchanged,
            long lsn,
            NetChangeMode mode) {
        return change(table, columns, op, id, after, unchanged, lsn, mode, false);
    }

    private static NetChange change(
            String table,
            List<ColumnSpec> columns,
            NetOperation op,
            int id,
            ObjectNode after,
            List<String> unchanged,
            long lsn,
            NetChangeMode mode,
            boolean snapshot) {
        ObjectNode key = M.createObjectNode();
        key.put("id", id);
        return new NetChange(
                table,
                op,
                key,
                after == null ? null : RowImage.of(after),
                null,
                new ArrayList<>(unchanged),
                Schemas.describe(columns),
                lsn * 10,
                lsn * 10 + 10,
                SourcePosition.postgres(lsn),
                SourcePosition.postgres(lsn),
                Long.toString(lsn),
                1_700_000_000_000L + lsn,
                1,
                snapshot,
                mode,
                new StageTimes(1, 2, 3, 4),
                null);
    }
}
