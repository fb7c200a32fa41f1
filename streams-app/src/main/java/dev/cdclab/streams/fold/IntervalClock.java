package dev.cdclab.streams.fold;

/**
 * Assigns changes to intervals by their transaction's source commit time, so every change of one
 * transaction lands in the same interval in every partition and every instance.
 */
public final class IntervalClock {
    private final long intervalMs;

    /**
     * @param intervalMs interval length; 0 means one interval per source transaction
     */
    public IntervalClock(long intervalMs) {
        if (intervalMs < 0) {
            throw new IllegalArgumentException("interval must be >= 0");
        }
        this.intervalMs = intervalMs;
    }

    public long intervalMs() {
        return intervalMs;
    }

    /** The interval of a transaction that committed at {@code commitMs}. */
    public Interval assign(long commitMs, long transactionNumber) {
        if (intervalMs == 0) {
            return new Interval(commitMs, commitMs + 1, transactionNumber);
        }
        long start = Math.floorDiv(commitMs, intervalMs) * intervalMs;
        return new Interval(start, start + intervalMs, 0);
    }

    /**
     * The earliest interval still open after every interval ending at or before {@code
     * closedThroughMs} was emitted; where a late change goes.
     */
    public Interval earliestOpen(long closedThroughMs, long transactionNumber) {
        if (intervalMs == 0) {
            return new Interval(closedThroughMs, closedThroughMs + 1, transactionNumber);
        }
        long start = Math.floorDiv(closedThroughMs, intervalMs) * intervalMs;
        return new Interval(start, start + intervalMs, 0);
    }

    /** True when the interval is complete once everything up to {@code closedThroughMs} is in. */
    public boolean isClosed(Interval interval, long closedThroughMs) {
        return interval.endMs() <= closedThroughMs;
    }

    /** Largest interval start that is closed under the bound. */
    public long maxClosedStart(long closedThroughMs) {
        return closedThroughMs - Math.max(intervalMs, 1);
    }

    /**
     * Rounds a closing bound down to the last interval boundary, so that markers move once per
     * interval rather than once per transaction.
     */
    public long boundary(long closedThroughMs) {
        if (intervalMs == 0) {
            return closedThroughMs;
        }
        return Math.floorDiv(closedThroughMs, intervalMs) * intervalMs;
    }
}
