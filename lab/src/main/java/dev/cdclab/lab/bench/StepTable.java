package dev.cdclab.lab.bench;

import dev.cdclab.config.Durations;
import dev.cdclab.format.Numbers;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** Steps of a {@link RateLadder} as table rows for people and as maps for JSON. */
public final class StepTable {
    private StepTable() {}

    public static String header() {
        return "   target tx/s |  achieved tx/s |  changes/s |   p50 ms |   p95 ms |   p99 ms |"
                + "   max ms | catch-up s | CPU cores | sustained";
    }

    public static String row(RateLadder.Step s) {
        Histogram lat = s.latency();
        return String.format(
                Locale.ROOT,
                "%14s | %14s | %10s | %8d | %8d | %8d | %8d | %10s | %9s | %s",
                (s.fixed() ? "fixed " : "") + Numbers.rate(s.target()),
                Numbers.rate(s.txPerSecond()),
                Numbers.rate(s.changesPerSecond()),
                lat.getValueAtPercentile(50),
                lat.getValueAtPercentile(95),
                lat.getValueAtPercentile(99),
                lat.getMaxValue(),
                Double.isInfinite(s.catchUpSeconds())
                        ? "timed out"
                        : Numbers.fixed2(s.catchUpSeconds()),
                Numbers.fixed2(s.machineCores()),
                verdict(s));
    }

    /** "yes", "no", or "source-limited" (kept up with a source that fell short of the rate). */
    public static String verdict(RateLadder.Step s) {
        return s.sustained() ? "yes" : s.sourceLimited() ? "source-limited" : "no";
    }

    public static Map<String, Object> toMap(RateLadder.Step s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("target_tx_per_s", s.target());
        m.put("tx_per_s", Numbers.round3(s.txPerSecond()));
        m.put("changes_per_s", Numbers.round3(s.changesPerSecond()));
        m.put("latency_ms", Numbers.percentiles(s.latency(), 1));
        if (s.pipelineLatency() != null && s.pipelineLatency() != s.latency()) {
            m.put("pipeline_recorded_latency_ms", Numbers.percentiles(s.pipelineLatency(), 1));
        }
        m.put("catch_up_s", Double.isInfinite(s.catchUpSeconds()) ? null : s.catchUpSeconds());
        m.put("sustained", s.sustained());
        m.put("source_limited", s.sourceLimited());
        m.put("cpu_s_machine", Numbers.round3(s.cpu().machineSeconds()));
        m.put("cpu_s_jvm", Numbers.round3(s.cpu().jvmSeconds()));
        m.put("cpu_s_postgres", Numbers.round3(s.cpu().postgresSeconds()));
        m.put("cpu_s_ended_processes", Numbers.round3(s.cpu().endedSeconds()));
        m.put("machine_cores_busy", Numbers.round3(s.machineCores()));
        m.put("cpu_s_per_million_changes_machine", Numbers.round3(s.machineCpuPerMillion()));
        m.put("cpu_s_per_million_changes_jvm", Numbers.round3(s.jvmCpuPerMillion()));
        m.put("cpu_s_per_million_changes_postgres", Numbers.round3(s.postgresCpuPerMillion()));
        m.put("cpu_s_per_million_changes_ended_processes", Numbers.round3(s.endedCpuPerMillion()));
        if (s.rowsWritten() >= 0) {
            m.put("warehouse_rows_written", s.rowsWritten());
        }
        return m;
    }

    public static Map<String, Object> toMap(RateLadder.Result r) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (r.fixed() != null) {
            m.put("fixed", toMap(r.fixed()));
        }
        List<Map<String, Object>> steps = new ArrayList<>();
        r.steps().forEach(s -> steps.add(toMap(s)));
        m.put("steps", steps);
        m.put(
                "sustained_changes_per_s",
                r.best().map(b -> Numbers.round3(b.changesPerSecond())).orElse(null));
        m.put("sustained_source_limited", r.best().isPresent() ? r.lowerBound() : null);
        return m;
    }

    /** Prints the warm-up and each step as a row under one header, as the ladder goes. */
    public static RateLadder.Listener printer(PrintStream out) {
        return new RateLadder.Listener() {
            private boolean headed;

            @Override
            public void warmup(Duration length, double rate) {
                out.printf(
                        Locale.ROOT,
                        "warm-up: %s at %s tx/s%n",
                        Durations.format(length),
                        Numbers.rate(rate));
            }

            @Override
            public void noCheckpoint(String why) {
                out.println("steps run without a checkpoint before each: " + why);
            }

            @Override
            public void step(RateLadder.Step s) {
                if (!headed) {
                    out.println(header());
                    headed = true;
                }
                out.println(row(s));
            }
        };
    }
}
