package dev.cdclab.sink.warehouse;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetChangeMode;
import dev.cdclab.change.NetOperation;
import dev.cdclab.change.RowImage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reduces the net changes of several intervals applied in one warehouse transaction to one change
 * per key (the newest), or, for unfolded changes ({@link NetChangeMode#OFF}), splits them into
 * generations that each hold at most one change per key and are applied in order.
 */
public final class BatchFolder {
    private BatchFolder() {}

    /** Generations to apply in order; each has at most one change per table and key. */
    public static List<List<NetChange>> generations(List<NetChange> batch) {
        Map<String, NetChange> newest = new LinkedHashMap<>();
        List<List<NetChange>> unfolded = new ArrayList<>();
        Map<String, Integer> depth = new LinkedHashMap<>();
        for (NetChange c : batch) {
            String k = c.tableKey();
            if (c.mode() == NetChangeMode.OFF) {
                int g = depth.merge(k, 1, Integer::sum) - 1;
                while (unfolded.size() <= g) {
                    unfolded.add(new ArrayList<>());
                }
                unfolded.get(g).add(c);
                continue;
            }
            NetChange prev = newest.get(k);
            if (prev == null) {
                newest.put(k, c);
            } else if (c.lastPosition().compareTo(prev.lastPosition()) > 0) {
                newest.put(k, carryUnchanged(prev, withOp(c, foldedOp(prev, c))));
            }
        }
        List<List<NetChange>> out = new ArrayList<>();
        if (!newest.isEmpty()) {
            out.add(new ArrayList<>(newest.values()));
        }
        out.addAll(unfolded);
        return out;
    }

    /**
     * True when the row is known not to have existed before the change: an insert of one raw change
     * that is not a snapshot read. (An interval the net-change app folded may begin with a snapshot
     * read, which may find a row the warehouse holds already.)
     */
    static boolean absentBefore(NetChange c) {
        return c.op() == NetOperation.INSERT && !c.snapshot() && c.rawChanges() == 1;
    }

    /**
     * The operation of two changes of one key folded: an insert when the row was absent before the
     * older one and exists after the newer one; an update when it may have existed before and
     * exists after; otherwise the newer one's.
     */
    static NetOperation foldedOp(NetChange older, NetChange newer) {
        if (newer.op() != NetOperation.INSERT && newer.op() != NetOperation.UPDATE) {
            return newer.op();
        }
        return absentBefore(older) ? NetOperation.INSERT : NetOperation.UPDATE;
    }

    /** The change with another operation. */
    static NetChange withOp(NetChange c, NetOperation op) {
        if (c.op() == op) {
            return c;
        }
        return new NetChange(
                c.table(),
                op,
                c.key(),
                c.after(),
                c.before(),
                c.unchanged(),
                c.schema(),
                c.intervalStartMs(),
                c.intervalEndMs(),
                c.firstPosition(),
                c.lastPosition(),
                c.transaction(),
                c.commitMs(),
                c.rawChanges(),
                c.snapshot(),
                c.mode(),
                c.stages(),
                c.generatorCommitMicros());
    }

    /**
     * Fills the newer change's unchanged columns from the older change's image, when it has them.
     */
    static NetChange carryUnchanged(NetChange older, NetChange newer) {
        if (newer.unchanged().isEmpty()
                || older.op() == NetOperation.DELETE
                || older.after() == null
                || newer.after() == null) {
            return newer;
        }
        ObjectNode image = newer.after().tree().deepCopy();
        List<String> still = new ArrayList<>();
        for (String col : newer.unchanged()) {
            if (older.after().tree().has(col) && !older.unchanged().contains(col)) {
                image.set(col, older.after().get(col));
            } else {
                still.add(col);
            }
        }
        return new NetChange(
                newer.table(),
                newer.op(),
                newer.key(),
                RowImage.of(image),
                null,
                List.copyOf(still),
                newer.schema(),
                newer.intervalStartMs(),
                newer.intervalEndMs(),
                older.firstPosition(),
                newer.lastPosition(),
                newer.transaction(),
                newer.commitMs(),
                newer.rawChanges(),
                newer.snapshot(),
                newer.mode(),
                newer.stages(),
                newer.generatorCommitMicros());
    }
}
