package dev.cdclab.pipeline.cli;

import dev.cdclab.config.Durations;
import dev.cdclab.load.run.LoadRunner;
import dev.cdclab.load.run.LoadStats;
import dev.cdclab.load.workload.Workload;
import dev.cdclab.load.workload.Workloads;
import dev.cdclab.pipeline.Pipeline;
import dev.cdclab.pipeline.report.InfraDescription;
import dev.cdclab.pipeline.report.Numbers;
import dev.cdclab.pipeline.report.PrefillProgress;
import dev.cdclab.pipeline.report.ProgressLine;
import dev.cdclab.pipeline.report.RateMeter;
import dev.cdclab.pipeline.report.RunReport;
import dev.cdclab.pipeline.verify.VerificationResult;
import dev.cdclab.sink.SinkStats;
import dev.cdclab.streams.topology.NetChangeStats;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code cdc-lab run}: the main job. */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = {
            "Start the embedded pipeline, drive a workload through it open loop, wait until the"
                    + " warehouse has caught up, compare it with the source and print a report.",
            "Exit code 0 when the warehouse matches the source, 1 when it does not."
        })
final class RunCommand implements Callable<Integer> {
    @Mixin WorkloadKnobs knobs;

    @Option(
            names = "--duration",
            paramLabel = "DURATION",
            defaultValue = "30s",
            converter = Commands.DurationConverter.class,
            description = "How long the workload runs (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(
            names = "--warmup",
            paramLabel = "DURATION",
            defaultValue = "30s",
            converter = Commands.DurationConverter.class,
            description =
                    "Load at the target rate before measuring, excluded from the results: the JVM compiles the pipeline's hot code in the first minute (default: ${DEFAULT-VALUE}; 0 = none).")
    Duration warmup;

    @Option(
            names = "--rate",
            paramLabel = "TX/S",
            defaultValue = "1000",
            description =
                    "Target transactions per second, open loop; 0 = as fast as possible (default: ${DEFAULT-VALUE}).")
    double rate;

    @Option(
            names = "--workload",
            defaultValue = "mix",
            description = "Workload: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).",
            completionCandidates = WorkloadNames.class)
    String workload;

    @Option(
            names = "--transactions",
            defaultValue = "0",
            description =
                    "Stop after this many transactions (0 = run for --duration); e.g. --workload T1 --tx-size 100000 --transactions 1.")
    long transactions;

    @Option(
            names = "--report-json",
            paramLabel = "FILE",
            description = "Also write the report as JSON to FILE.")
    Path reportJson;

    @Option(
            names = "--catch-up-timeout",
            paramLabel = "DURATION",
            defaultValue = "5m",
            converter = Commands.DurationConverter.class,
            description =
                    "How long to wait for the warehouse after the load (default: ${DEFAULT-VALUE}).")
    Duration catchUpTimeout;

    @Mixin PipelineOptions pipelineOptions;

