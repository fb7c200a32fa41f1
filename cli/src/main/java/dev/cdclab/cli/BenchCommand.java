package dev.cdclab.cli;

import dev.cdclab.config.Durations;
import dev.cdclab.config.SourceKind;
import dev.cdclab.format.JsonText;
import dev.cdclab.format.Numbers;
import dev.cdclab.lab.bench.BenchTarget;
import dev.cdclab.lab.bench.Comparison;
import dev.cdclab.lab.bench.PipelineTarget;
import dev.cdclab.lab.bench.RateLadder;
import dev.cdclab.lab.bench.StepTable;
import dev.cdclab.lab.report.InfraDescription;
import dev.cdclab.lab.report.Machine;
import dev.cdclab.load.workload.Workload;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.orchestration.StageSettings;
import dev.cdclab.orchestration.infra.InfraKind;
import dev.cdclab.orchestration.verify.VerificationResult;
import dev.cdclab.streams.NetChangeConfig;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
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
                    + " its p99 commit-to-warehouse latency is within --max-p99. A step the"
                    + " warehouse kept up with but whose source fell short of its rate is"
                    + " source-limited: it counts at the rate the source reached, and the ladder"
                    + " stops.",
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
                            + " --compare 400 to 3600 in steps of 400).")
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
            names = "--backlog",
            paramLabel = "CHANGES",
            defaultValue = "1000000",
            description =
                    "With --compare: after the ladder, commit about this many changes with capture"
                            + " stopped (the slot keeps them), start capture and measure the drain"
                            + " rate; 0 for no backlog phase (default: ${DEFAULT-VALUE}).")
    long backlog;

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

    @Mixin LoadPriorityOption loadPriorityOption;

    @Override
    public Integer call() throws Exception {
        List<Double> ladder =
                rates != null
                        ? rates
                        : compare != null
                                ? List.of(
                                        400.0, 800.0, 1200.0, 1600.0, 2000.0, 2400.0, 2800.0,
                                        3200.0, 3600.0)
                                : List.of(800.0, 1000.0, 1200.0, 1400.0, 1600.0);
        if (ladder.isEmpty() || ladder.stream().anyMatch(r -> r <= 0)) {
            throw new IllegalArgumentException("--rates must list rates > 0");
        }
        if (backlog < 0) {
            throw new IllegalArgumentException("--backlog must be >= 0");
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
                        compare != null,
                        loadPriorityOption.priority(pipelineOptions.infraKind()));
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
                        .beforeCapture(src -> Comparison.prepare(wl, src.connect()));
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
                            "cdc-lab", p, null, wl.tables(), GENERATOR_COLUMN, settings());
            RateLadder.Result result = new RateLadder(plan).run(target, wl, StepTable.printer(out));
            VerificationResult v = p.verify();
            var best = result.best();
            if (best.isEmpty()) {
                out.println("no step sustained");
            } else {
                out.printf(
                        Locale.ROOT,
                        "highest sustained: %s tx/s = %s row changes/s end to end, p99 %d ms%s%n",
                        Numbers.rate(best.get().txPerSecond()),
                        Numbers.rate(best.get().changesPerSecond()),
                        best.get().latency().getValueAtPercentile(99),
                        result.lowerBound() ? sourceLimited(result) : "");
            }
            out.println((v.matches() ? "verified: " : "NOT verified: ") + v.summary());
            out.println("pipeline " + PipelineOptions.line(settings()));
            out.println("source   " + PipelineOptions.line(p.sourceSettings()));
            out.println("infra    " + InfraDescription.line(p.infrastructure()));
            if (reportJson != null) {
                Map<String, Object> m = header(wl, plan);
                m.putAll(StepTable.toMap(result));
                m.put(
                        "highest_sustained_changes_per_s",
                        best.map(s -> Numbers.round3(s.changesPerSecond())).orElse(null));
                m.put(
                        "highest_sustained_source_limited",
                        best.isPresent() ? result.lowerBound() : null);
                m.put("verified", v.matches());
                m.put("pipeline", settings());
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

    /** Why the highest sustained rate is a lower bound: the last step's source fell short. */
    private static String sourceLimited(RateLadder.Result result) {
        RateLadder.Step last = result.steps().get(result.steps().size() - 1);
        return " (source-limited: at the last step the source reached "
                + Numbers.rate(last.txPerSecond())
                + " of "
                + Numbers.rate(last.target())
                + " tx/s, and the warehouse kept up)";
    }

    private int compare(Workload wl, RateLadder.Plan plan, String runId, Path work)
            throws Exception {
        if (pipelineOptions.infraKind() != InfraKind.EMBEDDED) {
            throw new IllegalArgumentException(
                    "--compare runs every pipeline embedded; leave out --infra");
        }
        if (pipelineOptions.source != SourceKind.POSTGRES) {
            throw new IllegalArgumentException("--compare needs --source postgres");
        }
        if (pipelineOptions.warehouseUrl != null
                || pipelineOptions.warehouse != PipelineOptions.Warehouse.duckdb) {
            throw new IllegalArgumentException(
                    "--compare starts its own warehouses; leave out --warehouse-url and"
                            + " --warehouse");
        }
        PrintStream out = System.out;
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
        Comparison.Result result =
                Comparison.run(
                        new Comparison.Settings(
                                wl,
                                plan,
                                pipelineOptions.durable,
                                StageSettings.of(pipelineOptions.overrides).capture(),
                                standardTasks,
                                pipelineOptions::apply,
                                settings(),
                                backlog),
                        work,
                        runId,
                        out,
                        Commands::closeOnShutdown);
        result.print(plan.fixedRate(), out);
        out.println("pipeline " + PipelineOptions.line(settings()));
        if (reportJson != null) {
            Map<String, Object> m = header(wl, plan);
            m.putAll(result.asMap());
            m.put("pipeline", settings());
            m.put("machine", Machine.describe());
            writeJson(m);
        }
        return result.ok() ? 0 : CdcLab.VERIFY_FAILED;
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

    /** The pipeline settings the report states, with the load's priority. */
    private Map<String, Object> settings() {
        Map<String, Object> m = pipelineOptions.settings();
        m.put("load_nice", loadPriorityOption.loadNice);
        return m;
    }
}
