package dev.cdclab.pipeline.cli;

import dev.cdclab.config.Durations;
import dev.cdclab.load.run.LoadRunner;
import dev.cdclab.load.run.LoadStats;
import dev.cdclab.load.workload.Workload;
import dev.cdclab.pipeline.Pipeline;
import dev.cdclab.pipeline.operate.CatchUpTimeoutException;
import dev.cdclab.pipeline.report.InfraDescription;
import dev.cdclab.pipeline.report.Machine;
import dev.cdclab.pipeline.report.Numbers;
import dev.cdclab.pipeline.verify.VerificationResult;
import java.io.PrintStream;
import java.nio.file.Files;
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

/** {@code cdc-lab bench}: the highest rate the pipeline sustains on this machine. */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = {
            "Find the highest target rate the embedded pipeline sustains: one pipeline, one"
                    + " warm-up, then steps of rising rate. A step is sustained when the warehouse"
                    + " catches up within --max-catch-up after it (the backlog stayed bounded) and"
                    + " its p99 commit-to-warehouse latency is within --max-p99.",
            "Prints one line per step and the highest sustained rate; exit 0 when some step was"
                    + " sustained and the warehouse matches the source at the end."
        })
final class BenchCommand implements Callable<Integer> {
    @Mixin WorkloadKnobs knobs;

    @Option(
            names = "--rates",
            split = ",",
            paramLabel = "TX/S",
            defaultValue = "800,1000,1200,1400,1600",
            description = "Target rates to step through, tx/s (default: ${DEFAULT-VALUE}).")
    List<Double> rates;

    @Option(
            names = "--step",
            paramLabel = "DURATION",
            defaultValue = "45s",
            converter = Commands.DurationConverter.class,
            description = "Length of each step (default: ${DEFAULT-VALUE}).")
    Duration step;

    @Option(
            names = "--warmup",
            paramLabel = "DURATION",
            defaultValue = "90s",
            converter = Commands.DurationConverter.class,
            description = "Warm-up at the first rate, not measured (default: ${DEFAULT-VALUE}).")
    Duration warmup;

    @Option(
            names = "--max-catch-up",
            paramLabel = "DURATION",
            defaultValue = "5s",
            converter = Commands.DurationConverter.class,
            description =
                    "A step whose backlog takes longer to drain is not sustained (default: ${DEFAULT-VALUE}).")
    Duration maxCatchUp;

    @Option(
            names = "--max-p99",
            paramLabel = "DURATION",
            defaultValue = "2s",
            converter = Commands.DurationConverter.class,
            description = "Latency bound for a sustained step (default: ${DEFAULT-VALUE}).")
    Duration maxP99;

    @Option(
            names = "--workload",
            defaultValue = "mix",
            description = "Workload (default: ${DEFAULT-VALUE}).")
    String workload;

    @Option(
            names = "--report-json",
            paramLabel = "FILE",
            description = "Write the steps as JSON to FILE.")
    Path reportJson;

    @Mixin PipelineOptions pipelineOptions;

    /** One measured step. */
    record StepResult(
            double target,
            double txPerSecond,
            double changesPerSecond,
            Histogram latency,
            double catchUpSeconds,
            boolean sustained) {}

