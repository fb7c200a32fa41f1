package dev.cdclab.cli;

import dev.cdclab.config.Durations;
import dev.cdclab.format.JsonText;
import dev.cdclab.format.Numbers;
import dev.cdclab.lab.experiment.PhaseEngine;
import dev.cdclab.lab.report.InfraDescription;
import dev.cdclab.lab.report.Machine;
import dev.cdclab.load.workload.Workload;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.orchestration.infra.InfraSpec;
import dev.cdclab.orchestration.infra.SourceEndpoint;
import dev.cdclab.orchestration.infra.SourceService;
import dev.cdclab.orchestration.verify.VerificationResult;
import java.io.PrintStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
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
            "W6 and W7 are left out by default: flat out they write 60,000-130,000 rows/s, so"
                    + " tens of GB of change events and minutes of catch-up; name them with fewer"
                    + " threads and a short run (--workloads W7 --threads 4 --warmup 10s"
                    + " --duration 15s)."
        })
final class OverheadCommand implements Callable<Integer> {
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

    /** One run's numbers. */
    record Measured(double txPerSecond, double changesPerSecond, Histogram txLatencyUs) {}

    @Override
    public Integer call() throws Exception {
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
        out.println(
                "workload   | tx/s capture off | tx/s capture on | overhead | changes/s on | tx p99 off/on ms | e2e p50 / p99 ms | catch-up s | verified");
        List<Map<String, Object>> rows = new ArrayList<>();
        boolean allVerified = true;
        Map<String, String> settings = null;
        Map<String, Object> infra = null;
        String infraLine = null;
        for (String name : workloads) {
            Workload wl = knobs.create(name, pipelineOptions.source);
            String cellId = (runId + name).toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
            Measured off = captureOff(wl, work.resolve(name + "-off"), cellId + "off");
            Path on = work.resolve(name + "-on");
            Pipeline.Builder b =
                    Pipeline.builder()
                            .workDir(on)
                            .runId(cellId)
                            .shutdownHooks(false)
                            .beforeCapture(
                                    src -> {
                                        try (Connection c = src.connect()) {
                                            wl.createSchema(c);
                                            wl.prefill(c, n -> {});
                                        }
                                    });
            pipelineOptions.apply(b);
            Pipeline p = b.build();
            Commands.closeOnShutdown(p);
            Measured onRun;
            double catchUp;
            Histogram e2e;
            VerificationResult v;
            try {
                p.start();
                p.awaitCaughtUp(Duration.ofMinutes(10));
                settings = p.sourceSettings();
                infra = InfraDescription.asMap(p.infrastructure());
                infraLine = InfraDescription.line(p.infrastructure());
                PhaseEngine.Measurement m = PhaseEngine.onPipeline(plan(wl), p, null).run();
                if (!m.caughtUp()) {
                    throw m.catchUpFailure();
                }
                onRun = measured(m);
                catchUp = m.catchUpSeconds();
                e2e = m.latency();
                v = m.verification();
            } finally {
                p.close();
            }
            allVerified &= v.matches();
            double overhead = (off.txPerSecond() - onRun.txPerSecond()) / off.txPerSecond() * 100;
            out.printf(
                    Locale.ROOT,
                    "%-10s | %16s | %15s | %7.1f%% | %12s | %7.1f / %6.1f | %6d / %6d | %10s | %s%n",
                    name,
                    Numbers.rate(off.txPerSecond()),
                    Numbers.rate(onRun.txPerSecond()),
                    overhead,
                    Numbers.rate(onRun.changesPerSecond()),
                    off.txLatencyUs().getValueAtPercentile(99) / 1000.0,
                    onRun.txLatencyUs().getValueAtPercentile(99) / 1000.0,
                    e2e.getValueAtPercentile(50),
                    e2e.getValueAtPercentile(99),
                    Numbers.fixed2(catchUp),
                    v.matches() ? "yes" : "NO: " + v.summary());
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("workload", name);
            row.put("tx_per_s_capture_off", Numbers.round3(off.txPerSecond()));
            row.put("tx_per_s_capture_on", Numbers.round3(onRun.txPerSecond()));
            row.put("overhead_percent", Numbers.round3(overhead));
            row.put("changes_per_s_capture_on", Numbers.round3(onRun.changesPerSecond()));
            row.put("tx_latency_ms_capture_off", Numbers.percentiles(off.txLatencyUs(), 1000));
            row.put("tx_latency_ms_capture_on", Numbers.percentiles(onRun.txLatencyUs(), 1000));
            row.put("commit_to_warehouse_ms", Numbers.percentiles(e2e, 1));
            row.put("catch_up_s", catchUp);
            row.put("verified", v.matches());
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
            m.put("source_settings", settings);
            m.put("infrastructure", infra);
            m.put("machine", Machine.describe());
            JsonText.write(reportJson, m);
        }
        out.println("pipeline " + PipelineOptions.line(pipelineOptions.settings()));
        if (settings != null) {
            out.println("source   " + PipelineOptions.line(settings));
            out.println("infra    " + infraLine);
        }
        return allVerified ? 0 : CdcLab.VERIFY_FAILED;
    }

    private Measured captureOff(Workload wl, Path dir, String runId) throws Exception {
        try (SourceService pg =
                pipelineOptions
                        .infraSpec()
                        .startSource(
                                new InfraSpec.Context(
                                        dir, runId, pipelineOptions.durable, 0, 0, false))) {
            SourceEndpoint src = pg.endpoint();
            try (Connection c = src.connect()) {
                wl.createSchema(c);
                wl.prefill(c, n -> {});
            }
            return measured(PhaseEngine.onSource(plan(wl), src::connect).run());
        }
    }

    private PhaseEngine.Plan plan(Workload wl) {
        return new PhaseEngine.Plan(
                wl, knobs.threads, rate, warmup, duration, 0, Duration.ofMinutes(10));
    }

    private static Measured measured(PhaseEngine.Measurement m) {
        double secs = m.loadSeconds();
        return new Measured(
                m.load().transactions() / secs,
                m.load().sourceChanges() / secs,
                m.load().latency());
    }
}
