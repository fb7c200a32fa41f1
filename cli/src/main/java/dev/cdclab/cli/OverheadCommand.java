package dev.cdclab.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cdclab.config.Durations;
import dev.cdclab.format.JsonText;
import dev.cdclab.format.Numbers;
import dev.cdclab.lab.experiment.ExperimentRunner;
import dev.cdclab.lab.experiment.ExperimentSpec;
import dev.cdclab.lab.report.Machine;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code cdc-lab overhead}: what capture costs the workload, as the white paper's tables 4 and 5.
 */
@Command(
        name = "overhead",
        mixinStandardHelpOptions = true,
        description = {
            "Run each workload twice on a fresh source with the same settings: capture off (just"
                    + " PostgreSQL), then capture on (the whole pipeline: slot, Debezium, Kafka,"
                    + " Streams, sink). Both runs warm up, then measure; closed loop by default"
                    + " (--rate 0), as the paper ran its workloads flat out.",
            "Reports tx/s with and without capture and the difference. On this one machine the"
                    + " pipeline also takes CPU from the source, so the overhead includes that.",
            "The runs are the two cells of an experiment per workload (capture.enabled false,"
                    + " true); its overhead.yaml, results, charts and report.html stay in the work"
                    + " directory. Passwords go in CDCLAB_SOURCE_PASSWORD and"
                    + " CDCLAB_WAREHOUSE_PASSWORD, not -D.",
            "W6 and W7 are left out by default: flat out they write 60,000-130,000 rows/s, so"
                    + " tens of GB of change events and minutes of catch-up; name them with fewer"
                    + " threads and a short run (--workloads W7 --threads 4 --warmup 10s"
                    + " --duration 15s)."
        })
final class OverheadCommand implements Callable<Integer> {
    /** The experiment factor that runs a cell on the source alone. */
    private static final String CAPTURE = "capture.enabled";

    @Mixin WorkloadKnobs knobs;

    @Option(
            names = "--workloads",
            split = ",",
            defaultValue = "W1,W2,W3,W4,W5,R1",
            description =
                    "Workloads to measure, from ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).",
            completionCandidates = RunCommand.WorkloadNames.class)
    List<String> workloads;

    @Option(
            names = "--duration",
            defaultValue = "30s",
            converter = Commands.DurationConverter.class,
            description = "Measured time per run (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(
            names = "--warmup",
            defaultValue = "20s",
            converter = Commands.DurationConverter.class,
            description = "Unmeasured load before each run (default: ${DEFAULT-VALUE}).")
    Duration warmup;

    @Option(
            names = "--rate",
            defaultValue = "0",
            description = "Target tx/s; 0 = closed loop, as fast as the threads go (default).")
    double rate;

    @Option(
            names = "--report-json",
            paramLabel = "FILE",
            description = "Write the results as JSON to FILE.")
    Path reportJson;

    @Mixin PipelineOptions pipelineOptions;

    @Override
    public Integer call() throws Exception {
        for (String k : pipelineOptions.overrides.keySet()) {
            if (k.toLowerCase(Locale.ROOT).contains("password")) {
                // the settings go into the experiment's file, and a secret must not
                throw new IllegalArgumentException(
                        "-D "
                                + k
                                + ": overhead writes its settings to a file; give the password in"
                                + " CDCLAB_SOURCE_PASSWORD or CDCLAB_WAREHOUSE_PASSWORD instead");
            }
        }
        for (String w : workloads) {
            knobs.create(w, pipelineOptions.source);
        }
        PrintStream out = System.out;
        String runId = Commands.newRunId();
        Path work = Commands.workDir(pipelineOptions.workDir, runId, "overhead");
        Commands.logTo(work, "cdc-lab.log");
        out.printf(
                Locale.ROOT,
                "cdc-lab overhead %s: %s, %d threads, %s warm-up + %s measured per run, machine %s%n",
                runId,
                rate > 0 ? Numbers.rate(rate) + " tx/s" : "closed loop",
                knobs.threads,
                Durations.format(warmup),
                Durations.format(duration),
                Machine.oneLine());
        Path file = work.resolve("overhead.yaml");
        Files.writeString(file, ExperimentSpec.yaml(experiment()));
        ExperimentSpec spec = ExperimentSpec.read(file, ExperimentSpec.Scale.FILE);
        Path results = work.resolve("experiment");
        new ExperimentRunner(spec, file, results, out, Commands::closeOnShutdown).run(false);
        return report(results, out);
    }

    /**
     * The experiment: every workload with capture off (the source alone) and on (the whole
     * pipeline), each on a fresh source with these options.
     */
    private Map<String, Object> experiment() {
        Map<String, Object> load = new LinkedHashMap<>();
        load.put("rate", rate);
        load.put("threads", knobs.threads);
        load.put("prefill", knobs.prefill);
        load.put("seed", knobs.seed);
        load.put("tx-size", knobs.txSize);
        load.put("filled-columns", knobs.filledColumns);
        load.put("hot-keys", knobs.hotKeys);
        Map<String, Object> factors = new LinkedHashMap<>();
        factors.put("workload.name", workloads);
        factors.put(CAPTURE, List.of(false, true));
        Map<String, Object> tree = new LinkedHashMap<>();
        tree.put("name", "overhead");
        tree.put("description", "what capture costs each workload: capture off, then on");
        tree.put("workload", load);
        tree.put(
                "phases",
                Map.of(
                        "warmup", Durations.format(warmup),
                        "measure", Durations.format(duration),
                        "drain", "10m"));
        tree.put("factors", factors);
        tree.put("constants", pipelineOptions.asExperimentSettings());
        return tree;
    }

