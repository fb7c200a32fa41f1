package dev.cdclab.cli;

import dev.cdclab.config.Durations;
import dev.cdclab.format.Numbers;
import dev.cdclab.lab.experiment.PhaseEngine;
import dev.cdclab.lab.experiment.SecondSample;
import dev.cdclab.lab.report.InfraDescription;
import dev.cdclab.lab.report.PrefillProgress;
import dev.cdclab.lab.report.ProgressLine;
import dev.cdclab.lab.report.RunReport;
import dev.cdclab.load.run.LoadPriority;
import dev.cdclab.load.workload.Workload;
import dev.cdclab.load.workload.Workloads;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.orchestration.admin.AdminServer;
import dev.cdclab.orchestration.admin.AdminToken;
import dev.cdclab.streams.topology.NetChangeStats;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
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
            defaultValue = "60s",
            converter = Commands.DurationConverter.class,
            description =
                    "Load at the target rate before measuring, excluded from the results: the JVM compiles the pipeline's hot code in the first minute (default: ${DEFAULT-VALUE}; 0 = none).")
    Duration warmup;

    @Option(
            names = "--rate",
            paramLabel = "TX/S",
            description =
                    "Target transactions per second, open loop; 0 = as fast as possible (default: the"
                            + " workload's, one this machine class sustains: 1,000 for mix, about"
                            + " 4,000 row changes/s for W6, W7 and T1).")
    Double rate;

    private double targetRate;

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

    @Option(
            names = "--admin-port",
            defaultValue = "0",
            description =
                    "Port of the live page and /metrics on 127.0.0.1 while the run lasts; 0 = a"
                            + " free one (default: ${DEFAULT-VALUE}).")
    int adminPort;

    @Mixin PipelineOptions pipelineOptions;

    @Mixin LoadPriorityOption loadPriorityOption;

    private LoadPriority loadPriority;

    /** The initial load as the report gives it; null when Debezium read the tables. */
    static Map<String, Object> initialLoad(Pipeline p) {
        var r = p.initialLoad();
        if (r == null) {
            return null;
        }
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("rows", r.rows());
        m.put("seconds", Math.round(r.seconds() * 100) / 100.0);
        m.put("rows_per_s", Math.round(r.rowsPerSecond()));
        Map<String, Object> tables = new java.util.LinkedHashMap<>();
        r.tables()
                .forEach(
                        (t, l) -> {
                            Map<String, Object> v = new java.util.LinkedHashMap<>();
                            v.put("rows", l.rows());
                            v.put("seconds", Math.round(l.seconds() * 100) / 100.0);
                            v.put("rows_per_s", Math.round(l.rowsPerSecond()));
                            tables.put(t, v);
                        });
        m.put("tables", tables);
        return m;
    }

    @Override
    public Integer call() throws Exception {
        if (duration.isZero() || duration.isNegative()) {
            throw new IllegalArgumentException("--duration must be > 0");
        }
        if (rate != null && rate < 0) {
            throw new IllegalArgumentException("--rate must be >= 0");
        }
        PrintStream out = System.out;
        if (transactions < 0) {
            throw new IllegalArgumentException("--transactions must be >= 0");
        }
        Workload wl = knobs.create(workload, pipelineOptions.source);
        loadPriority = loadPriorityOption.priority(pipelineOptions.infraKind());
        double rate = this.rate != null ? this.rate : wl.defaultRate();
        targetRate = rate;
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
        AdminServer.requireFree(adminPort);
        Pipeline p = b.build();
        Commands.closeOnShutdown(p);
        try {
            out.println(
                    "starting "
                            + pipelineOptions.infraKind().label()
                            + " PostgreSQL, Kafka, Kafka Connect + Debezium, Streams, sink ...");
            p.start();
            AdminServer admin = AdminServer.forPipeline(p, adminPort, AdminToken.generate());
            Commands.closeOnShutdown(admin);
            out.println("live page " + admin.pageUrl() + "  metrics " + admin.url() + "/metrics");
            Duration snap = p.awaitCaughtUp(catchUpTimeout);
            out.printf(
                    Locale.ROOT,
                    "pipeline up in %.1f s; initial snapshot in the warehouse %.1f s later%n",
                    (System.nanoTime() - t0) / 1e9 - snap.toMillis() / 1000.0,
                    snap.toMillis() / 1000.0);
            if (!warmup.isZero() && !warmup.isNegative()) {
                out.printf(
                        Locale.ROOT,
                        "warm-up: %s at the target rate (excluded from the results), then the load"
                                + " (Ctrl-C stops everything)%n",
                        Durations.format(warmup));
            } else {
                out.println("load running (Ctrl-C stops everything)");
            }
            PhaseEngine engine =
                    PhaseEngine.onPipeline(
                                    new PhaseEngine.Plan(
                                            wl,
                                            knobs.threads,
                                            rate,
                                            warmup.isNegative() ? Duration.ZERO : warmup,
                                            duration,
                                            transactions,
                                            catchUpTimeout),
                                    p,
                                    work.resolve("latency.hlog"))
                            .loadPriority(loadPriority);
            PhaseEngine.Measurement m;
            try (ProgressLine progress = new ProgressLine(out, () -> progress(engine))) {
                m = engine.run();
            }
            if (!m.caughtUp()) {
                throw m.catchUpFailure();
            }
            out.printf(
                    Locale.ROOT,
                    "load done: %s transactions in %.1f s; the warehouse caught up %.1f s later%n",
                    Numbers.count(m.load().transactions()),
                    m.loadSeconds(),
                    m.catchUpSeconds());
            return report(out, p, wl, work, runId, prefilled[0], m);
        } finally {
            p.close();
        }
    }

    static String progress(PhaseEngine engine) {
        SecondSample s = engine.latest();
        String phase = engine.phase();
        PhaseEngine.LoadProgress lp = engine.loadProgress();
        String shortfall = lp == null ? "" : lp.shortfall();
        if (s == null || phase.equals("warmup") || phase.equals("settle")) {
            if (lp == null) {
                return String.format(Locale.ROOT, "%5.0fs | %s", engine.phaseSeconds(), phase);
            }
            return String.format(
                    Locale.ROOT,
                    "%5.0fs | %s | %s%s",
                    engine.phaseSeconds(),
                    phase,
                    lp.describe(),
                    shortfall);
        }
        return String.format(
                Locale.ROOT,
                "%5.0fs | %s | source %s ch/s | applied %s ch/s | backlog %s | e2e p50 %s p99 %s%s",
                s.second(),
                phase,
                Numbers.count(s.sourceChangesPerSecond()),
                Numbers.count(s.appliedPerSecond()),
                Numbers.count(s.backlog()),
                Double.isNaN(s.p50Ms()) ? "-" : Numbers.ms(s.p50Ms()),
                Double.isNaN(s.p99Ms()) ? "-" : Numbers.ms(s.p99Ms()),
                shortfall);
    }

    private int report(
            PrintStream out,
            Pipeline p,
            Workload wl,
            Path work,
            String runId,
            long prefilled,
            PhaseEngine.Measurement m)
            throws Exception {
        NetChangeStats ns = p.streams().stats();
        Map<String, Object> pipeline = pipelineOptions.settings();
        pipeline.put("warmup", Durations.format(warmup));
        pipeline.put("load_nice", loadPriority.nice());
        if (p.warehouseServer() != null) {
            Map<String, String> ws = p.warehouseServer().settings();
            pipeline.put("warehouse_fsync", ws.get("fsync"));
            pipeline.put("warehouse_synchronous_commit", ws.get("synchronous_commit"));
            pipeline.put("warehouse_max_wal_size", ws.get("max_wal_size"));
            pipeline.put("warehouse_checkpoint_timeout", ws.get("checkpoint_timeout"));
        }
        RunReport report =
                new RunReport(
                        new RunReport.Facts(
                                runId,
                                wl.name(),
                                wl.description(),
                                knobs.threads,
                                targetRate,
                                knobs.seed,
                                prefilled,
                                m.loadSeconds(),
                                m.load(),
                                ns.snapshotChanges(),
                                m.warmupChanges(),
                                m.capturedChanges(),
                                m.netApplied(),
                                m.vanished(),
                                m.late(),
                                m.deadLetters(),
                                m.rowsWritten(),
                                m.batches(),
                                m.tables(),
                                m.catchUpSeconds(),
                                p.sink().latency(),
                                p.sink().stats().applyMillis(),
                                m.cpu(),
                                p.sourceSettings(),
                                pipeline,
                                InfraDescription.asMap(p.infrastructure()),
                                p.captureSource()
                                        .jobReport()
                                        .map(dev.cdclab.capture.CaptureJobReport::asMap)
                                        .orElse(null),
                                m.verification(),
                                RunReport.Facts.keylessTables(
                                        p.captureSource().keylessTables(), m.verification()),
                                work.toString(),
                                initialLoad(p)));
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
