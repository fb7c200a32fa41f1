package dev.cdclab.load.run;

import dev.cdclab.load.workload.Op;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Live counters of a load run: transactions, row changes per operation, latency measured from each
 * transaction's intended start (so stalls are not hidden by coordinated omission), and a per-second
 * series.
 */
public final class LoadStats {
    private static final long MAX_US = 3_600_000_000L;

    private final LongAdder transactions = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder retries = new LongAdder();
    private final Map<Op, LongAdder> rows = new EnumMap<>(Op.class);
    private final LongAdder triggered = new LongAdder();
    private final Histogram latencyUs = new ConcurrentHistogram(MAX_US, 3);
    private final Recorder recentUs = new Recorder(MAX_US, 3);
    private final Map<Long, LongAdder> txPerSecond = new ConcurrentHashMap<>();
    private final Map<Long, LongAdder> changesPerSecond = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> byType = new ConcurrentHashMap<>();

    public LoadStats() {
        for (Op op : Op.values()) {
            rows.put(op, new LongAdder());
        }
    }

    void transaction(String type, long latencyUs, long second, long changes) {
        transactions.increment();
        byType.computeIfAbsent(type, t -> new LongAdder()).increment();
        long v = Math.max(0, Math.min(latencyUs, MAX_US));
        latencyUs().recordValue(v);
        recentUs.recordValue(v);
        txPerSecond.computeIfAbsent(second, s -> new LongAdder()).increment();
        changesPerSecond.computeIfAbsent(second, s -> new LongAdder()).add(changes);
    }

    private Histogram latencyUs() {
        return latencyUs;
    }

    void rows(Op op, long n) {
        rows.get(op).add(n);
    }

    void triggeredChanges(long n) {
        triggered.add(n);
    }

    void error() {
        errors.increment();
    }

    void retry() {
        retries.increment();
    }

    /** Attempts repeated after a deadlock or serialization failure. */
    public long retries() {
        return retries.sum();
    }

    public long transactions() {
        return transactions.sum();
    }

    public long errors() {
        return errors.sum();
    }

    /** Rows affected per operation, as the database reported them. */
    public Map<Op, Long> rows() {
        Map<Op, Long> out = new EnumMap<>(Op.class);
        rows.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    /** Row changes a trigger made on top of the statements' own. */
    public long triggeredChanges() {
        return triggered.sum();
    }

    /** Row changes at the source: inserted, updated and deleted rows plus trigger changes. */
    public long sourceChanges() {
        return rows.get(Op.INSERT).sum()
                + rows.get(Op.UPDATE).sum()
                + rows.get(Op.DELETE).sum()
                + triggered.sum();
    }

    /** Transaction latency from intended start to commit, microseconds. */
    public Histogram latency() {
        return latencyUs.copy();
    }

    /** Latencies recorded since the previous call (single reader). */
    public Histogram latencySinceLastCall() {
        return recentUs.getIntervalHistogram();
    }

    /** Transactions completed in each second of the run. */
    public Map<Long, Long> transactionsPerSecond() {
        Map<Long, Long> out = new java.util.TreeMap<>();
        txPerSecond.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    /** Row changes in each second of the run. */
    public Map<Long, Long> changesPerSecond() {
        Map<Long, Long> out = new java.util.TreeMap<>();
        changesPerSecond.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    /** Transactions per plan type. */
    public Map<String, Long> transactionsByType() {
        Map<String, Long> out = new java.util.TreeMap<>();
        byType.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }
}
