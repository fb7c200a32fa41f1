package dev.cdclab.lab.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cdclab.config.Durations;
import dev.cdclab.format.JsonText;
import dev.cdclab.format.Numbers;
import dev.cdclab.lab.report.Machine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An experiment's results from its cells' {@code summary.json} and {@code samples.csv}: {@code
 * results.csv}, {@code summary.md} with the conclusions' verdicts, and {@code report.html} with its
 * charts.
 */
final class ExperimentReport {
    private static final Logger LOG = LoggerFactory.getLogger(ExperimentReport.class);

    /** Columns of the summary table: metric, heading, scale (divide by), unit. */
    private record Column(String metric, String heading, double divide) {}

    private static final List<Column> TABLE =
            List.of(
                    new Column("tx_per_s", "workload tx/s", 1),
                    new Column("cdc_cmds_per_s", "CDC cmds/s", 1),
                    new Column("cdc_cmds_per_s_over_5s", "CDC cmds/s while > 5 s", 1),
                    new Column("latency_p99_ms", "latency p99 s", 1000),
                    new Column("latency_max_ms", "latency max s", 1000),
                    new Column("catch_up_s", "catch-up s", 1),
                    new Column("raw_changes", "raw changes", 1),
                    new Column("net_changes", "net changes", 1),
                    new Column("wal_written_bytes", "WAL written MB", 1e6),
                    new Column("wal_retained_peak_bytes", "WAL retained peak MB", 1e6),
                    new Column("cpu_s", "CPU s", 1),
                    new Column("heap_peak_mb", "heap peak MiB", 1),
                    new Column("verified", "verified", 1));

    /** A cell's results as read back. */
    private record CellResult(
            ExperimentCell cell, Manifest.State state, String error, Map<String, Object> metrics) {}

    private final ExperimentSpec spec;
    private final Path out;
    private final List<CellResult> results = new ArrayList<>();
    private final List<String> verdicts = new ArrayList<>();

    ExperimentReport(ExperimentSpec spec, Path out, List<Manifest.Entry> entries) {
        this.spec = spec;
        this.out = out;
        for (Manifest.Entry e : entries) {
            Map<String, Object> metrics = new LinkedHashMap<>();
            Path summary = cellDir(e.cell).resolve("summary.json");
            if (e.state == Manifest.State.DONE && Files.exists(summary)) {
                try {
                    JsonNode n = JsonText.read(summary).path("metrics");
                    n.fields()
                            .forEachRemaining(
                                    f ->
                                            metrics.put(
                                                    f.getKey(),
                                                    f.getValue().isBoolean()
                                                            ? (Object) f.getValue().asBoolean()
                                                            : f.getValue().isNumber()
                                                                    ? f.getValue().numberValue()
                                                                    : null));
                } catch (IOException ex) {
                    LOG.warn("cannot read {}", summary, ex);
                }
            }
            results.add(new CellResult(e.cell, e.state, e.error, metrics));
        }
        for (Conclusion c : spec.conclusions()) {
            verdicts.add(verdict(c));
        }
    }

    private Path cellDir(ExperimentCell c) {
        return out.resolve("cells").resolve(c.id());
    }

    boolean verified(ExperimentCell cell) {
        for (CellResult r : results) {
            if (r.cell().equals(cell)) {
                Object v = r.metrics().get("verified");
                Object capture = r.cell().settings().get(CellSettings.CAPTURE_ENABLED);
                return Boolean.TRUE.equals(v) || "false".equalsIgnoreCase(String.valueOf(capture));
            }
        }
        return false;
    }

    void write() throws IOException {
        writeCsv();
        Files.createDirectories(out.resolve("charts"));
        List<String> charts = drawCharts();
        Files.writeString(out.resolve("summary.md"), summaryText());
        Files.writeString(out.resolve("report.html"), html(charts));
    }