    /** Prints and writes the capture-off/on comparison from the cells' summaries. */
    private int report(Path results, PrintStream out) throws Exception {
        Map<String, Map<Boolean, JsonNode>> cells = new LinkedHashMap<>();
        workloads.forEach(w -> cells.put(w, new LinkedHashMap<>()));
        try (var dirs = Files.list(results.resolve("cells"))) {
            for (Path d : dirs.sorted().toList()) {
                Path summary = d.resolve("summary.json");
                if (Files.exists(summary)) {
                    JsonNode n = JsonText.read(summary);
                    cells.computeIfAbsent(
                                    n.path("levels").path("workload.name").asText(),
                                    k -> new LinkedHashMap<>())
                            .put(n.path("capture").asBoolean(), n);
                }
            }
        }
        out.println();
        out.println(
                "workload   | tx/s capture off | tx/s capture on | overhead | changes/s on | tx p99 off/on ms | e2e p50 / p99 ms | catch-up s | verified");
        List<Map<String, Object>> rows = new ArrayList<>();
        boolean allVerified = true;
        JsonNode anyOn = null;
        for (var e : cells.entrySet()) {
            JsonNode offCell = e.getValue().get(false);
            JsonNode onCell = e.getValue().get(true);
            if (offCell == null || onCell == null) {
                out.printf(Locale.ROOT, "%-10s | failed (see %s)%n", e.getKey(), results);
                allVerified = false;
                continue;
            }
            anyOn = onCell;
            JsonNode off = offCell.path("metrics");
            JsonNode on = onCell.path("metrics");
            double txOff = off.path("tx_per_s").asDouble();
            double txOn = on.path("tx_per_s").asDouble();
            double overhead = (txOff - txOn) / txOff * 100;
            double changesOn =
                    on.path("source_changes").asDouble()
                            * txOn
                            / Math.max(1, on.path("transactions").asDouble());
            boolean verified = on.path("verified").asBoolean(false);
            allVerified &= verified;
            out.printf(
                    Locale.ROOT,
                    "%-10s | %16s | %15s | %7.1f%% | %12s | %7.1f / %6.1f | %6.0f / %6.0f | %10s | %s%n",
                    e.getKey(),
                    Numbers.rate(txOff),
                    Numbers.rate(txOn),
                    overhead,
                    Numbers.rate(changesOn),
                    off.path("tx_p99_ms").asDouble(),
                    on.path("tx_p99_ms").asDouble(),
                    on.path("latency_p50_ms").asDouble(),
                    on.path("latency_p99_ms").asDouble(),
                    Numbers.fixed2(on.path("catch_up_s").asDouble()),
                    verified ? "yes" : "NO: " + onCell.path("verification").asText("not verified"));
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("workload", e.getKey());
            row.put("tx_per_s_capture_off", Numbers.round3(txOff));
            row.put("tx_per_s_capture_on", Numbers.round3(txOn));
            row.put("overhead_percent", Numbers.round3(overhead));
            row.put("changes_per_s_capture_on", Numbers.round3(changesOn));
            row.put("tx_p99_ms_capture_off", off.path("tx_p99_ms").asDouble());
            row.put("tx_p99_ms_capture_on", on.path("tx_p99_ms").asDouble());
            row.put(
                    "commit_to_warehouse_ms",
                    Map.of(
                            "p50", on.path("latency_p50_ms").asDouble(),
                            "p99", on.path("latency_p99_ms").asDouble()));
            row.put("catch_up_s", on.path("catch_up_s").asDouble());
            row.put("verified", verified);
            rows.add(row);
        }
        if (reportJson != null) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("threads", knobs.threads);
            m.put("rate", rate);
            m.put("warmup", Durations.format(warmup));
            m.put("duration", Durations.format(duration));
            m.put("results", rows);
            m.put("pipeline", pipelineOptions.settings());
            m.put("source_settings", anyOn == null ? null : anyOn.get("source_settings"));
            m.put("infrastructure", anyOn == null ? null : anyOn.get("infrastructure"));
            m.put("experiment", results.toString());
            m.put("machine", Machine.describe());
            JsonText.write(reportJson, m);
        }
        out.println("pipeline " + PipelineOptions.line(pipelineOptions.settings()));
        if (anyOn != null) {
            Map<String, Object> settings = new LinkedHashMap<>();
            anyOn.path("source_settings")
                    .fields()
                    .forEachRemaining(f -> settings.put(f.getKey(), f.getValue().asText()));
            out.println("source   " + PipelineOptions.line(settings));
        }
        out.println("cells    " + results);
        return allVerified ? 0 : CdcLab.VERIFY_FAILED;
    }
}
