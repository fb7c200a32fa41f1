package dev.cdclab.cli;

import dev.cdclab.config.Durations;
import dev.cdclab.config.SourceKind;
import dev.cdclab.format.JsonText;
import dev.cdclab.format.Numbers;
import dev.cdclab.lab.bench.BenchTarget;
import dev.cdclab.lab.bench.PipelineTarget;
import dev.cdclab.lab.bench.RateLadder;
import dev.cdclab.lab.bench.StandardPipeline;
import dev.cdclab.lab.bench.StepTable;
import dev.cdclab.lab.report.InfraDescription;
import dev.cdclab.lab.report.Machine;
import dev.cdclab.load.workload.Workload;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.orchestration.StageSettings;
import dev.cdclab.orchestration.infra.InfraKind;
import dev.cdclab.orchestration.infra.WarehouseServer;
import dev.cdclab.orchestration.verify.VerificationResult;
import dev.cdclab.streams.NetChangeConfig;
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
            "With --compare debezium-jdbc, runs the same ladder, one after another, on the"
                    + " standard pipeline (Debezium -> Kafka -> Debezium's JDBC sink connector ->"
                    + " PostgreSQL), on cdc-lab into PostgreSQL and on cdc-lab into DuckDB, and"
                    + " prints them side by side with the ratios.",
            "Prints one line per step and the highest sustained rate; exit 0 when some step was"
                    + " sustained and the warehouse matches the source at the end."
        })
final class BenchCommand implements Callable<Integer> {
    private static final String GENERATOR_COLUMN = NetChangeConfig.GENERATOR_COLUMN.defaultValue();

    /** Pipelines bench can compare cdc-lab with. */
    enum Baseline {
        /** Debezium's PostgreSQL connector and Debezium's JDBC sink connector. */
        DEBEZIUM_JDBC
    }

    @Mixin WorkloadKnobs knobs;

    @Option(
            names = "--rates",
            split = ",",
            paramLabel = "TX/S",
            description =
                    "Target rates to step through, tx/s (default: 800,1000,1200,1400,1600; with"
                            + " --compare 400,800,1200,1600,2000,2400).")
    List<Double> rates;