    @Override
    public Integer call() throws Exception {
        if (duration.isZero() || duration.isNegative()) {
            throw new IllegalArgumentException("--duration must be > 0");
        }
        if (rate < 0) {
            throw new IllegalArgumentException("--rate must be >= 0");
        }
        PrintStream out = System.out;
        if (transactions < 0) {
            throw new IllegalArgumentException("--transactions must be >= 0");
        }
        Workload wl = knobs.create(workload, pipelineOptions.source);
        String runId = Commands.newRunId();
        Path work = Commands.workDir(pipelineOptions.workDir, runId, "run");
        Commands.logTo(work, "cdc-lab.log");
        out.printf(
                Locale.ROOT,
                "cdc-lab run %s: workload %s, %s at %s, %d threads%n",
                runId,
                wl.name(),
                Durations.format(duration),
                rate > 0 ? Numbers.rate(rate) + " tx/s" : "full speed",
                knobs.threads);
        out.println("work dir " + work);
        long t0 = System.nanoTime();
        long[] prefilled = {0};
        Pipeline.Builder b =
                Pipeline.builder()
                        .workDir(work)
                        .runId(runId)
                        .shutdownHooks(false)
                        .beforeCapture(
                                src -> {
                                    try (Connection c = src.connect()) {
                                        wl.createSchema(c);
                                        PrefillProgress bar =
                                                new PrefillProgress(out, wl.prefillRows());
                                        prefilled[0] = wl.prefill(c, bar);
                                        if (prefilled[0] > 0) {
                                            bar.done(prefilled[0]);
                                        }
                                    }
                                });
        pipelineOptions.apply(b);
        Pipeline p = b.build();
        Commands.closeOnShutdown(p);
        try {
            out.println(
                    "starting "
                            + pipelineOptions.infraKind().label()
                            + " PostgreSQL, Kafka, Kafka Connect + Debezium, Streams, sink ...");
            p.start();
            Duration snap = p.awaitCaughtUp(catchUpTimeout);
            out.printf(
                    Locale.ROOT,
                    "pipeline up in %.1f s; initial snapshot in the warehouse %.1f s later%n",
                    (System.nanoTime() - t0) / 1e9 - snap.toMillis() / 1000.0,
                    snap.toMillis() / 1000.0);
            long first = 0;
            if (!warmup.isZero() && !warmup.isNegative()) {
                out.printf(
                        Locale.ROOT,
                        "warm-up: %s at the target rate (excluded from the results) ...%n",
                        Durations.format(warmup));
                LoadRunner w =
                        new LoadRunner(
                                wl,
                                p::sourceConnection,
                                new LoadRunner.Options(knobs.threads, rate, warmup, 0, 0));
                w.run();
                first = w.issued();
                Duration settle = p.awaitCaughtUp(catchUpTimeout);
                out.printf(
                        Locale.ROOT,
                        "warm-up done: %s transactions; warehouse caught up %.1f s later%n",
                        Numbers.count(w.stats().transactions()),
                        settle.toMillis() / 1000.0);
            }
            return runLoad(out, p, wl, work, runId, prefilled[0], first);
        } finally {
            p.close();
        }
    }

