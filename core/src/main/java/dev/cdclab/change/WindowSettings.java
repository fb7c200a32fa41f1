package dev.cdclab.change;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The window a record falls in under the settings an interval marker names ({@link
 * IntervalMarker#windows()}): a window per transaction, keyed by the transaction's place in the
 * commit order, or fixed intervals of source commit time. A sink that reads a record emitted under
 * other settings (the net-change app restarted with a new interval) finds its window under the
 * settings in force with this, so that bounds and windows are compared in one unit.
 */
public final class WindowSettings {
    private static final Pattern FIXED = Pattern.compile("interval=(\\d+)ms");
    private static final Pattern PER_TRANSACTION = Pattern.compile("interval=0\\b");

    /** The interval length in milliseconds; 0 for a window per transaction. */
    private final long intervalMs;

    private WindowSettings(long intervalMs) {
        this.intervalMs = intervalMs;
    }

    /** The settings a marker names; null when it names none this can read. */
    public static WindowSettings of(String windows) {
        if (windows == null) {
            return null;
        }
        Matcher m = FIXED.matcher(windows);
        if (m.find()) {
            long ms = Long.parseLong(m.group(1));
            return ms > 0 ? new WindowSettings(ms) : null;
        }
        return PER_TRANSACTION.matcher(windows).find() ? new WindowSettings(0) : null;
    }

    /** The end of the window {@code r} falls in under these settings. */
    public long end(IntervalRecord r) {
        return start(r) + (intervalMs == 0 ? 1 : intervalMs);
    }

    /** The start of the window {@code r} falls in under these settings. */
    public long start(IntervalRecord r) {
        if (intervalMs > 0) {
            return Math.floorDiv(commitMs(r), intervalMs) * intervalMs;
        }
        return commitOrder(r.position());
    }

    private static long commitMs(IntervalRecord r) {
        return r instanceof NetChange c ? c.commitMs() : ((TableEvent) r).commitMs();
    }

    /**
     * A position's transaction as a window per transaction keys it: PostgreSQL's last commit before
     * the transaction, SQL Server's commit LSN.
     */
    static long commitOrder(String position) {
        int sep = position.indexOf(SourcePosition.OFFSET_SEPARATOR);
        String first = sep < 0 ? position : position.substring(0, sep);
        if (first.indexOf(':') >= 0) {
            return SourcePosition.sqlServerCommitOrder(first);
        }
        return Long.parseUnsignedLong(first, 16);
    }

    /** The record placed in the window it falls in under these settings. */
    public IntervalRecord place(IntervalRecord r) {
        long start = start(r);
        long end = end(r);
        if (r instanceof NetChange c) {
            if (c.intervalStartMs() == start && c.intervalEndMs() == end) {
                return c;
            }
            return new NetChange(
                    c.table(),
                    c.op(),
                    c.key(),
                    c.after(),
                    c.before(),
                    c.unchanged(),
                    c.schema(),
                    start,
                    end,
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
        TableEvent e = (TableEvent) r;
        return new TableEvent(
                e.kind(),
                e.table(),
                e.position(),
                e.transaction(),
                e.commitMs(),
                start,
                end,
                e.newName(),
                e.column(),
                e.newColumn(),
                e.detail());
    }
}
