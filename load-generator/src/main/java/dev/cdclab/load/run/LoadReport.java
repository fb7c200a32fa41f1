package dev.cdclab.load.run;

import dev.cdclab.format.JsonText;
import dev.cdclab.load.workload.Op;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** The load generator's result: a short table for people, JSON for machines. */
public final class LoadReport {
    private final String workload;
    private final Map<String, Object> settings;
    private final LoadStats stats;
    private final double seconds;

    public LoadReport(
            String workload, Map<String, Object> settings, LoadStats stats, double seconds) {
        this.workload = workload;
        this.settings = settings;
        this.stats = stats;
        this.seconds = seconds;
    }

    public double txPerSecond() {
        return stats.transactions() / seconds;
    }

    public double changesPerSecond() {
        return stats.sourceChanges() / seconds;
    }

    /** Everything as a JSON-ready map. */
    public Map<String, Object> asMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("workload", workload);
        m.put("settings", settings);
        m.put("duration_s", round(seconds));
        m.put("transactions", stats.transactions());
        m.put("tx_per_s", round(txPerSecond()));
        m.put("row_changes", stats.sourceChanges());
        m.put("changes_per_s", round(changesPerSecond()));
        m.put("errors", stats.errors());
        m.put("retries_after_deadlock", stats.retries());
        Map<String, Object> rows = new LinkedHashMap<>();
        stats.rows().forEach((op, n) -> rows.put(op.name().toLowerCase(Locale.ROOT), n));
        rows.put("by_trigger", stats.triggeredChanges());
        m.put("rows", rows);
        m.put("transactions_by_type", stats.transactionsByType());
        Histogram h = stats.latency();
        Map<String, Object> lat = new LinkedHashMap<>();
        lat.put("p50", round(h.getValueAtPercentile(50) / 1000.0));
        lat.put("p99", round(h.getValueAtPercentile(99) / 1000.0));
        lat.put("max", round(h.getMaxValue() / 1000.0));
        m.put("tx_latency_ms", lat);
        m.put("tx_per_second_series", stats.transactionsPerSecond().values());
        m.put("changes_per_second_series", stats.changesPerSecond().values());
        return m;
    }

    public String toJson() {
        return JsonText.of(asMap());
    }

    public String toText() {
        Histogram h = stats.latency();
        Map<Op, Long> rows = stats.rows();
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "workload        %s%n", workload));
        b.append(String.format(Locale.ROOT, "duration        %.2f s%n", seconds));
        b.append(
                String.format(
                        Locale.ROOT,
                        "transactions    %,d  (%,.1f tx/s), %,d errors, %,d retried after"
                                + " deadlocks%n",
                        stats.transactions(),
                        txPerSecond(),
                        stats.errors(),
                        stats.retries()));
        b.append(
                String.format(
                        Locale.ROOT,
                        "row changes     %,d  (%,.1f changes/s)%n",
                        stats.sourceChanges(),
                        changesPerSecond()));
        b.append(
                String.format(
                        Locale.ROOT,
                        "rows            insert %,d  update %,d  delete %,d  by trigger %,d  select"
                                + " %,d%n",
                        rows.get(Op.INSERT),
                        rows.get(Op.UPDATE),
                        rows.get(Op.DELETE),
                        stats.triggeredChanges(),
                        rows.get(Op.SELECT)));
        StringBuilder series = new StringBuilder();
        var perSecond = new java.util.ArrayList<>(stats.transactionsPerSecond().values());
        for (int i = 0; i < perSecond.size(); i += 5) {
            long sum = 0;
            int n = 0;
            for (int j = i; j < Math.min(perSecond.size(), i + 5); j++) {
                sum += perSecond.get(j);
                n++;
            }
            series.append(series.length() == 0 ? "" : " ").append(sum / n);
        }
        b.append(String.format(Locale.ROOT, "tx/s per 5 s   %s%n", series));
        b.append(
                String.format(
                        Locale.ROOT,
                        "tx latency      p50 %.2f ms  p99 %.2f ms  max %.2f ms (from intended"
                                + " start)%n",
                        h.getValueAtPercentile(50) / 1000.0,
                        h.getValueAtPercentile(99) / 1000.0,
                        h.getMaxValue() / 1000.0));
        return b.toString();
    }

    private static double round(double v) {
        return Math.round(v * 1000.0) / 1000.0;
    }
}
