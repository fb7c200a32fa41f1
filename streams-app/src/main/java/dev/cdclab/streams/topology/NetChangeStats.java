package dev.cdclab.streams.topology;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of one Streams app instance, readable from any thread, and bound as meters to a {@link
 * MeterRegistry} on request (read at scrape time: counting costs nothing more).
 */
public final class NetChangeStats implements MeterBinder {
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
    private final LongAdder heldWindows = new LongAdder();
    private final AtomicLong closedThroughMs = new AtomicLong(Long.MIN_VALUE);
    private final Map<String, TableCounts> tables = new ConcurrentHashMap<>();
    private final Map<Integer, AtomicLong> openKeys = new ConcurrentHashMap<>();
    private volatile MeterRegistry registry;

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
        table(table).raw.increment();
    }

    void countNet(String table) {
        netChanges.increment();
        table(table).net.increment();
    }

    private TableCounts table(String table) {
        TableCounts counts = tables.get(table);
        return counts != null ? counts : tables.computeIfAbsent(table, this::newTable);
    }

    private TableCounts newTable(String table) {
        TableCounts counts = new TableCounts();
        MeterRegistry r = registry;
        if (r != null) {
            bindTable(r, table, counts);
        }
        return counts;
    }

    /** The count of keys in the open intervals of one task (its partition), for it to set. */
    AtomicLong openKeysOf(int task) {
        return openKeys.computeIfAbsent(task, t -> new AtomicLong());
    }

    /** The task left this instance. */
    void forgetTask(int task) {
        openKeys.remove(task);
    }

    /** Keys in open intervals, over this instance's tasks. */
    public long openKeys() {
        return openKeys.values().stream().mapToLong(AtomicLong::get).sum();
    }

    /** Binds the counters as {@code cdclab_*} meters; tables seen later are bound when seen. */
    @Override
    public void bindTo(MeterRegistry r) {
        FunctionCounter.builder("cdclab.late.changes", late, LongAdder::sum)
                .description("Changes that arrived after their interval had closed")
                .register(r);
        FunctionCounter.builder("cdclab.dead.letters", deadLetters, LongAdder::sum)
                .description("Records sent to a dead-letter topic")
                .tags("stage", "streams", "reason", "unreadable")
                .register(r);
        FunctionCounter.builder("cdclab.heartbeats", heartbeats, LongAdder::sum)
                .description("Heartbeats read: the source is known to be past their time")
                .register(r);
        FunctionCounter.builder("cdclab.windows.folded.behind", heldWindows, LongAdder::sum)
                .description("Windows that folded several transactions while the app was behind")
                .register(r);
        FunctionCounter.builder("cdclab.truncates", truncates, LongAdder::sum)
                .description("TRUNCATE events read")
                .register(r);
        FunctionCounter.builder("cdclab.open.interval.overflowed.keys", overflowed, LongAdder::sum)
                .description("Keys whose open-interval state went to the on-disk store")
                .register(r);
        Gauge.builder("cdclab.open.interval.keys", this, NetChangeStats::openKeys)
                .description("Keys folded in intervals not closed yet")
                .register(r);
        Gauge.builder(
                        "cdclab.intervals.closed.through",
                        closedThroughMs,
                        v -> v.get() == Long.MIN_VALUE ? Double.NaN : v.get() / 1000.0)
                .description("Source commit time through which intervals are closed (Unix time)")
                .baseUnit("timestamp_seconds")
                .register(r);
        registry = r;
        tables.forEach((table, counts) -> bindTable(r, table, counts));
    }

    private static void bindTable(MeterRegistry r, String table, TableCounts counts) {
        FunctionCounter.builder("cdclab.changes.captured", counts.raw, LongAdder::sum)
                .description("Raw change events read from the capture topic")
                .tag("table", table)
                .register(r);
        FunctionCounter.builder("cdclab.net.changes.emitted", counts.net, LongAdder::sum)
                .description("Net changes emitted by closed intervals")
                .tag("table", table)
                .register(r);
        FunctionCounter.builder("cdclab.keys.cancelled", counts.vanished, LongAdder::sum)
                .description("Keys inserted and deleted inside one interval: no net change")
                .tag("table", table)
                .register(r);
    }

    void countVanished(String table, int raw) {
        vanished.increment();
        vanishedRaw.add(raw);
        table(table).vanished.increment();
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

    void countHeldWindow() {
        heldWindows.increment();
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

    /** Windows that folded several transactions because the app was behind. */
    public long heldWindows() {
        return heldWindows.sum();
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