    private void writeCsv() throws IOException {
        StringBuilder b = new StringBuilder();
        List<String> header = new ArrayList<>(List.of("cell"));
        header.addAll(spec.factors().keySet());
        header.add("repetition");
        header.add("state");
        header.addAll(CellMetrics.columns());
        b.append(String.join(",", header)).append('\n');
        for (CellResult r : results) {
            List<String> row = new ArrayList<>();
            row.add(csv(r.cell().id()));
            spec.factors().keySet().forEach(f -> row.add(csv(r.cell().levels().get(f))));
            row.add(Integer.toString(r.cell().repetition()));
            row.add(r.state().name().toLowerCase(Locale.ROOT));
            for (String m : CellMetrics.columns()) {
                Object v = r.metrics().get(m);
                row.add(v == null ? "" : v instanceof Boolean bo ? (bo ? "1" : "0") : v.toString());
            }
            b.append(String.join(",", row)).append('\n');
        }
        Files.writeString(out.resolve("results.csv"), b.toString());
    }

    private static String csv(String s) {
        return s.contains(",") || s.contains("\"") ? '"' + s.replace("\"", "\"\"") + '"' : s;
    }

    /** {@code summary.md}: what ran, the table, the verdicts. */
    String summaryText() {
        StringBuilder b = new StringBuilder();
        b.append("# ").append(spec.name()).append("\n\n");
        if (!spec.reproduces().isBlank()) {
            b.append("Reproduces: ").append(spec.reproduces()).append("\n\n");
        }
        if (!spec.description().isBlank()) {
            b.append(spec.description().trim()).append("\n\n");
        }
        b.append(
                String.format(
                        Locale.ROOT,
                        "Scale %s; phases: warm-up %s, measure %s, drain up to %s; %d repetition(s); machine %s.%n%n",
                        spec.scale().label(),
                        Durations.format(spec.phases().warmup()),
                        Durations.format(spec.phases().measure()),
                        Durations.format(spec.phases().drain()),
                        spec.repetitions(),
                        Machine.oneLine()));
        if (!spec.base().isEmpty()) {
            b.append("Settings of every cell: `");
            List<String> kv = new ArrayList<>();
            spec.base().forEach((k, v) -> kv.add(k + "=" + v));
            b.append(String.join(" ", kv)).append("`\n\n");
        }
        List<String> head = new ArrayList<>(spec.factors().keySet());
        if (spec.repetitions() > 1) {
            head.add("rep");
        }
        TABLE.forEach(c -> head.add(c.heading()));
        b.append("| ").append(String.join(" | ", head)).append(" |\n");
        b.append("|").append("---|".repeat(head.size())).append('\n');
        for (CellResult r : results) {
            List<String> row = new ArrayList<>();
            spec.factors().keySet().forEach(f -> row.add(r.cell().levels().get(f)));
            if (spec.repetitions() > 1) {
                row.add(Integer.toString(r.cell().repetition()));
            }
            if (r.state() != Manifest.State.DONE) {
                row.add(
                        r.state() == Manifest.State.FAILED
                                ? "**failed**: " + r.error().replace("|", "/")
                                : r.state().name().toLowerCase(Locale.ROOT));
                for (int i = 1; i < TABLE.size(); i++) {
                    row.add("");
                }
            } else {
                for (Column c : TABLE) {
                    row.add(format(r.metrics(), c));
                }
            }
            b.append("| ").append(String.join(" | ", row)).append(" |\n");
        }
        b.append('\n');
        if (!verdicts.isEmpty()) {
            b.append("## Conclusions\n\n");
            for (String v : verdicts) {
                b.append("- ").append(v).append('\n');
            }
            b.append('\n');
        }
        b.append(
                "Latency is source commit to warehouse commit. \"CDC cmds/s while > 5 s\" is the"
                        + " paper's CDC throughput: changes applied per second over the seconds whose p99"
                        + " latency was above 5 s (empty when none was).\n");
        return b.toString();
    }

