package dev.cdclab.streams.fold;

import dev.cdclab.streams.debezium.ChangeEvent;
import java.time.Duration;

/**
 * How changes are grouped into windows, and when a window is complete. Every change of one source
 * transaction lands in the same window, in every partition and every instance.
 */
public sealed interface WindowPolicy {

    /** Windows cut at transaction boundaries for a zero interval, fixed intervals otherwise. */
    static WindowPolicy of(Duration interval, Duration grace) {
        return interval.isZero()
                ? new TransactionWindows()
                : new FixedIntervals(interval.toMillis(), grace.toMillis());
    }

    /**
     * The window of a change's transaction; {@code openKey} is the window open when the change has
     * no place of its own in the commit order (a row an incremental snapshot read).
     */
    Interval assign(ChangeEvent ev, long openKey);

    /**
     * The bound through which windows are complete once {@code ev} is seen, the newest commit time
     * seen (its own included) being {@code newestCommitMs}; {@link Long#MIN_VALUE} when it says
     * nothing.
     */
    long bound(ChangeEvent ev, long newestCommitMs);

    /**
     * The bound through which every window holding a change seen so far is closed: what a settling
     * snapshot waits for, so that it becomes visible with everything the log delivered before its
     * heartbeat.
     */
    long boundOfAllSeen(ChangeEvent ev, long newestCommitMs);

    /** The earliest window still open once every window ending at or before the bound closed. */
    Interval earliestOpen(long closedThrough);

    /** Largest window start that is closed under the bound. */
    long maxClosedStart(long closedThrough);

    /** The settings that make this policy, as {@code interval=... grace=...}. */
    String settings();

    /** True when the window is complete once everything up to {@code closedThrough} is in. */
    default boolean isClosed(Interval window, long closedThrough) {
        return window.endMs() <= closedThrough;
    }

    /**
     * One window per source transaction, keyed by its place in the source's commit order. A
     * partition of the change topic is in commit order, so the first change of a later transaction
     * proves every earlier window complete: no grace, no waiting.
     */
    record TransactionWindows() implements WindowPolicy {
        @Override
        public Interval assign(ChangeEvent ev, long openKey) {
            long key = ev.windowKey() != Long.MIN_VALUE ? ev.windowKey() : openKey;
            return new Interval(key, key + 1, 0);
        }

        @Override
        public long bound(ChangeEvent ev, long newestCommitMs) {
            return ev.windowKey();
        }

        @Override
        public long boundOfAllSeen(ChangeEvent ev, long newestCommitMs) {
            return bound(ev, newestCommitMs);
        }

        @Override
        public Interval earliestOpen(long closedThrough) {
            return new Interval(closedThrough, closedThrough + 1, 0);
        }

        @Override
        public long maxClosedStart(long closedThrough) {
            return closedThrough - 1;
        }

        @Override
        public String settings() {
            return "interval=0 (a window per transaction)";
        }
    }

    /**
     * Fixed windows of source commit time, {@code [k * intervalMs, (k + 1) * intervalMs)}: a window
     * closes when the partition's newest commit time passes its end by {@code graceMs}, which
     * absorbs commit-time jitter between concurrent transactions.
     */
    record FixedIntervals(long intervalMs, long graceMs) implements WindowPolicy {
        public FixedIntervals {
            if (intervalMs <= 0) {
                throw new IllegalArgumentException("interval must be > 0");
            }
        }

        @Override
        public Interval assign(ChangeEvent ev, long openKey) {
            long start = Math.floorDiv(ev.commitMs(), intervalMs) * intervalMs;
            return new Interval(start, start + intervalMs, 0);
        }

        @Override
        public long bound(ChangeEvent ev, long newestCommitMs) {
            // markers move once per interval rather than once per transaction
            return Math.floorDiv(newestCommitMs - graceMs, intervalMs) * intervalMs;
        }

        @Override
        public long boundOfAllSeen(ChangeEvent ev, long newestCommitMs) {
            return Math.floorDiv(newestCommitMs, intervalMs) * intervalMs + intervalMs;
        }

        @Override
        public Interval earliestOpen(long closedThrough) {
            long start = Math.floorDiv(closedThrough, intervalMs) * intervalMs;
            return new Interval(start, start + intervalMs, 0);
        }

        @Override
        public long maxClosedStart(long closedThrough) {
            return closedThrough - intervalMs;
        }

        @Override
        public String settings() {
            return "interval=" + intervalMs + "ms grace=" + graceMs + "ms";
        }
    }
}
