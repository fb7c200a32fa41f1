package dev.cdclab.sink;

import dev.cdclab.sink.latency.LatencyRecorder;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of one sink instance, readable from any thread, and bound as meters to a {@link
 * MeterRegistry} on request.
 */
public final class SinkStats implements MeterBinder {
    private final LongAdder netChanges = new LongAdder();
    private final LongAdder rawChanges = new LongAdder();
    private final LongAdder rowsWritten = new LongAdder();
    private final LongAdder batches = new LongAdder();
    private final LongAdder malformed = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final AtomicLong appliedThroughMs = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong held = new AtomicLong();
    private final AtomicLong tablesEmptied = new AtomicLong();
    private final AtomicLong keylessUnmatched = new AtomicLong();
    private final Map<String, Table> tables = new ConcurrentHashMap<>();
    private final org.HdrHistogram.Histogram applyMs =
            new org.HdrHistogram.ConcurrentHistogram(3_600_000L, 3);
    private volatile MeterRegistry registry;
    private volatile Timer transactions;

    /** Per-table counts. */
    public static final class Table {
        private final LongAdder net = new LongAdder();
        private final LongAdder raw = new LongAdder();

        /** Net changes applied. */
        public long net() {
            return net.sum();
        }

        /** Raw source changes those net changes folded. */
        public long raw() {
            return raw.sum();
        }
    }

    void applied(String table, int raw) {
        netChanges.increment();
        rawChanges.add(raw);
        Table t = table(table);
        t.net.increment();
        t.raw.add(raw);
    }

    void applied(String table, long net, long raw) {
        netChanges.add(net);
        rawChanges.add(raw);
        Table t = table(table);
        t.net.add(net);
        t.raw.add(raw);
    }

    void batch(long rows, long appliedThrough) {
        batches.increment();
        rowsWritten.add(rows);
        appliedThroughMs.accumulateAndGet(appliedThrough, Math::max);
    }

    void applyTook(long ms) {
        applyMs.recordValue(Math.max(0, Math.min(ms, 3_600_000L)));
        Timer t = transactions;
        if (t != null) {
            t.record(Math.max(0, ms), TimeUnit.MILLISECONDS);
        }
    }

    private Table table(String table) {
        Table t = tables.get(table);
        return t != null ? t : tables.computeIfAbsent(table, this::newTable);
    }

    private Table newTable(String table) {
        Table t = new Table();
        MeterRegistry r = registry;
        if (r != null) {
            bindTable(r, table, t);
        }
        return t;
    }

    /**
     * Binds the counters as {@code cdclab_*} meters, with the warehouse transaction time as a
     * histogram; tables seen later are bound when seen.
     */
    @Override
    public void bindTo(MeterRegistry r) {
        transactions =
                LatencyRecorder.timer("cdclab.warehouse.transaction")
                        .description("Time to stage, merge and commit one warehouse transaction")
                        .register(r);
        FunctionCounter.builder("cdclab.warehouse.transactions", batches, LongAdder::sum)
                .description("Warehouse transactions committed")
                .register(r);
        FunctionCounter.builder("cdclab.warehouse.rows.written", rowsWritten, LongAdder::sum)
                .description("Warehouse rows inserted, updated or deleted")
                .register(r);
        FunctionCounter.builder("cdclab.dead.letters", malformed, LongAdder::sum)
                .description("Records sent to a dead-letter topic")
                .tags("stage", "sink", "reason", "unreadable")
                .register(r);
        FunctionCounter.builder("cdclab.dead.letters", refused, LongAdder::sum)
                .description("Records sent to a dead-letter topic")
                .tags("stage", "sink", "reason", "refused_by_warehouse")
                .register(r);
        Gauge.builder("cdclab.sink.held.changes", held, AtomicLong::get)
                .description("Net changes read, waiting for their interval to close everywhere")
                .register(r);
        Gauge.builder("cdclab.sink.applied.through", appliedThroughMs, SinkStats::seconds)
                .description("Source commit time through which the warehouse is complete")
                .baseUnit("timestamp_seconds")
                .register(r);
        Gauge.builder("cdclab.sink.backlog", appliedThroughMs, SinkStats::behind)
                .description("Wall clock minus the source commit time the warehouse is complete to")
                .baseUnit("seconds")
                .register(r);
        registry = r;
        tables.forEach((table, t) -> bindTable(r, table, t));
    }

    private static double seconds(AtomicLong ms) {
        long v = ms.get();
        return v == Long.MIN_VALUE ? Double.NaN : v / 1000.0;
    }

    private static double behind(AtomicLong ms) {
        long v = ms.get();
        return v == Long.MIN_VALUE
                ? Double.NaN
                : Math.max(0, System.currentTimeMillis() - v) / 1000.0;
    }

    private static void bindTable(MeterRegistry r, String table, Table t) {
        FunctionCounter.builder("cdclab.net.changes.applied", t.net, LongAdder::sum)
                .description("Net changes applied to the warehouse")
                .tag("table", table)
                .register(r);
        FunctionCounter.builder("cdclab.changes.applied", t.raw, LongAdder::sum)
                .description("Raw source changes the applied net changes folded")
                .tag("table", table)
                .register(r);
    }

    /** Forgets the batch timings so far (after a warm-up). */
    public void resetApplyTimes() {
        applyMs.reset();
    }

    /** Time to apply one batch in the warehouse (stage, merge, commit), milliseconds. */
    public org.HdrHistogram.Histogram applyMillis() {
        return applyMs.copy();
    }

    void advance(long appliedThrough) {
        appliedThroughMs.accumulateAndGet(appliedThrough, Math::max);
    }

    void countMalformed() {
        malformed.increment();
    }

    void countRefused() {
        refused.increment();
    }

    void setHeld(long n) {
        held.set(n);
    }

    void tableEvents(long emptied, long unmatched) {
        tablesEmptied.set(emptied);
        keylessUnmatched.set(unmatched);
    }

    /** Tables emptied by a {@code TRUNCATE} (or a keyless table's snapshot). */
    public long tablesEmptied() {
        return tablesEmptied.get();
    }

    /** Changes of tables without a key that found no row equal to their old image. */
    public long keylessUnmatched() {
        return keylessUnmatched.get();
    }

    /** Net changes applied. */
    public long netChanges() {
        return netChanges.sum();
    }

    /** Raw changes folded into the applied net changes. */
    public long rawChanges() {
        return rawChanges.sum();
    }

    /** Warehouse rows inserted, updated or deleted. */
    public long rowsWritten() {
        return rowsWritten.sum();
    }

    /** Warehouse transactions committed. */
    public long batches() {
        return batches.sum();
    }

    /** Records of the net-changes topic that could not be read. */
    public long malformed() {
        return malformed.sum();
    }

    /** Net changes the warehouse refused (a value it cannot hold), dead-lettered. */
    public long refused() {
        return refused.sum();
    }

    /** Everything the sink sent to its dead-letter topic: unreadable records and refused rows. */
    public long deadLettered() {
        return malformed.sum() + refused.sum();
    }

    /**
     * Source commit time through which the warehouse is complete: every transaction committed
     * before it is applied. {@link Long#MIN_VALUE} until the first interval is applied.
     */
    public long appliedThroughMs() {
        return appliedThroughMs.get();
    }

    /** Net changes read but waiting for their interval to close on every partition. */
    public long held() {
        return held.get();
    }

    public Map<String, Table> tables() {
        return Map.copyOf(tables);
    }
}
