package dev.cdclab.lab.bench;

import dev.cdclab.config.OneLineError;
import dev.cdclab.format.Numbers;
import dev.cdclab.load.workload.Workload;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.orchestration.infra.WarehouseServer;
import dev.cdclab.orchestration.verify.VerificationResult;
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
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The same workload and rate ladder on the standard pipeline (Debezium's JDBC sink into PostgreSQL)
 * and on cdc-lab into PostgreSQL and into DuckDB, one after another, each on embedded services of
 * its own; what each sustained, its latency and CPU at the fixed rate, and the ratios.
 */
public final class Comparison {
    private static final String GENERATOR_COLUMN =
            dev.cdclab.streams.NetChangeConfig.GENERATOR_COLUMN.defaultValue();

    /**
     * What a comparison runs.
     *
     * @param captureSettings capture settings for every arm (the standard pipeline's connector too)
     * @param standardTasks tasks of the standard pipeline's JDBC sink connector
     * @param ours puts the cdc-lab pipeline's settings on a builder
     * @param oursSettings those settings, as the report states them
     * @param backlogChanges about how many changes the backlog phase commits with capture stopped,
     *     after the ladder; 0 for no such phase
     */
    public record Settings(
            Workload workload,
            RateLadder.Plan plan,
            boolean durable,
            Map<String, String> captureSettings,
            int standardTasks,
            UnaryOperator<Pipeline.Builder> ours,
            Map<String, Object> oursSettings,
            long backlogChanges) {}

    /** One pipeline of a comparison. */
    public record Arm(String key, String label, String shortLabel) {}

    /** What one arm measured, or why it did not. */
    public record ArmResult(
            Arm arm,
            RateLadder.Result ladder,
            Boolean verified,
            String error,
            double startSeconds,
            InitialLoad initialLoad,
            Map<String, Object> settings,
            BacklogDrain.Drain drain) {

        /** An arm without a backlog phase. */
        public ArmResult(
                Arm arm,
                RateLadder.Result ladder,
                Boolean verified,
                String error,
                double startSeconds,
                InitialLoad initialLoad,
                Map<String, Object> settings) {
            this(arm, ladder, verified, error, startSeconds, initialLoad, settings, null);
        }

        /** Whether it ran, verified and sustained a step. */
        public boolean ok() {
            return error == null && Boolean.TRUE.equals(verified) && ladder.best().isPresent();
        }
    }

    /**
     * The initial-load phase of an arm: from the end of the prefill (the tables hold their rows,
     * capture not started) to the warehouse holding every row, start-up included.
     *
     * @param rows the rows the prefill wrote
     * @param seconds from the end of the prefill until the warehouse had caught up with it
     */
    public record InitialLoad(long rows, double seconds) {
        public double rowsPerSecond() {
            return seconds > 0 ? rows / seconds : 0;
        }
    }

    /** The arms' results: the standard pipeline, cdc-lab into PostgreSQL, into DuckDB. */
    public record Result(List<ArmResult> arms) {
        /** cdc-lab into PostgreSQL over the standard pipeline, in sustained changes/s. */
        public Double ratio() {
            return ratio(arms.get(1), arms.get(0));
        }

        /** cdc-lab into DuckDB over the standard pipeline, in sustained changes/s. */
        public Double ratioDuckDb() {
            return ratio(arms.get(2), arms.get(0));
        }

        /**
         * The standard pipeline's initial-load seconds over cdc-lab's into PostgreSQL (how many
         * times faster); null when either has none.
         */
        public Double initialLoadSpeedup() {
            return speedup(arms.get(1), arms.get(0));
        }

        /** The same into DuckDB. */
        public Double initialLoadSpeedupDuckDb() {
            return speedup(arms.get(2), arms.get(0));
        }

        private static Double speedup(ArmResult ours, ArmResult standard) {
            if (ours.initialLoad() == null
                    || standard.initialLoad() == null
                    || ours.initialLoad().rows() == 0
                    || ours.initialLoad().seconds() <= 0) {
                return null;
            }
            return Numbers.round3(standard.initialLoad().seconds() / ours.initialLoad().seconds());
        }

        /**
         * cdc-lab's drain rate into PostgreSQL over the standard pipeline's, for the same backlog;
         * null when either has none.
         */
        public Double drainRatio() {
            return drainRatio(arms.get(1), arms.get(0));
        }

        /** The same into DuckDB. */
        public Double drainRatioDuckDb() {
            return drainRatio(arms.get(2), arms.get(0));
        }

        private static Double drainRatio(ArmResult ours, ArmResult standard) {
            if (ours.drain() == null
                    || standard.drain() == null
                    || standard.drain().changesPerSecond() <= 0) {
                return null;
            }
            return Numbers.round3(
                    ours.drain().changesPerSecond() / standard.drain().changesPerSecond());
        }

        /** Whether every arm ran, verified and sustained a step. */
        public boolean ok() {
            return arms.stream().allMatch(ArmResult::ok);
        }

        /** The arms and ratios for a JSON report. */
        public Map<String, Object> asMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("compare", "debezium-jdbc");
            for (ArmResult r : arms) {
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
                if (r.initialLoad() != null) {
                    a.put("initial_load_rows", r.initialLoad().rows());
                    a.put("initial_load_s", Numbers.round3(r.initialLoad().seconds()));
                    a.put("initial_load_rows_per_s", Math.round(r.initialLoad().rowsPerSecond()));
                }
                if (r.drain() != null) {
                    a.put("backlog", r.drain().asMap());
                }
                a.put("settings", r.settings());
                m.put(r.arm().key(), a);
            }
            m.put("ratio", ratio());
            m.put("ratio_bound", bound(arms.get(1), arms.get(0)));
            m.put("ratio_duckdb", ratioDuckDb());
            m.put("ratio_duckdb_bound", bound(arms.get(2), arms.get(0)));
            m.put("initial_load_speedup", initialLoadSpeedup());
            m.put("initial_load_speedup_duckdb", initialLoadSpeedupDuckDb());
            m.put("drain_ratio", drainRatio());
            m.put("drain_ratio_duckdb", drainRatioDuckDb());
            return m;
        }

        /** The side-by-side table at the fixed rate, and the ratios. */
        public void print(double fixedRate, PrintStream out) {
            out.println();
            out.printf(
                    Locale.ROOT,
                    "%-34s | %14s | %12s | %12s | %28s | %8s%n",
                    "at " + Numbers.rate(fixedRate) + " tx/s (latency, rows, CPU)",
                    "sustained ch/s",
                    "p50 / p99 ms",
                    "rows written",
                    "CPU s per M changes",
                    "verified");
            for (ArmResult r : arms) {
                RateLadder.Step f = r.ladder() == null ? null : r.ladder().fixed();
                out.printf(
                        Locale.ROOT,
                        "%-34s | %14s | %12s | %12s | %28s | %8s%n",
                        r.arm().shortLabel(),
                        r.ladder() == null
                                ? "failed"
                                : r.ladder()
                                        .best()
                                        .map(
                                                s ->
                                                        (r.ladder().lowerBound() ? ">= " : "")
                                                                + Numbers.rate(
                                                                        s.changesPerSecond()))
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
            printEnded(out);
            Double ratio = ratio();
            Double ratioDuck = ratioDuckDb();
            out.printf(
                    Locale.ROOT,
                    "ratio cdc-lab/standard, sustained changes/s: %s into PostgreSQL, %s into"
                            + " DuckDB%n",
                    ratioText(ratio, bound(arms.get(1), arms.get(0))),
                    ratioText(ratioDuck, bound(arms.get(2), arms.get(0))));
            printInitialLoad(out);
            printDrain(out);
            if (arms.stream().anyMatch(r -> r.ladder() != null && r.ladder().lowerBound())) {
                out.println(
                        ">= : the pipeline kept up with all the source issued at its highest step,"
                                + " and the source, sharing the machine, fell short of the step's"
                                + " rate");
            }
        }

        /** Each arm's backlog drain, and the ratios of the rates; nothing without the phase. */
        private void printDrain(PrintStream out) {
            if (arms.stream().allMatch(r -> r.drain() == null)) {
                return;
            }
            List<String> each = new ArrayList<>();
            for (ArmResult r : arms) {
                BacklogDrain.Drain d = r.drain();
                each.add(
                        d == null
                                ? r.arm().shortLabel() + " -"
                                : String.format(
                                        Locale.ROOT,
                                        "%s %s changes in %s s (%s changes/s, CPU s per M"
                                                + " changes %.0f)",
                                        r.arm().shortLabel(),
                                        Numbers.count(d.changes()),
                                        Numbers.fixed2(d.seconds()),
                                        Numbers.count(Math.round(d.changesPerSecond())),
                                        d.cpuPerMillion()));
            }
            out.println(
                    "backlog drained, capture started after it was committed: "
                            + String.join("; ", each));
            out.printf(
                    Locale.ROOT,
                    "drain rate cdc-lab/standard: %s into PostgreSQL, %s into DuckDB%n",
                    drainRatio() == null ? "-" : Numbers.fixed2(drainRatio()) + "x",
                    drainRatioDuckDb() == null ? "-" : Numbers.fixed2(drainRatioDuckDb()) + "x");
        }

        /** Each arm's initial load, and how many times faster cdc-lab's were. */
        private void printInitialLoad(PrintStream out) {
            List<String> each = new ArrayList<>();
            for (ArmResult r : arms) {
                InitialLoad l = r.initialLoad();
                each.add(
                        l == null
                                ? r.arm().shortLabel() + " -"
                                : String.format(
                                        Locale.ROOT,
                                        "%s %s s (%s rows/s)",
                                        r.arm().shortLabel(),
                                        Numbers.fixed2(l.seconds()),
                                        Numbers.count(Math.round(l.rowsPerSecond()))));
            }
            InitialLoad rows = arms.get(0).initialLoad();
            out.printf(
                    Locale.ROOT,
                    "initial load of the %s prefilled rows, from the prefill's end to the warehouse"
                            + " holding them: %s%n",
                    rows == null ? "-" : Numbers.count(rows.rows()),
                    String.join("; ", each));
            out.printf(
                    Locale.ROOT,
                    "initial load cdc-lab/standard, times faster: %s into PostgreSQL, %s into"
                            + " DuckDB%n",
                    initialLoadSpeedup() == null ? "-" : Numbers.fixed2(initialLoadSpeedup()),
                    initialLoadSpeedupDuckDb() == null
                            ? "-"
                            : Numbers.fixed2(initialLoadSpeedupDuckDb()));
        }

        /**
         * Of each arm's CPU, the processes that ended during the fixed step: the load's source
         * sessions, which close with the step. The same load in every arm, so they say how much of
         * the difference between the arms is the pipelines.
         */
        private void printEnded(PrintStream out) {
            List<String> ended = new ArrayList<>();
            List<String> without = new ArrayList<>();
            for (ArmResult r : arms) {
                RateLadder.Step f = r.ladder() == null ? null : r.ladder().fixed();
                ended.add(f == null ? "-" : perMillion(f.endedCpuPerMillion()));
                without.add(
                        f == null
                                ? "-"
                                : perMillion(f.machineCpuPerMillion() - f.endedCpuPerMillion()));
            }
            out.println(
                    "CPU s per M changes of processes that ended in the step (mostly the load's"
                            + " source sessions), in the order above: "
                            + String.join(" / ", ended)
                            + "; the rest: "
                            + String.join(" / ", without));
        }

        private static String ratioText(Double ratio, String bound) {
            if (ratio == null) {
                return "n/a";
            }
            return switch (bound) {
                case "at_least" -> ">= " + Numbers.fixed2(ratio) + "x";
                case "at_most" -> "<= " + Numbers.fixed2(ratio) + "x";
                case "undetermined" -> "not measured (both source-limited)";
                default -> Numbers.fixed2(ratio) + "x";
            };
        }

        /**
         * What a ratio of two highest sustained rates says: a ladder that ended source-limited
         * gives only a lower bound of its pipeline's, so the ratio is exact, a lower bound ({@code
         * at_least}), an upper bound ({@code at_most}), or {@code undetermined} when both ladders
         * ended so; null without a ratio.
         */
        private static String bound(ArmResult ours, ArmResult baseline) {
            if (ratio(ours, baseline) == null) {
                return null;
            }
            boolean o = ours.ladder().lowerBound();
            boolean b = baseline.ladder().lowerBound();
            return o && b ? "undetermined" : o ? "at_least" : b ? "at_most" : "exact";
        }

        private static String perMillion(double seconds) {
            return String.format(Locale.ROOT, "%.0f", seconds);
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
    }

    private static final List<Arm> ARMS =
            List.of(
                    new Arm(
                            "baseline",
                            "standard: Debezium -> Kafka -> Debezium JDBC sink -> PostgreSQL",
                            "standard (JDBC sink) -> PostgreSQL"),
                    new Arm(
                            "ours",
                            "cdc-lab: Debezium -> Kafka -> net changes -> PostgreSQL",
                            "cdc-lab -> PostgreSQL"),
                    new Arm(
                            "ours_duckdb",
                            "cdc-lab: Debezium -> Kafka -> net changes -> DuckDB",
                            "cdc-lab -> DuckDB"));

    /** How long a backlog may take to drain: a million changes at a few thousand a second. */
    private static final Duration BACKLOG_TIMEOUT = Duration.ofMinutes(20);

    private final Settings settings;
    private final Consumer<AutoCloseable> closeOnShutdown;

    private Comparison(Settings settings, Consumer<AutoCloseable> closeOnShutdown) {
        this.settings = settings;
        this.closeOnShutdown = closeOnShutdown;
    }

    /**
     * Runs every arm in a directory of its own under {@code work}, printing progress to {@code
     * out}; an arm that fails is reported as such and the next one runs.
     *
     * @param closeOnShutdown takes each arm once started, so a stopped process closes it
     */
    public static Result run(
            Settings settings,
            Path work,
            String runId,
            PrintStream out,
            Consumer<AutoCloseable> closeOnShutdown) {
        Comparison c = new Comparison(settings, closeOnShutdown);
        List<ArmResult> results = new ArrayList<>();
        for (int i = 0; i < ARMS.size(); i++) {
            Arm arm = ARMS.get(i);
            out.printf(Locale.ROOT, "%n[%d/%d] %s%n", i + 1, ARMS.size(), arm.label());
            results.add(c.runArm(arm, work.resolve(arm.key()), runId + i, out));
        }
        return new Result(results);
    }

    /**
     * Creates the workload's tables and loads its prefill, before capture starts.
     *
     * @return the rows the prefill wrote
     */
    public static long prepare(Workload wl, Connection connection) throws Exception {
        try (Connection c = connection) {
            wl.createSchema(c);
            return wl.prefill(c, n -> {});
        }
    }

    /** The arm's prefill: rows, and when it ended (nanoTime); set before capture starts. */
    private volatile long prefilledRows;

    private volatile long prefillEndNanos;

    private void prepareArm(Workload wl, Connection connection) throws Exception {
        prefilledRows = prepare(wl, connection);
        prefillEndNanos = System.nanoTime();
    }

    private BenchTarget start(Arm arm, Path dir, String id) {
        Workload wl = settings.workload();
        return switch (arm.key()) {
            case "baseline" ->
                    StandardPipeline.start(
                            new StandardPipeline.Settings(
                                    dir,
                                    id,
                                    settings.durable(),
                                    src -> prepareArm(wl, src.connect()),
                                    settings.captureSettings(),
                                    wl.tables(),
                                    GENERATOR_COLUMN,
                                    settings.standardTasks()));
            case "ours" -> startOurs(dir, id, true);
            default -> startOurs(dir, id, false);
        };
    }

    private BenchTarget startOurs(Path dir, String id, boolean postgres) {
        Workload wl = settings.workload();
        WarehouseServer wh =
                postgres
                        ? WarehouseServer.start(
                                dir.resolve("warehouse-postgres"),
                                dir.resolve("logs/warehouse-postgres.log"),
                                settings.durable())
                        : null;
        try {
            Pipeline.Builder b =
                    Pipeline.builder()
                            .workDir(dir)
                            .runId(id)
                            .shutdownHooks(false)
                            .beforeCapture(src -> prepareArm(wl, src.connect()));
            settings.ours().apply(b);
            Map<String, Object> s = new LinkedHashMap<>(settings.oursSettings());
            if (wh != null) {
                b.warehouseUrl(wh.jdbcUrl())
                        .sink("warehouse.user", wh.user())
                        .sink("warehouse.password", wh.password());
                s.put("warehouse", "postgresql");
                s.put("warehouse_settings", wh.settings());
            }
            Pipeline p = b.start();
            PipelineTarget t =
                    new PipelineTarget(
                            postgres ? "cdc-lab -> postgresql" : "cdc-lab -> duckdb",
                            p,
                            wh,
                            wl.tables(),
                            GENERATOR_COLUMN,
                            s);
            s.put("source_settings", p.sourceSettings());
            p.awaitCaughtUp(Duration.ofMinutes(10));
            return t;
        } catch (RuntimeException e) {
            if (wh != null) {
                wh.close();
            }
            throw e;
        }
    }

    private ArmResult runArm(Arm arm, Path dir, String id, PrintStream out) {
        long t0 = System.nanoTime();
        BenchTarget target = null;
        prefillEndNanos = 0;
        prefilledRows = 0;
        InitialLoad load = null;
        try {
            Files.createDirectories(dir.resolve("logs"));
            target = start(arm, dir, id);
            closeOnShutdown.accept(target);
            long up = System.nanoTime();
            double startSeconds = (up - t0) / 1e9;
            out.printf(
                    Locale.ROOT,
                    "up and caught up with the prefill in %s s%n",
                    Numbers.fixed2(startSeconds));
            if (prefillEndNanos != 0) {
                load = new InitialLoad(prefilledRows, (up - prefillEndNanos) / 1e9);
                out.printf(
                        Locale.ROOT,
                        "initial load: %s prefilled rows in the warehouse %s s after the prefill"
                                + " (%s rows/s, start-up included)%n",
                        Numbers.count(load.rows()),
                        Numbers.fixed2(load.seconds()),
                        Numbers.count(Math.round(load.rowsPerSecond())));
            }
            RateLadder.Result r =
                    new RateLadder(settings.plan())
                            .run(target, settings.workload(), StepTable.printer(out));
            BacklogDrain.Drain drain = null;
            if (settings.backlogChanges() > 0 && r.caughtUp()) {
                drain =
                        BacklogDrain.run(
                                target,
                                settings.workload(),
                                settings.backlogChanges(),
                                settings.plan().threads(),
                                r.issued(),
                                BACKLOG_TIMEOUT,
                                out);
            }
            Boolean verified = null;
            if (r.caughtUp()) {
                VerificationResult v = target.verify();
                verified = v.matches();
                out.println((v.matches() ? "verified: " : "NOT verified: ") + v.summary());
            } else {
                out.println("not verified: the warehouse did not catch up");
            }
            return new ArmResult(
                    arm, r, verified, null, startSeconds, load, target.settings(), drain);
        } catch (Exception e) {
            String msg = OneLineError.of(e);
            out.println("failed: " + msg);
            return new ArmResult(
                    arm,
                    null,
                    null,
                    msg,
                    (System.nanoTime() - t0) / 1e9,
                    load,
                    target == null ? Map.of() : target.settings());
        } finally {
            if (target != null) {
                target.close();
            }
        }
    }
}
