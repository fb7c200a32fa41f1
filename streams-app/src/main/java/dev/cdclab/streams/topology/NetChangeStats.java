package dev.cdclab.streams.topology;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** Counters of one Streams app instance, readable from any thread. */
public final class NetChangeStats {
    private final LongAdder rawChanges = new LongAdder();
    private final LongAdder netChanges = new LongAdder();
    private final LongAdder vanished = new LongAdder();
    private final LongAdder vanishedRaw = new LongAdder();
    private final LongAdder late = new LongAdder();
    private final LongAdder deadLetters = new LongAdder();
    private final LongAdder heartbeats = new LongAdder();
    private final LongAdder snapshotChanges = new LongAdder();
    private final LongAdder overflowed = new LongAdder();
    private final LongAdder truncates = new LongAdder();
    private final LongAdder keyless = new LongAdder();
    private final AtomicLong closedThroughMs = new AtomicLong(Long.MIN_VALUE);
    private final Map<String, TableCounts> tables = new ConcurrentHashMap<>();

    /** Raw, net and vanished counts for one table. */
    public static final class TableCounts {
        private final LongAdder raw = new LongAdder();
        private final LongAdder net = new LongAdder();
        private final LongAdder vanished = new LongAdder();

        public long raw() {
            return raw.sum();
        }

        public long net() {
            return net.sum();
        }

        /** Keys inserted and deleted inside one interval: raw changes that left no net change. */
        public long vanished() {
            return vanished.sum();
        }
    }

    void countRaw(String table, boolean snapshot) {
        rawChanges.increment();
        if (snapshot) {
            snapshotChanges.increment();
        }
        tables.computeIfAbsent(table, t -> new TableCounts()).raw.increment();
    }

    void countNet(String table) {
        netChanges.increment();
        tables.computeIfAbsent(table, t -> new TableCounts()).net.increment();
    }

    void countVanished(String table, int raw) {
        vanished.increment();
        vanishedRaw.add(raw);
        tables.computeIfAbsent(table, t -> new TableCounts()).vanished.increment();
    }

    void countTruncate() {
        truncates.increment();
    }

    void countKeyless() {
        keyless.increment();
    }

    void countOverflowed() {
        overflowed.increment();
    }

    void countHeartbeat() {
        heartbeats.increment();
    }

    void countLate() {
        late.increment();
    }

    void countDeadLetter() {
        deadLetters.increment();
    }

    void closedThrough(long ms) {
        closedThroughMs.accumulateAndGet(ms, Math::max);
    }

    /** Raw change events read. */
    public long rawChanges() {
        return rawChanges.sum();
    }

    /** Snapshot reads among the raw changes. */
    public long snapshotChanges() {
        return snapshotChanges.sum();
    }

    /** Heartbeat events seen (they only move the watermark). */
    public long heartbeats() {
        return heartbeats.sum();
    }

    /** Net changes emitted. */
    public long netChanges() {
        return netChanges.sum();
    }

    /** Keys whose changes in an interval cancelled out (insert then delete). */
    public long vanished() {
        return vanished.sum();
    }

    /** Raw changes of the keys that cancelled out: captured, and rightly never applied. */
    public long vanishedRawChanges() {
        return vanishedRaw.sum();
    }

    /** Changes that arrived after their interval had closed and went to the next open one. */
    /** {@code TRUNCATE}s seen and passed on to the warehouse. */
    public long truncates() {
        return truncates.sum();
    }

    /** Changes of tables without a key, passed on one by one. */
    public long keylessChanges() {
        return keyless.sum();
    }

    public long late() {
        return late.sum();
    }

    /** Records that could not be read and went to the dead-letter topic. */
    public long deadLetters() {
        return deadLetters.sum();
    }

    /**
     * Keys whose open-interval state went to the on-disk overflow store (past {@code
     * state.heap.bytes}).
     */
    public long overflowed() {
        return overflowed.sum();
    }

    /** Highest interval-closing bound reached by any task of this instance. */
    public long closedThroughMs() {
        return closedThroughMs.get();
    }

    /** Per-table counts. */
    public Map<String, TableCounts> tables() {
        return Map.copyOf(tables);
    }
}
