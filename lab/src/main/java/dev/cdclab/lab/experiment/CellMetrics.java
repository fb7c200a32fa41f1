package dev.cdclab.lab.experiment;

import dev.cdclab.format.Numbers;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The white paper's measures of one cell, as {@code summary.json} and {@code results.csv} have
 * them. Latency is source commit → warehouse commit; NaN marks a measure a cell cannot have (no
 * capture, no second above 5 s).
 *
 * @param transactions workload transactions committed in the measured phase
 * @param txPerSecond workload transactions per second
 * @param txP99Ms 99th percentile of the workload's own transaction latency
 * @param sourceChanges rows the workload changed
 * @param rawChanges change events the pipeline captured
 * @param netChanges net changes applied to the warehouse
 * @param cdcCommandsPerSecond captured changes per second over load and catch-up
 * @param cdcCommandsPerSecondOver5s changes applied per second over the seconds whose p99 latency
 *     was above 5 s (the paper's "CDC throughput" while it lagged)
 * @param secondsOver5s how many seconds had a p99 latency above 5 s
 * @param latencyP50Ms median latency
 * @param latencyP95Ms 95th percentile latency
 * @param latencyP99Ms 99th percentile latency
 * @param latencyMaxMs maximum latency
 * @param catchUpSeconds from the end of the load until the warehouse had every change
 * @param walWrittenBytes WAL the source wrote during load and catch-up
 * @param walRetainedPeakBytes most WAL the replication slot held back
 * @param cpuSeconds CPU seconds of every process on the machine during load and catch-up
 * @param cpuJvmSeconds of them, this JVM (Kafka, Connect, Streams, sink, load generator)
 * @param cpuPostgresSeconds of them, PostgreSQL's processes
 * @param heapPeakMb most heap in use in this JVM
 * @param rssPeakMb most resident memory of this JVM
 * @param snapshotSeconds how long Debezium's initial snapshot ran
 * @param txPerSecondDuringSnapshot workload tx/s while the snapshot ran ({@code
 *     workload.during-snapshot}), NaN otherwise
 * @param verified the warehouse equals the source (false when not caught up or capture off)
 * @param caughtUp the warehouse caught up within phases.drain
 * @param captured false for a cell with capture off: its capture measures are absent
 */
public record CellMetrics(
        long transactions,
        double txPerSecond,
        double txP99Ms,
        long sourceChanges,
        long rawChanges,
        long netChanges,
        double cdcCommandsPerSecond,
        double cdcCommandsPerSecondOver5s,
        long secondsOver5s,
        double latencyP50Ms,
        double latencyP95Ms,
        double latencyP99Ms,
        double latencyMaxMs,
        double catchUpSeconds,
        long walWrittenBytes,
        long walRetainedPeakBytes,
        double cpuSeconds,
        double cpuJvmSeconds,
        double cpuPostgresSeconds,
        double heapPeakMb,
        double rssPeakMb,
        double snapshotSeconds,
        double txPerSecondDuringSnapshot,
        boolean verified,
        boolean caughtUp,
        boolean captured) {

    /** Metric names (CSV columns, JSON keys, {@code conclusions[].metric}) and their meaning. */
    public static final Map<String, String> NAMES = new LinkedHashMap<>();

    static {
        NAMES.put("transactions", "workload transactions committed in the measured phase");
        NAMES.put("tx_per_s", "workload transactions per second");
        NAMES.put("tx_p99_ms", "99th percentile of the workload's transaction latency, ms");
        NAMES.put("source_changes", "rows the workload changed");
        NAMES.put("raw_changes", "change events captured");
        NAMES.put("net_changes", "net changes applied to the warehouse");
        NAMES.put("cdc_cmds_per_s", "captured changes per second over load and catch-up");
        NAMES.put(
                "cdc_cmds_per_s_over_5s",
                "changes applied per second over the seconds whose p99 latency was above 5 s");
        NAMES.put("seconds_over_5s", "seconds whose p99 latency was above 5 s");
        NAMES.put("latency_p50_ms", "median source commit -> warehouse commit latency, ms");
        NAMES.put("latency_p95_ms", "95th percentile latency, ms");
        NAMES.put("latency_p99_ms", "99th percentile latency, ms");
        NAMES.put("latency_max_ms", "maximum latency, ms");
        NAMES.put(
                "catch_up_s",
                "seconds from the end of the load until the warehouse had every change");
        NAMES.put("wal_written_bytes", "WAL the source wrote during load and catch-up");
        NAMES.put("wal_retained_peak_bytes", "most WAL the replication slot held back");
        NAMES.put("cpu_s", "CPU seconds of every process on the machine during load and catch-up");
        NAMES.put(
                "cpu_jvm_s",
                "CPU seconds of the cdc-lab JVM (Kafka, Connect, Streams, sink, load)");
        NAMES.put("cpu_postgres_s", "CPU seconds of PostgreSQL's processes");
        NAMES.put("heap_peak_mb", "most heap in use in the cdc-lab JVM, MiB");
        NAMES.put("rss_peak_mb", "most resident memory of the cdc-lab JVM, MiB");
        NAMES.put(
                "snapshot_s",
                "seconds the initial snapshot ran (cdc-lab's load at the slot's snapshot, or"
                        + " Debezium's)");
        NAMES.put(
                "tx_per_s_during_snapshot",
                "workload tx/s while the initial snapshot ran (workload.during-snapshot)");
        NAMES.put("verified", "1 when the warehouse equals the source");
        NAMES.put("caught_up", "1 when the warehouse caught up within phases.drain");
    }

    static final double OVER_MS = 5_000;

    /** Derives the measures from a run. */
    static CellMetrics of(
            PhaseEngine.Measurement m,
            boolean captureEnabled,
            double snapshotSeconds,
            double txPerSecondDuringSnapshot) {
        double secs = Math.max(m.loadSeconds(), 1e-9);
        var load = m.load();
        long over = 0;
        long appliedOver = 0;
        for (SecondSample s : m.samples()) {
            if (!Double.isNaN(s.p99Ms()) && s.p99Ms() > OVER_MS) {
                over++;
                appliedOver += s.appliedPerSecond();
            }
        }
        double p50 = Double.NaN;
        double p95 = Double.NaN;
        double p99 = Double.NaN;
        double max = Double.NaN;
        if (captureEnabled && m.latency() != null && m.latency().getTotalCount() > 0) {
            p50 = m.latency().getValueAtPercentile(50);
            p95 = m.latency().getValueAtPercentile(95);
            p99 = m.latency().getValueAtPercentile(99);
            max = m.latency().getMaxValue();
        }
        return new CellMetrics(
                load.transactions(),
                load.transactions() / secs,
                load.latency().getValueAtPercentile(99) / 1000.0,
                load.sourceChanges(),
                m.capturedChanges(),
                m.netApplied(),
                captureEnabled ? m.capturedChanges() / (secs + m.catchUpSeconds()) : Double.NaN,
                over == 0 ? Double.NaN : (double) appliedOver / over,
                over,
                p50,
                p95,
                p99,
                max,
                captureEnabled ? m.catchUpSeconds() : Double.NaN,
                m.walWrittenBytes(),
                m.walRetainedPeakBytes(),
                m.cpu().machineSeconds(),
                m.cpu().jvmSeconds(),
                m.cpu().postgresSeconds(),
                m.heapPeakBytes() / 1048576.0,
                m.rssPeakBytes() / 1048576.0,
                snapshotSeconds,
                txPerSecondDuringSnapshot,
                m.verification() != null && m.verification().matches(),
                m.caughtUp(),
                captureEnabled);
    }

    /** The measures by name, in {@link #NAMES} order; NaN becomes null. */
    public Map<String, Object> asMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("transactions", transactions);
        m.put("tx_per_s", round(txPerSecond));
        m.put("tx_p99_ms", round(txP99Ms));
        m.put("source_changes", sourceChanges);
        m.put("raw_changes", captured ? rawChanges : null);
        m.put("net_changes", captured ? netChanges : null);
        m.put("cdc_cmds_per_s", round(cdcCommandsPerSecond));
        m.put("cdc_cmds_per_s_over_5s", round(cdcCommandsPerSecondOver5s));
        m.put("seconds_over_5s", captured ? secondsOver5s : null);
        m.put("latency_p50_ms", round(latencyP50Ms));
        m.put("latency_p95_ms", round(latencyP95Ms));
        m.put("latency_p99_ms", round(latencyP99Ms));
        m.put("latency_max_ms", round(latencyMaxMs));
        m.put("catch_up_s", round(catchUpSeconds));
        m.put("wal_written_bytes", walWrittenBytes < 0 ? null : walWrittenBytes);
        m.put("wal_retained_peak_bytes", walRetainedPeakBytes < 0 ? null : walRetainedPeakBytes);
        m.put("cpu_s", round(cpuSeconds));
        m.put("cpu_jvm_s", round(cpuJvmSeconds));
        m.put("cpu_postgres_s", round(cpuPostgresSeconds));
        m.put("heap_peak_mb", round(heapPeakMb));
        m.put("rss_peak_mb", round(rssPeakMb));
        m.put("snapshot_s", round(snapshotSeconds));
        m.put("tx_per_s_during_snapshot", round(txPerSecondDuringSnapshot));
        m.put("verified", captured ? verified : null);
        m.put("caught_up", captured ? caughtUp : null);
        return m;
    }

    /** One measure as a number (booleans as 1/0), NaN when the cell has none. */
    static double value(Map<String, Object> metrics, String name) {
        Object v = metrics.get(name);
        if (v instanceof Boolean b) {
            return b ? 1 : 0;
        }
        return v instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    private static Double round(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? null : Numbers.round3(v);
    }

    static List<String> columns() {
        return List.copyOf(NAMES.keySet());
    }
}