    private static String format(Map<String, Object> metrics, Column c) {
        Object v = metrics.get(c.metric());
        if (v == null) {
            return "-";
        }
        if (v instanceof Boolean bo) {
            return bo ? "yes" : "**no**";
        }
        double d = ((Number) v).doubleValue() / c.divide();
        if (c.divide() == 1 && d == Math.rint(d)) {
            return Numbers.count((long) d);
        }
        if (Math.abs(d) >= 100) {
            return Numbers.count(Math.round(d));
        }
        return String.format(Locale.ROOT, Math.abs(d) >= 10 ? "%.1f" : "%.2f", d);
    }

    /** A conclusion's verdict line. */
    private String verdict(Conclusion c) {
        double when = mean(c.metric(), c.when());
        double than = mean(c.thanMetric(), c.than());
        String head =
                (c.table().isBlank() ? "" : "**" + c.table() + "**: ")
                        + (c.claim().isBlank() ? "" : c.claim() + ". ");
        String whenLabel = label(c.when());
        String thanLabel = label(c.than());
        if (Double.isNaN(when) || Double.isNaN(than)) {
            return head
                    + "Conclusion holds on this stack: cannot tell, because "
                    + (Double.isNaN(when) ? c.metric() : c.thanMetric())
                    + " is missing for "
                    + (Double.isNaN(when) ? whenLabel : thanLabel)
                    + " (a cell failed, did not run, or the metric does not apply).";
        }
        double change =
                than == 0
                        ? (when == 0 ? 0 : Double.POSITIVE_INFINITY)
                        : (when - than) / Math.abs(than) * 100;
        boolean holds =
                switch (c.expect()) {
                    case LOWER -> change < -c.marginPercent();
                    case HIGHER -> change > c.marginPercent();
                    case SIMILAR -> Math.abs(change) <= c.marginPercent();
                };
        String expectation =
                switch (c.expect()) {
                    case LOWER -> "lower by more than " + pct(c.marginPercent());
                    case HIGHER -> "higher by more than " + pct(c.marginPercent());
                    case SIMILAR -> "within " + pct(c.marginPercent());
                };
        return String.format(
                Locale.ROOT,
                "%sConclusion holds on this stack: **%s**, because %s is %s at %s vs %s%s at %s (%s%s; the claim needs %s).",
                head,
                holds ? "yes" : "no",
                c.metric(),
                number(when),
                whenLabel,
                c.thanMetric().equals(c.metric()) ? "" : c.thanMetric() + " ",
                number(than),
                thanLabel,
                Math.round(change) > 0 ? "+" : "",
                Double.isInfinite(change)
                        ? "inf"
                        : String.format(Locale.ROOT, "%d%%", Math.round(change)),
                expectation);
    }

    private static String pct(double p) {
        return (p == Math.rint(p) ? Long.toString((long) p) : Double.toString(p)) + "%";
    }

    private static String number(double d) {
        if (Math.abs(d) >= 100) {
            return Numbers.count(Math.round(d));
        }
        return String.format(Locale.ROOT, "%.2f", d);
    }

    private static String label(Map<String, String> levels) {
        List<String> kv = new ArrayList<>();
        levels.forEach((k, v) -> kv.add(k + "=" + v));
        return String.join(", ", kv);
    }

    private double mean(String metric, Map<String, String> side) {
        double sum = 0;
        int n = 0;
        for (CellResult r : results) {
            if (r.state() == Manifest.State.DONE && Conclusion.matches(r.cell().levels(), side)) {
                double v = CellMetrics.value(r.metrics(), metric);
                if (!Double.isNaN(v)) {
                    sum += v;
                    n++;
                }
            }
        }
        return n == 0 ? Double.NaN : sum / n;
    }