    @Option(
            names = "--fixed-rate",
            paramLabel = "TX/S",
            description =
                    "A step at this rate before the ladder, for latency and CPU at a moderate load"
                            + " (default: none; with --compare 500).")
    Double fixedRate;

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
            names = "--compare",
            paramLabel = "PIPELINE",
            converter = BaselineConverter.class,
            description =
                    "debezium-jdbc: measure the standard pipeline (Debezium's JDBC sink connector"
                            + " into PostgreSQL) beside cdc-lab into PostgreSQL and into DuckDB.")
    Baseline compare;

    @Option(
            names = "--standard-tasks",
            paramLabel = "N",
            defaultValue = "1",
            description =
                    "With --compare: tasks.max of Debezium's JDBC sink, at most one per table (one"
                            + " topic each). 1 measured best on 2 cores (default: ${DEFAULT-VALUE}).")
    int standardTasks;

    @Option(
            names = "--workload",
            defaultValue = "mix",
            description = "Workload: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).",
            completionCandidates = RunCommand.WorkloadNames.class)
    String workload;

    @Option(
            names = "--report-json",
            paramLabel = "FILE",
            description = "Write the steps as JSON to FILE.")
    Path reportJson;

    @Mixin PipelineOptions pipelineOptions;

    @Override
    public Integer call() throws Exception {
        List<Double> ladder =
                rates != null
                        ? rates
                        : compare != null
                                ? List.of(400.0, 800.0, 1200.0, 1600.0, 2000.0, 2400.0)
                                : List.of(800.0, 1000.0, 1200.0, 1400.0, 1600.0);
        if (ladder.isEmpty() || ladder.stream().anyMatch(r -> r <= 0)) {
            throw new IllegalArgumentException("--rates must list rates > 0");
        }
        if (standardTasks < 1) {
            throw new IllegalArgumentException("--standard-tasks must be >= 1");
        }
        double fixed = fixedRate != null ? fixedRate : compare != null ? 500 : 0;
        if (fixed < 0) {
            throw new IllegalArgumentException("--fixed-rate must be > 0");
        }
        Workload wl = knobs.create(workload, pipelineOptions.source);
        RateLadder.Plan plan =
                new RateLadder.Plan(
                        knobs.threads,
                        fixed,
                        ladder,
                        step,
                        warmup,
                        maxCatchUp,
                        maxP99,
                        Duration.ofMinutes(3),
                        compare != null,
                        compare != null);
        String runId = Commands.newRunId();
        Path work = Commands.workDir(pipelineOptions.workDir, runId, "bench");
        Commands.logTo(work, "cdc-lab.log");
        return compare == null ? bench(wl, plan, runId, work) : compare(wl, plan, runId, work);
    }

    private int bench(Workload wl, RateLadder.Plan plan, String runId, Path work) throws Exception {
        PrintStream out = System.out;
        Pipeline.Builder b =
                Pipeline.builder()
                        .workDir(work)
                        .runId(runId)
                        .shutdownHooks(false)
                        .beforeCapture(src -> prepare(wl, src.connect()));
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
            BenchTarget target =
                    new PipelineTarget(
                            "cdc-lab",
                            p,
                            null,
                            wl.tables(),
                            GENERATOR_COLUMN,
                            pipelineOptions.settings());
            RateLadder.Result result = new RateLadder(plan).run(target, wl, printer(out));
            VerificationResult v = p.verify();
            var best = result.best();
            if (best.isEmpty()) {
                out.println("no step sustained");
            } else {
                out.printf(
                        Locale.ROOT,
                        "highest sustained: %s tx/s = %s row changes/s end to end, p99 %d ms%n",
                        Numbers.rate(best.get().txPerSecond()),
                        Numbers.rate(best.get().changesPerSecond()),
                        best.get().latency().getValueAtPercentile(99));
            }
            out.println((v.matches() ? "verified: " : "NOT verified: ") + v.summary());
            out.println("pipeline " + PipelineOptions.line(pipelineOptions.settings()));
            out.println("source   " + PipelineOptions.line(p.sourceSettings()));
            out.println("infra    " + InfraDescription.line(p.infrastructure()));
            if (reportJson != null) {
                Map<String, Object> m = header(wl, plan);
                m.putAll(StepTable.toMap(result));
                m.put(
                        "highest_sustained_changes_per_s",
                        best.map(s -> Numbers.round3(s.changesPerSecond())).orElse(null));
                m.put("verified", v.matches());
                m.put("pipeline", pipelineOptions.settings());
                m.put("source_settings", p.sourceSettings());
                m.put("infrastructure", InfraDescription.asMap(p.infrastructure()));
                m.put("machine", Machine.describe());
                writeJson(m);
            }
            return best.isPresent() && v.matches() ? 0 : CdcLab.VERIFY_FAILED;
        } finally {
            p.close();
        }
    }

    /** One pipeline of a comparison: how to start it, and what it measured. */
    private record Arm(String key, String label, String shortLabel, ArmStarter starter) {}

    @FunctionalInterface
    private interface ArmStarter {
        BenchTarget start(Path dir, String id) throws Exception;
    }

    /** What one arm measured, or why it did not. */
    private record ArmResult(
            Arm arm,
            RateLadder.Result ladder,
            Boolean verified,
            String error,
            double startSeconds,
            Map<String, Object> settings) {}

    private int compare(Workload wl, RateLadder.Plan plan, String runId, Path work)
            throws Exception {
        if (pipelineOptions.infraKind() != InfraKind.EMBEDDED) {
            throw new IllegalArgumentException(
                    "--compare runs every pipeline embedded; leave out --infra");
        }
        if (pipelineOptions.source != SourceKind.POSTGRES) {
            throw new IllegalArgumentException("--compare needs --source postgres");
        }
        if (pipelineOptions.warehouseUrl != null) {
            throw new IllegalArgumentException(
                    "--compare starts its own warehouses; leave out --warehouse-url");
        }
        PrintStream out = System.out;
        Map<String, String> captureOverrides =
                StageSettings.of(pipelineOptions.overrides).capture();
        List<Arm> arms =
                List.of(
                        new Arm(
                                "baseline",
                                "standard: Debezium -> Kafka -> Debezium JDBC sink -> PostgreSQL",
                                "standard (JDBC sink) -> PostgreSQL",
                                (dir, id) ->
                                        StandardPipeline.start(
                                                new StandardPipeline.Settings(
                                                        dir,
                                                        id,
                                                        pipelineOptions.durable,
                                                        src -> prepare(wl, src.connect()),
                                                        captureOverrides,
                                                        wl.tables(),
                                                        GENERATOR_COLUMN,
                                                        standardTasks))),
                        new Arm(
                                "ours",
                                "cdc-lab: Debezium -> Kafka -> net changes -> PostgreSQL",
                                "cdc-lab -> PostgreSQL",
                                (dir, id) -> startOurs(wl, dir, id, true)),
                        new Arm(
                                "ours_duckdb",
                                "cdc-lab: Debezium -> Kafka -> net changes -> DuckDB",
                                "cdc-lab -> DuckDB",
                                (dir, id) -> startOurs(wl, dir, id, false)));
        out.printf(
                Locale.ROOT,
                "cdc-lab bench --compare debezium-jdbc %s: workload %s, %d threads, fixed %s tx/s,"
                        + " steps of %s, machine %s%n",
                runId,
                wl.name(),
                knobs.threads,
                Numbers.rate(plan.fixedRate()),
                Durations.format(step),
                Machine.oneLine());
        List<ArmResult> results = new ArrayList<>();
        for (int i = 0; i < arms.size(); i++) {
            Arm arm = arms.get(i);
            out.printf(Locale.ROOT, "%n[%d/%d] %s%n", i + 1, arms.size(), arm.label());
            results.add(runArm(arm, wl, plan, work.resolve(arm.key()), runId + i, out));
        }
        printComparison(results, plan, out);
        if (reportJson != null) {
            Map<String, Object> m = header(wl, plan);
            m.put("compare", "debezium-jdbc");
            for (ArmResult r : results) {
                Map<String, Object> a = new LinkedHashMap<>();
                a.put("pipeline", r.arm().label());
                if (r.ladder() != null) {
                    a.putAll(StepTable.toMap(r.ladder()));
                } else {
                    a.put("sustained_changes_per_s", null);
                }
                a.put("verified", r.verified());
                a.put("error", r.error());
                a.put("start_s", Numbers.round3(r.startSeconds()));
                a.put("settings", r.settings());
                m.put(r.arm().key(), a);
            }
            m.put("ratio", ratio(results.get(1), results.get(0)));
            m.put("ratio_duckdb", ratio(results.get(2), results.get(0)));
            m.put("pipeline", pipelineOptions.settings());
            m.put("machine", Machine.describe());
            writeJson(m);
        }
        boolean ok =
                results.stream()
                        .allMatch(
                                r ->
                                        r.error() == null
                                                && Boolean.TRUE.equals(r.verified())
                                                && r.ladder().best().isPresent());
        return ok ? 0 : CdcLab.VERIFY_FAILED;
    }

    private BenchTarget startOurs(Workload wl, Path dir, String id, boolean postgres) {
        WarehouseServer wh =
                postgres
                        ? WarehouseServer.start(
                                dir.resolve("warehouse-postgres"),
                                dir.resolve("logs/warehouse-postgres.log"),
                                pipelineOptions.durable)
                        : null;
        try {
            Pipeline.Builder b =
                    Pipeline.builder()
                            .workDir(dir)
                            .runId(id)
                            .shutdownHooks(false)
                            .beforeCapture(src -> prepare(wl, src.connect()));
            pipelineOptions.apply(b);
            Map<String, Object> settings = new LinkedHashMap<>(pipelineOptions.settings());
            if (wh != null) {
                b.warehouseUrl(wh.jdbcUrl())
                        .sink("warehouse.user", wh.user())
                        .sink("warehouse.password", wh.password());
                settings.put("warehouse", "postgresql");
                settings.put("warehouse_settings", wh.settings());
            }
            Pipeline p = b.start();
            PipelineTarget t =
                    new PipelineTarget(
                            postgres ? "cdc-lab -> postgresql" : "cdc-lab -> duckdb",
                            p,
                            wh,
                            wl.tables(),
                            GENERATOR_COLUMN,
                            settings);
            settings.put("source_settings", p.sourceSettings());
            p.awaitCaughtUp(Duration.ofMinutes(10));
            return t;
        } catch (RuntimeException e) {
            if (wh != null) {
                wh.close();
            }
            throw e;
        }
    }

    private ArmResult runArm(
            Arm arm, Workload wl, RateLadder.Plan plan, Path dir, String id, PrintStream out) {
        long t0 = System.nanoTime();
        BenchTarget target = null;
        try {
            Files.createDirectories(dir.resolve("logs"));
            target = arm.starter().start(dir, id);
            Commands.closeOnShutdown(target);
            double started = (System.nanoTime() - t0) / 1e9;
            out.printf(
                    Locale.ROOT,
                    "up and caught up with the prefill in %s s%n",
                    Numbers.fixed2(started));
            RateLadder.Result r = new RateLadder(plan).run(target, wl, printer(out));
            Boolean verified = null;
            if (r.caughtUp()) {
                VerificationResult v = target.verify();
                verified = v.matches();
                out.println((v.matches() ? "verified: " : "NOT verified: ") + v.summary());
            } else {
                out.println("not verified: the warehouse did not catch up");
            }
            return new ArmResult(arm, r, verified, null, started, target.settings());
        } catch (Exception e) {
            String msg = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            out.println("failed: " + msg);
            return new ArmResult(
                    arm,
                    null,
                    null,
                    msg,
                    (System.nanoTime() - t0) / 1e9,
                    target == null ? Map.of() : target.settings());
        } finally {
            if (target != null) {
                target.close();
            }
        }
    }

    private void printComparison(List<ArmResult> results, RateLadder.Plan plan, PrintStream out) {
        out.println();
        out.printf(
                Locale.ROOT,
                "%-34s | %14s | %12s | %12s | %28s | %8s%n",
                "at " + Numbers.rate(plan.fixedRate()) + " tx/s (latency, rows, CPU)",
                "sustained ch/s",
                "p50 / p99 ms",
                "rows written",
                "CPU s per M changes",
                "verified");
        for (ArmResult r : results) {
            RateLadder.Step f = r.ladder() == null ? null : r.ladder().fixed();
            out.printf(
                    Locale.ROOT,
                    "%-34s | %14s | %12s | %12s | %28s | %8s%n",
                    r.arm().shortLabel(),
                    r.ladder() == null
                            ? "failed"
                            : r.ladder()
                                    .best()
                                    .map(s -> Numbers.rate(s.changesPerSecond()))
                                    .orElse("none"),
                    f == null
                            ? "-"
                            : f.latency().getValueAtPercentile(50)
                                    + " / "
                                    + f.latency().getValueAtPercentile(99),
                    f == null || f.rowsWritten() < 0 ? "-" : Numbers.count(f.rowsWritten()),
                    f == null
                            ? "-"
                            : String.format(
                                    Locale.ROOT,
                                    "%.0f (JVM %.0f, PG %.0f)",
                                    f.machineCpuPerMillion(),
                                    f.jvmCpuPerMillion(),
                                    f.postgresCpuPerMillion()),
                    r.verified() == null ? "-" : r.verified() ? "yes" : "NO");
        }
        Double ratio = ratio(results.get(1), results.get(0));
        Double ratioDuck = ratio(results.get(2), results.get(0));
        out.printf(
                Locale.ROOT,
                "ratio cdc-lab/standard, sustained changes/s: %s into PostgreSQL, %s into DuckDB%n",
                ratio == null ? "n/a" : Numbers.fixed2(ratio) + "x",
                ratioDuck == null ? "n/a" : Numbers.fixed2(ratioDuck) + "x");
        out.println("pipeline " + PipelineOptions.line(pipelineOptions.settings()));
    }

    private static Double ratio(ArmResult ours, ArmResult baseline) {
        if (ours.ladder() == null || baseline.ladder() == null) {
            return null;
        }
        var o = ours.ladder().best();
        var b = baseline.ladder().best();
        if (o.isEmpty() || b.isEmpty()) {
            return null;
        }
        return Numbers.round3(o.get().changesPerSecond() / b.get().changesPerSecond());
    }

    private static RateLadder.Listener printer(PrintStream out) {
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
            public void step(RateLadder.Step s) {
                if (!headed) {
                    out.println(StepTable.header());
                    headed = true;
                }
                out.println(StepTable.row(s));
            }
        };
    }

    private static void prepare(Workload wl, Connection connection) throws Exception {
        try (Connection c = connection) {
            wl.createSchema(c);
            wl.prefill(c, n -> {});
        }
    }

    private Map<String, Object> header(Workload wl, RateLadder.Plan plan) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("workload", wl.name());
        m.put("threads", knobs.threads);
        m.put("step", Durations.format(step));
        m.put("warmup", Durations.format(warmup));
        m.put("fixed_rate_tx_per_s", plan.fixedRate() > 0 ? plan.fixedRate() : null);
        m.put("rates_tx_per_s", plan.rates());
        m.put("max_catch_up", Durations.format(maxCatchUp));
        m.put("max_p99", Durations.format(maxP99));
        return m;
    }

    private void writeJson(Map<String, Object> m) throws Exception {
        JsonText.write(reportJson, m);
    }

    /** {@code debezium-jdbc}. */
    static final class BaselineConverter implements picocli.CommandLine.ITypeConverter<Baseline> {
        @Override
        public Baseline convert(String value) {
            if (value.trim().equalsIgnoreCase("debezium-jdbc")) {
                return Baseline.DEBEZIUM_JDBC;
            }
            throw new picocli.CommandLine.TypeConversionException(
                    "'" + value + "' is not a pipeline to compare with (debezium-jdbc)");
        }
    }
}