    private int runLoad(
            PrintStream out,
            Pipeline p,
            Workload wl,
            Path work,
            String runId,
            long prefilled,
            long firstTransaction)
            throws Exception {
        NetChangeStats ns = p.streams().stats();
        SinkStats ss = p.sink().stats();
        long captured0 = ns.rawChanges();
        long netApplied0 = ss.netChanges();
        long raw0 = ss.rawChanges();
        long vanished0 = ns.vanished();
        long vanishedRaw0 = ns.vanishedRawChanges();
        long late0 = ns.late();
        long rows0 = ss.rowsWritten();
        long batches0 = ss.batches();
        Map<String, Long> tableRaw0 = new HashMap<>();
        ns.tables().forEach((t, c) -> tableRaw0.put(t, c.raw()));
        Map<String, Long> tableNet0 = new HashMap<>();
        ss.tables().forEach((t, c) -> tableNet0.put(t, c.net()));

        LoadRunner runner =
                new LoadRunner(
                        wl,
                        p::sourceConnection,
                        new LoadRunner.Options(
                                knobs.threads, rate, duration, transactions, firstTransaction));
        LoadStats ls = runner.stats();
        p.sink().latency().reset();
        p.sink().stats().resetApplyTimes();
        RateMeter sourceRate = new RateMeter(ls.sourceChanges());
        out.println("load running (Ctrl-C stops everything)");
        java.util.concurrent.atomic.AtomicReference<RuntimeException> failed =
                new java.util.concurrent.atomic.AtomicReference<>();
        try (AutoCloseable watch =
                        p.watch(
                                e -> {
                                    failed.set(e);
                                    runner.stop();
                                });
                ProgressLine progress =
                        new ProgressLine(
                                out,
                                () -> {
                                    long changes = ls.sourceChanges();
                                    long perSec = Math.round(sourceRate.perSecond(changes));
                                    long applied = ss.rawChanges() - raw0;
                                    long accounted =
                                            applied + (ns.vanishedRawChanges() - vanishedRaw0);
                                    Histogram recent = p.sink().latency().sinceLastCall();
                                    return String.format(
                                            Locale.ROOT,
                                            "%5.0fs | source %s ch/s | captured %s | applied %s | backlog"
                                                    + " %s | e2e p50 %s p99 %s",
                                            runner.elapsedSeconds(),
                                            Numbers.count(perSec),
                                            Numbers.count(ns.rawChanges() - captured0),
                                            Numbers.count(applied),
                                            Numbers.count(Math.max(0, changes - accounted)),
                                            recent.getTotalCount() == 0
                                                    ? "-"
                                                    : Numbers.ms(recent.getValueAtPercentile(50)),
                                            recent.getTotalCount() == 0
                                                    ? "-"
                                                    : Numbers.ms(recent.getValueAtPercentile(99)));
                                })) {
            runner.run();
        }
        if (failed.get() != null) {
            throw failed.get();
        }
        double loadSeconds = runner.elapsedSeconds();
        if (runner.firstError() != null && ls.transactions() == 0) {
            throw new IllegalStateException(
                    "every transaction failed: " + runner.firstError().getMessage());
        }
        out.printf(
                Locale.ROOT,
                "load done: %s transactions in %.1f s; waiting for the warehouse to catch up%n",
                Numbers.count(ls.transactions()),
                loadSeconds);
        Duration catchUp = p.awaitCaughtUp(catchUpTimeout);
        out.println("verifying warehouse against source ...");
        VerificationResult v = p.verify();

        List<RunReport.TableCounts> tables = new ArrayList<>();
        TreeSet<String> names = new TreeSet<>(ns.tables().keySet());
        names.addAll(ss.tables().keySet());
        for (String t : names) {
            long raw =
                    ns.tables().containsKey(t)
                            ? ns.tables().get(t).raw() - tableRaw0.getOrDefault(t, 0L)
                            : 0;
            long net =
                    ss.tables().containsKey(t)
                            ? ss.tables().get(t).net() - tableNet0.getOrDefault(t, 0L)
                            : 0;
            if (raw > 0 || net > 0) {
                tables.add(new RunReport.TableCounts(t, raw, net));
            }
        }
        Map<String, Object> pipeline = pipelineOptions.settings();
        pipeline.put("warmup", Durations.format(warmup));
        RunReport report =
                new RunReport(
                        new RunReport.Facts(
                                runId,
                                wl.name(),
                                wl.description(),
                                knobs.threads,
                                rate,
                                knobs.seed,
                                prefilled,
                                loadSeconds,
                                ls,
                                ns.snapshotChanges(),
                                captured0 - ns.snapshotChanges(),
                                ns.rawChanges() - captured0,
                                ss.netChanges() - netApplied0,
                                ns.vanished() - vanished0,
                                ns.late() - late0,
                                ns.deadLetters() + ss.malformed(),
                                ss.rowsWritten() - rows0,
                                ss.batches() - batches0,
                                tables,
                                catchUp.toMillis() / 1000.0,
                                p.sink().latency(),
                                p.sink().stats().applyMillis(),
                                p.sourceSettings(),
                                pipeline,
                                InfraDescription.asMap(p.infrastructure()),
                                p.captureSource()
                                        .jobReport()
                                        .map(dev.cdclab.capture.CaptureJobReport::asMap)
                                        .orElse(null),
                                v,
                                work.toString()));
        out.print(report.toText());
        String json = report.toJson();
        Files.writeString(work.resolve("report.json"), json);
        if (reportJson != null) {
            Path parent = reportJson.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(reportJson, json);
        }
        return report.verified() ? 0 : CdcLab.VERIFY_FAILED;
    }

    /** Workload names for help text. */
    static final class WorkloadNames extends ArrayList<String> {
        private static final long serialVersionUID = 1L;

        WorkloadNames() {
            super(Workloads.names());
        }
    }
}