    private List<String> drawCharts() {
        List<String> charts = new ArrayList<>();
        for (CellResult r : results) {
            if (r.state() != Manifest.State.DONE || r.cell().repetition() != 1) {
                continue;
            }
            Path samples = cellDir(r.cell()).resolve("samples.csv");
            if (!Files.exists(samples) || r.metrics().get("latency_p99_ms") == null) {
                continue;
            }
            String name = "charts/latency-" + r.cell().id() + ".png";
            try {
                ReportCharts.latencyBuildup(
                        out.resolve(name),
                        "Latency build-up: " + r.cell().label(),
                        readSamples(samples));
                charts.add(name);
            } catch (IOException | RuntimeException e) {
                LOG.warn("cannot draw {}", name, e);
            }
        }
        for (String factor : spec.factors().keySet()) {
            if (spec.factors().get(factor).size() < 2) {
                continue;
            }
            for (String metric : List.of("latency_p99_ms", "cdc_cmds_per_s", "tx_per_s")) {
                Map<String, Map<String, Double>> series = seriesAgainst(factor, metric);
                if (series.isEmpty()) {
                    continue;
                }
                String name = "charts/" + safe(factor) + "-" + metric + ".png";
                try {
                    ReportCharts.againstFactor(
                            out.resolve(name),
                            metric + " against " + factor,
                            factor,
                            metric,
                            series);
                    charts.add(name);
                } catch (IOException | RuntimeException e) {
                    LOG.warn("cannot draw {}", name, e);
                }
            }
        }
        LinkedHashMap<String, Double> tx = new LinkedHashMap<>();
        for (CellResult r : results) {
            double v = CellMetrics.value(r.metrics(), "tx_per_s");
            if (!Double.isNaN(v)) {
                tx.put(
                        r.cell().levels().isEmpty()
                                ? r.cell().id()
                                : r.cell().label()
                                        + (spec.repetitions() > 1
                                                ? " #" + r.cell().repetition()
                                                : ""),
                        v);
            }
        }
        if (!tx.isEmpty()) {
            String name = "charts/workload-overhead.png";
            try {
                ReportCharts.workloadOverhead(
                        out.resolve(name), "Workload throughput per cell", tx);
                charts.add(name);
            } catch (IOException | RuntimeException e) {
                LOG.warn("cannot draw {}", name, e);
            }
        }
        return charts;
    }

    private Map<String, Map<String, Double>> seriesAgainst(String factor, String metric) {
        Map<String, Map<String, double[]>> acc = new LinkedHashMap<>();
        for (CellResult r : results) {
            double v = CellMetrics.value(r.metrics(), metric);
            if (Double.isNaN(v)) {
                continue;
            }
            Map<String, String> others = new LinkedHashMap<>(r.cell().levels());
            String level = others.remove(factor);
            String series = others.isEmpty() ? metric : label(others);
            double[] sumN =
                    acc.computeIfAbsent(series, s -> new LinkedHashMap<>())
                            .computeIfAbsent(level, l -> new double[2]);
            sumN[0] += v;
            sumN[1]++;
        }
        Map<String, Map<String, Double>> out = new LinkedHashMap<>();
        acc.forEach(
                (s, m) -> {
                    Map<String, Double> levels = new LinkedHashMap<>();
                    for (String level : spec.factors().get(factor)) {
                        double[] sn = m.get(level);
                        if (sn != null) {
                            levels.put(level, sn[0] / sn[1]);
                        }
                    }
                    out.put(s, levels);
                });
        return out;
    }