    @Override
    public Integer call() throws Exception {
        if (rates.isEmpty() || rates.stream().anyMatch(r -> r <= 0)) {
            throw new IllegalArgumentException("--rates must list rates > 0");
        }
        PrintStream out = System.out;
        Workload wl = knobs.create(workload, pipelineOptions.source);
        String runId = Commands.newRunId();
        Path work = Commands.workDir(pipelineOptions.workDir, runId, "bench");
        Commands.logTo(work, "cdc-lab.log");
        Pipeline.Builder b =
                Pipeline.builder()
                        .workDir(work)
                        .runId(runId)
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
        try {
            out.printf(
                    Locale.ROOT,
                    "cdc-lab bench %s: workload %s, %d threads, steps of %s, machine %s%n",
                    runId,
                    wl.name(),
                    knobs.threads,
                    Durations.format(step),
                    Machine.oneLine());
            p.start();
            p.awaitCaughtUp(Duration.ofMinutes(5));
            long next = 0;
            if (!warmup.isZero()) {
                out.printf(
                        Locale.ROOT,
                        "warm-up: %s at %s tx/s%n",
                        Durations.format(warmup),
                        Numbers.rate(rates.get(0)));
                LoadRunner w =
                        new LoadRunner(
                                wl,
                                p::sourceConnection,
                                new LoadRunner.Options(knobs.threads, rates.get(0), warmup, 0, 0));
                w.run();
                next = w.issued();
                p.awaitCaughtUp(Duration.ofMinutes(5));
            }
            out.println(
                    "   target tx/s |  achieved tx/s |  changes/s |   p50 ms |   p95 ms |   p99 ms |   max ms | catch-up s | sustained");
            List<StepResult> results = new ArrayList<>();
            for (double rate : rates) {
                p.sink().latency().reset();
                LoadRunner r =
                        new LoadRunner(
                                wl,
                                p::sourceConnection,
                                new LoadRunner.Options(knobs.threads, rate, step, 0, next));
                java.util.concurrent.atomic.AtomicReference<RuntimeException> failed =
                        new java.util.concurrent.atomic.AtomicReference<>();
                LoadStats s;
                try (AutoCloseable watch =
                        p.watch(
                                e -> {
                                    failed.set(e);
                                    r.stop();
                                })) {
                    s = r.run();
                }
                if (failed.get() != null) {
                    throw failed.get();
                }
                next += r.issued();
                double secs = r.elapsedSeconds();
                double catchUp;
                try {
                    catchUp = p.awaitCaughtUp(Duration.ofMinutes(3)).toMillis() / 1000.0;
                } catch (CatchUpTimeoutException e) {
                    catchUp = Double.POSITIVE_INFINITY;
                }
                Histogram lat = p.sink().latency().endToEnd();
                boolean sustained =
                        catchUp <= maxCatchUp.toMillis() / 1000.0
                                && lat.getValueAtPercentile(99) <= maxP99.toMillis()
                                && s.transactions() >= 0.95 * rate * secs;
                StepResult sr =
                        new StepResult(
                                rate,
                                s.transactions() / secs,
                                s.sourceChanges() / secs,
                                lat,
                                catchUp,
                                sustained);
                results.add(sr);
                out.printf(
                        Locale.ROOT,
                        "%14s | %14s | %10s | %8d | %8d | %8d | %8d | %10s | %s%n",
                        Numbers.rate(rate),
                        Numbers.rate(sr.txPerSecond()),
                        Numbers.rate(sr.changesPerSecond()),
                        lat.getValueAtPercentile(50),
                        lat.getValueAtPercentile(95),
                        lat.getValueAtPercentile(99),
                        lat.getMaxValue(),
                        Double.isInfinite(catchUp) ? "> 180" : Numbers.fixed2(catchUp),
                        sustained ? "yes" : "no");
                if (Double.isInfinite(catchUp)) {
                    break;
                }
            }
            VerificationResult v = p.verify();
            StepResult best = null;
            for (StepResult sr : results) {
                if (sr.sustained()
                        && (best == null || sr.changesPerSecond() > best.changesPerSecond())) {
                    best = sr;
                }
            }
            if (best == null) {
                out.println("no step sustained");
            } else {
                out.printf(
                        Locale.ROOT,
                        "highest sustained: %s tx/s = %s row changes/s end to end, p99 %d ms%n",
                        Numbers.rate(best.txPerSecond()),
                        Numbers.rate(best.changesPerSecond()),
                        best.latency().getValueAtPercentile(99));
            }
            out.println((v.matches() ? "verified: " : "NOT verified: ") + v.summary());
            out.println("pipeline " + PipelineOptions.line(pipelineOptions.settings()));
            out.println("source   " + PipelineOptions.line(p.sourceSettings()));
            out.println("infra    " + InfraDescription.line(p.infrastructure()));
            if (reportJson != null) {
                writeJson(results, best, v, p);
            }
            return best != null && v.matches() ? 0 : CdcLab.VERIFY_FAILED;
        } finally {
            p.close();
        }
    }

    private void writeJson(
            List<StepResult> results, StepResult best, VerificationResult v, Pipeline p)
            throws Exception {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("workload", workload);
        m.put("threads", knobs.threads);
        m.put("step", Durations.format(step));
        m.put("warmup", Durations.format(warmup));
        List<Map<String, Object>> steps = new ArrayList<>();
        for (StepResult sr : results) {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("target_tx_per_s", sr.target());
            s.put("tx_per_s", Numbers.round3(sr.txPerSecond()));
            s.put("changes_per_s", Numbers.round3(sr.changesPerSecond()));
            s.put("latency_ms", Numbers.percentiles(sr.latency(), 1));
            s.put(
                    "catch_up_s",
                    Double.isInfinite(sr.catchUpSeconds()) ? null : sr.catchUpSeconds());
            s.put("sustained", sr.sustained());
            steps.add(s);
        }
        m.put("steps", steps);
        m.put(
                "highest_sustained_changes_per_s",
                best == null ? null : Numbers.round3(best.changesPerSecond()));
        m.put("verified", v.matches());
        m.put("pipeline", pipelineOptions.settings());
        m.put("source_settings", p.sourceSettings());
        m.put("infrastructure", InfraDescription.asMap(p.infrastructure()));
        m.put("machine", Machine.describe());
        Files.writeString(
                reportJson,
                new com.fasterxml.jackson.databind.ObjectMapper()
                        .enable(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT)
                        .writeValueAsString(m));
    }
}
