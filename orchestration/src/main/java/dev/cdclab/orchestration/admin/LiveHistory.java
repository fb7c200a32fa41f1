package dev.cdclab.orchestration.admin;

import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.sink.SinkStats;
import dev.cdclab.sink.latency.LatencyRecorder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The live page's data: once a second, the latency of the changes applied in that second (p50, p99,
 * and p50 per stage), the source's and the warehouse's changes per second, and the backlog; the
 * last ten minutes are kept.
 */
final class LiveHistory implements AutoCloseable {
    static final int KEPT_SECONDS = 600;

    private final Pipeline pipeline;
    private final ScheduledExecutorService timer;
    private final ArrayDeque<Map<String, Object>> points = new ArrayDeque<>();
    private Histogram lastEndToEnd;
    private Map<LatencyRecorder.Stage, Histogram> lastStages;
    private long lastCaptured = -1;
    private long lastApplied = -1;
    private long lastAtMs;

    private LiveHistory(Pipeline pipeline) {
        this.pipeline = pipeline;
        this.timer =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread t = new Thread(r, "live-history");
                            t.setDaemon(true);
                            return t;
                        });
    }

    /** Samples {@code pipeline} every second from now on. */
    static LiveHistory start(Pipeline pipeline) {
        LiveHistory h = new LiveHistory(pipeline);
        h.timer.scheduleAtFixedRate(h::sample, 0, 1, TimeUnit.SECONDS);
        return h;
    }

    /** Takes one sample (the timer's task). */
    synchronized void sample() {
        if (pipeline.streams() == null || pipeline.sink() == null) {
            return;
        }
        long now = System.currentTimeMillis();
        LatencyRecorder latency = pipeline.sink().latency();
        Histogram e2e = latency.endToEnd();
        Map<LatencyRecorder.Stage, Histogram> stages = latency.stages();
        Histogram second = since(e2e, lastEndToEnd);
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("t", now / 1000.0);
        p.put("p50_ms", percentile(second, 50));
        p.put("p99_ms", percentile(second, 99));
        Map<String, Object> split = new LinkedHashMap<>();
        for (LatencyRecorder.Stage s : LatencyRecorder.Stage.values()) {
            Histogram h = since(stages.get(s), lastStages == null ? null : lastStages.get(s));
            split.put(s.tag(), percentile(h, 50));
        }
        p.put("stage_p50_ms", split);
        SinkStats ss = pipeline.sink().stats();
        long captured = pipeline.streams().stats().rawChanges();
        long applied = ss.rawChanges();
        double secs = (now - lastAtMs) / 1000.0;
        p.put("captured_per_s", lastCaptured < 0 ? null : (captured - lastCaptured) / secs);
        p.put("applied_per_s", lastApplied < 0 ? null : (applied - lastApplied) / secs);
        long through = ss.appliedThroughMs();
        p.put("backlog_s", through == Long.MIN_VALUE ? null : Math.max(0, now - through) / 1000.0);
        p.put("held", ss.held());
        points.addLast(p);
        while (points.size() > KEPT_SECONDS) {
            points.removeFirst();
        }
        lastEndToEnd = e2e;
        lastStages = stages;
        lastCaptured = captured;
        lastApplied = applied;
        lastAtMs = now;
    }

    /** What {@code now} recorded beyond {@code before} (all of it after a reset). */
    private static Histogram since(Histogram now, Histogram before) {
        if (before == null || before.getTotalCount() > now.getTotalCount()) {
            return now;
        }
        Histogram d = now.copy();
        try {
            d.subtract(before);
            return d;
        } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
            // reset and refilled since the last sample
            return now;
        }
    }

    private static Long percentile(Histogram h, double p) {
        return h.getTotalCount() == 0 ? null : h.getValueAtPercentile(p);
    }

    /** The page's data: the kept points, per-table counts and totals. */
    synchronized Map<String, Object> snapshot() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("run", pipeline.runId());
        m.put("points", new ArrayList<>(points));
        if (pipeline.streams() == null || pipeline.sink() == null) {
            m.put("stages_outside", pipeline.spec().without());
            return m;
        }
        var ns = pipeline.streams().stats();
        var ss = pipeline.sink().stats();
        Map<String, Map<String, Object>> tables = new TreeMap<>();
        ns.tables()
                .forEach(
                        (t, c) -> {
                            Map<String, Object> row = row(tables, t);
                            row.put("captured", c.raw());
                            row.put("keys_cancelled", c.vanished());
                        });
        ss.tables()
                .forEach(
                        (t, c) -> {
                            Map<String, Object> row = row(tables, t);
                            row.put("applied", c.raw());
                            row.put("net_applied", c.net());
                        });
        List<Map<String, Object>> rows = new ArrayList<>();
        tables.forEach(
                (t, row) -> {
                    Map<String, Object> r = new LinkedHashMap<>();
                    r.put("table", t);
                    for (String k : List.of("captured", "applied", "net_applied")) {
                        r.put(k, row.getOrDefault(k, 0L));
                    }
                    r.put("keys_cancelled", row.getOrDefault("keys_cancelled", 0L));
                    rows.add(r);
                });
        m.put("tables", rows);
        Map<String, Object> totals = new LinkedHashMap<>();
        totals.put("captured", ns.rawChanges());
        totals.put("applied", ss.rawChanges());
        totals.put("net_applied", ss.netChanges());
        totals.put("warehouse_transactions", ss.batches());
        totals.put("held", ss.held());
        totals.put("late", ns.late());
        totals.put("dead_letters", ns.deadLetters() + ss.deadLettered());
        totals.put("open_interval_keys", ns.openKeys());
        m.put("totals", totals);
        Histogram e2e = pipeline.sink().latency().endToEnd();
        Map<String, Object> overall = new LinkedHashMap<>();
        overall.put("p50_ms", percentile(e2e, 50));
        overall.put("p99_ms", percentile(e2e, 99));
        overall.put("count", e2e.getTotalCount());
        m.put("latency", overall);
        return m;
    }

    private static Map<String, Object> row(Map<String, Map<String, Object>> tables, String t) {
        return tables.computeIfAbsent(t, k -> new LinkedHashMap<>());
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
