package dev.cdclab.streams.fold;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetChangeMode;
import dev.cdclab.change.NetOperation;
import dev.cdclab.change.RowImage;
import dev.cdclab.change.StageTimes;
import dev.cdclab.streams.debezium.ChangeEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The net-change semantics of SQL Server's {@code cdc.fn_cdc_get_net_changes_<instance>}, as pure
 * functions: fold raw changes of one key in one interval, then decide the net operation from
 * whether the row existed before the interval and exists after it.
 */
public final class NetChangeFolder {
    private NetChangeFolder() {}

    /**
     * Folds one more raw change (in source order) into the pending state, or starts one; the change
     * is late when it committed before the interval starts.
     */
    public static PendingChange fold(PendingChange prev, ChangeEvent ev, Interval interval) {
        return fold(prev, ev, interval, ev.commitMs() < interval.startMs());
    }

    /**
     * Folds one more raw change (in source order) into the pending state, or starts one.
     *
     * @param late whether the change's own window had closed, so that it went to a later one
     */
    public static PendingChange fold(
            PendingChange prev, ChangeEvent ev, Interval interval, boolean late) {
        boolean existedBefore;
        String firstPosition;
        int count;
        RowImage prevImage;
        List<String> prevUnchanged;
        if (prev == null) {
            // a snapshot read or an insert says the row was absent from the warehouse's view,
            // unless the change is late (folded into an interval that starts after it committed):
            // then it may be a replay (Connect restarting from its last committed offset) of a
            // change already emitted in its own, closed interval, so the row may exist already and
            // a delete folded after it must still be emitted, not cancelled out
            existedBefore = late || ev.op() == 'u' || ev.op() == 'd';
            firstPosition = ev.position();
            count = 0;
            prevImage = null;
            prevUnchanged = List.of();
        } else {
            existedBefore = prev.existedBefore();
            firstPosition = prev.firstPosition();
            count = prev.rawChanges();
            prevImage = prev.image();
            prevUnchanged = prev.unchanged();
        }
        RowImage image = null;
        List<String> unchanged = List.of();
        if (ev.rowExistsAfter()) {
            image = ev.after();
            unchanged = ev.unavailable();
            if (!unchanged.isEmpty() && prevImage != null) {
                // a placeholder never replaces a value this interval has already seen
                ObjectNode resolved = image.tree().deepCopy();
                List<String> still = new ArrayList<>();
                for (String col : unchanged) {
                    JsonNode known = prevImage.get(col);
                    if (known != null && !prevUnchanged.contains(col)) {
                        resolved.set(col, known);
                    } else {
                        still.add(col);
                    }
                }
                image = RowImage.of(resolved);
                unchanged = List.copyOf(still);
            }
        }
        return new PendingChange(
                ev.table(),
                ev.key(),
                interval,
                existedBefore,
                ev.rowExistsAfter(),
                image,
                unchanged,
                ev.schema(),
                firstPosition,
                ev.position(),
                ev.transaction(),
                ev.commitMs(),
                ev.capturedMs(),
                ev.kafkaAppendMs(),
                count + 1,
                ev.snapshot(),
                ev.generatorCommitMicros());
    }

    /**
     * The net change of a closed interval; empty when the row neither existed before nor exists
     * after (inserted and deleted inside the interval).
     */
    public static Optional<NetChange> close(PendingChange p, NetChangeMode mode, long emittedMs) {
        NetOperation op;
        if (!p.existedBefore() && !p.existsAfter()) {
            return Optional.empty();
        } else if (!p.existsAfter()) {
            op = NetOperation.DELETE;
        } else if (mode == NetChangeMode.ALL_WITH_MERGE) {
            op = NetOperation.UPSERT;
        } else {
            op = p.existedBefore() ? NetOperation.UPDATE : NetOperation.INSERT;
        }
        return Optional.of(toNetChange(p, op, mode, emittedMs));
    }

    /** One raw change passed through unfolded ({@link NetChangeMode#OFF}). */
    public static NetChange passThrough(ChangeEvent ev, Interval interval, long emittedMs) {
        return passThrough(ev, interval, emittedMs, NetChangeMode.OFF);
    }

    /**
     * One raw change passed on for the sink to fold ({@code mode} {@link NetChangeMode#ALL} or
     * {@link NetChangeMode#ALL_WITH_MERGE}: it keeps the newest change per key of every window it
     * applies at once) or to apply as it is ({@link NetChangeMode#OFF}).
     */
    public static NetChange passThrough(
            ChangeEvent ev, Interval interval, long emittedMs, NetChangeMode mode) {
        PendingChange p = fold(null, ev, interval);
        NetOperation op =
                switch (ev.op()) {
                    case 'd' -> NetOperation.DELETE;
                    case 'u' -> NetOperation.UPDATE;
                    default -> NetOperation.INSERT;
                };
        if (mode == NetChangeMode.ALL_WITH_MERGE && op != NetOperation.DELETE) {
            op = NetOperation.UPSERT;
        }
        return toNetChange(p, op, mode, emittedMs);
    }

    /**
     * A change of a table without a key, as it is: the warehouse inserts, updates or deletes one
     * row for it, in source order. An update's unchanged TOASTed values come from its old image,
     * which {@code REPLICA IDENTITY FULL} logs whole.
     *
     * @param position the change's position; a snapshot read's is made unique within its snapshot
     */
    public static NetChange keyless(
            ChangeEvent ev, Interval interval, String position, long emittedMs) {
        NetOperation op =
                switch (ev.op()) {
                    case 'd' -> NetOperation.DELETE;
                    case 'u' -> NetOperation.UPDATE;
                    default -> NetOperation.INSERT;
                };
        RowImage after = op == NetOperation.DELETE ? null : ev.after();
        List<String> unchanged = op == NetOperation.DELETE ? List.of() : ev.unavailable();
        if (after != null && !unchanged.isEmpty() && ev.before() != null) {
            ObjectNode resolved = after.tree().deepCopy();
            List<String> still = new ArrayList<>();
            for (String col : unchanged) {
                JsonNode old = ev.before().get(col);
                if (old != null) {
                    resolved.set(col, old);
                } else {
                    still.add(col);
                }
            }
            after = RowImage.of(resolved);
            unchanged = List.copyOf(still);
        }
        return new NetChange(
                ev.table(),
                op,
                ev.key(),
                after,
                op == NetOperation.INSERT ? null : ev.before(),
                unchanged,
                ev.schema(),
                interval.startMs(),
                interval.endMs(),
                position,
                position,
                ev.transaction(),
                ev.commitMs(),
                1,
                ev.snapshot(),
                NetChangeMode.OFF,
                new StageTimes(ev.commitMs(), ev.capturedMs(), ev.kafkaAppendMs(), emittedMs),
                ev.generatorCommitMicros());
    }

    private static NetChange toNetChange(
            PendingChange p, NetOperation op, NetChangeMode mode, long emittedMs) {
        return new NetChange(
                p.table(),
                op,
                p.key(),
                op == NetOperation.DELETE ? null : p.image(),
                null,
                op == NetOperation.DELETE ? List.of() : p.unchanged(),
                p.schema(),
                p.interval().startMs(),
                p.interval().endMs(),
                p.firstPosition(),
                p.lastPosition(),
                p.transaction(),
                p.commitMs(),
                p.rawChanges(),
                p.snapshot(),
                mode,
                new StageTimes(p.commitMs(), p.capturedMs(), p.kafkaAppendMs(), emittedMs),
                p.generatorCommitMicros());
    }
}