    private static String safe(String s) {
        return s.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    static List<SecondSample> readSamples(Path csv) throws IOException {
        List<SecondSample> list = new ArrayList<>();
        List<String> lines = Files.readAllLines(csv);
        for (int i = 1; i < lines.size(); i++) {
            String[] f = lines.get(i).split(",", -1);
            list.add(
                    new SecondSample(
                            Double.parseDouble(f[0]),
                            f[1],
                            Long.parseLong(f[2]),
                            Long.parseLong(f[3]),
                            Long.parseLong(f[4]),
                            Long.parseLong(f[5]),
                            d(f[6]),
                            d(f[7]),
                            d(f[8]),
                            Long.parseLong(f[9]),
                            Long.parseLong(f[10]),
                            Long.parseLong(f[11])));
        }
        return list;
    }

    private static double d(String s) {
        return s.isEmpty() ? Double.NaN : Double.parseDouble(s);
    }

    private String html(List<String> charts) {
        StringBuilder b = new StringBuilder();
        b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
                .append(esc(spec.name()))
                .append(
                        "</title>\n<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;}"
                                + "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;"
                                + "padding:3px 6px;text-align:right}th{background:#f3f3f3}img{max-width:100%;"
                                + "border:1px solid #eee;margin:8px 0}</style></head><body>\n");
        b.append("<h1>").append(esc(spec.name())).append("</h1>\n");
        if (!spec.reproduces().isBlank()) {
            b.append("<p>Reproduces: ").append(esc(spec.reproduces())).append("</p>\n");
        }
        if (!spec.description().isBlank()) {
            b.append("<p>").append(esc(spec.description().trim())).append("</p>\n");
        }
        b.append(
                String.format(
                        Locale.ROOT,
                        "<p>Scale %s; warm-up %s, measure %s, drain up to %s; %d repetition(s); machine %s.</p>%n",
                        spec.scale().label(),
                        Durations.format(spec.phases().warmup()),
                        Durations.format(spec.phases().measure()),
                        Durations.format(spec.phases().drain()),
                        spec.repetitions(),
                        esc(Machine.oneLine())));
        if (!verdicts.isEmpty()) {
            b.append("<h2>Conclusions</h2><ul>\n");
            for (String v : verdicts) {
                b.append("<li>")
                        .append(esc(v).replaceAll("\\*\\*([^*]+)\\*\\*", "<b>$1</b>"))
                        .append("</li>\n");
            }
            b.append("</ul>\n");
        }
        b.append("<h2>Results</h2>\n<table><tr>");
        spec.factors().keySet().forEach(f -> b.append("<th>").append(esc(f)).append("</th>"));
        if (spec.repetitions() > 1) {
            b.append("<th>rep</th>");
        }
        TABLE.forEach(c -> b.append("<th>").append(esc(c.heading())).append("</th>"));
        b.append("</tr>\n");
        for (CellResult r : results) {
            b.append("<tr>");
            spec.factors()
                    .keySet()
                    .forEach(
                            f ->
                                    b.append("<td>")
                                            .append(esc(r.cell().levels().get(f)))
                                            .append("</td>"));
            if (spec.repetitions() > 1) {
                b.append("<td>").append(r.cell().repetition()).append("</td>");
            }
            if (r.state() != Manifest.State.DONE) {
                b.append("<td colspan=\"")
                        .append(TABLE.size())
                        .append("\">")
                        .append(esc(r.state().name().toLowerCase(Locale.ROOT)))
                        .append(r.error() == null ? "" : ": " + esc(r.error()))
                        .append("</td>");
            } else {
                TABLE.forEach(
                        c ->
                                b.append("<td>")
                                        .append(esc(format(r.metrics(), c).replace("**", "")))
                                        .append("</td>"));
            }
            b.append("</tr>\n");
        }
        b.append(
                "</table>\n<p>Every cell's numbers: <a href=\"results.csv\">results.csv</a>; per second:"
                        + " cells/&lt;cell&gt;/samples.csv and latency.hlog (HdrHistogram log).</p>\n");
        b.append("<h2>Charts</h2>\n");
        for (String c : charts) {
            b.append("<p><img src=\"")
                    .append(esc(c))
                    .append("\" alt=\"")
                    .append(esc(c))
                    .append("\"></p>\n");
        }
        b.append("</body></html>\n");
        return b.toString();
    }

    private static String esc(String s) {
        return s == null
                ? ""
                : s.replace("&", "&amp;")
                        .replace("<", "&lt;")
                        .replace(">", "&gt;")
                        .replace("\"", "&quot;");
    }
}
