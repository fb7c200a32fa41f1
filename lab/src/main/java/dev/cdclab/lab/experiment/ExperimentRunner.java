package dev.cdclab.lab.experiment;

import dev.cdclab.config.Durations;
import dev.cdclab.config.OneLineError;
import dev.cdclab.config.SourceKind;
import dev.cdclab.format.JsonText;
import dev.cdclab.format.Numbers;
import dev.cdclab.lab.bench.CpuMeter;
import dev.cdclab.lab.report.InfraDescription;
import dev.cdclab.lab.report.Machine;
import dev.cdclab.lab.report.ProgressLine;
import dev.cdclab.load.dialect.SqlDialect;
import dev.cdclab.load.run.LoadPriority;
import dev.cdclab.load.run.LoadRunner;
import dev.cdclab.load.workload.Workload;
import dev.cdclab.load.workload.WorkloadOptions;
import dev.cdclab.load.workload.Workloads;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.orchestration.admin.AdminServer;
import dev.cdclab.orchestration.admin.AdminToken;
import dev.cdclab.orchestration.infra.InfraConfig;
import dev.cdclab.orchestration.infra.InfraKind;
import dev.cdclab.orchestration.infra.InfraSpec;
import dev.cdclab.orchestration.infra.SourceEndpoint;
import dev.cdclab.orchestration.infra.SourceService;
import dev.cdclab.orchestration.operate.CatchUpTimeoutException;
import dev.cdclab.wait.Poll;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an experiment's cells one after another, each on a fresh pipeline, writing each cell's
 * results as it finishes and the experiment's report at the end.
 */
public final class ExperimentRunner {
    private static final Logger LOG = LoggerFactory.getLogger(ExperimentRunner.class);

    /** Start-up, prefill, snapshot and verification of a cell, before any cell has finished. */
    private static final double CELL_OVERHEAD_S = 30;

    private static final List<String> REPORTED_SOURCE_SETTINGS =
            List.of(
                    "fsync",
                    "synchronous_commit",
                    "full_page_writes",
                    "wal_level",
                    "max_wal_size",
                    "wal_compression",
                    "checkpoint_timeout",
                    "shared_buffers");

    private final ExperimentSpec spec;
    private final Path specFile;
    private final Path out;
    private final PrintStream console;
    private volatile PhaseEngine current;
    private volatile String currentLabel = "";
    private volatile int currentIndex;
    private volatile long cellStartNanos;

    /** The running cell's live page (its admin endpoint also serves /metrics), or null. */
    private volatile String currentPage;

    private int total;
    private volatile boolean stopping;

    /** The running cell's pipeline, for Ctrl-C: one registration, so finished cells are freed. */
    private final java.util.concurrent.atomic.AtomicReference<AutoCloseable> running =
            new java.util.concurrent.atomic.AtomicReference<>();

    /**
     * @param closeOnShutdown registers what Ctrl-C must close (the running cell's services)
     */
    public ExperimentRunner(
            ExperimentSpec spec,
            Path specFile,
            Path out,
            PrintStream console,
            Consumer<AutoCloseable> closeOnShutdown) {
        this.spec = spec;
        this.specFile = specFile;
        this.out = out;
        this.console = console;
        closeOnShutdown.accept(
                () -> {
                    AutoCloseable c = running.get();
                    if (c != null) {
                        c.close();
                    }
                });
    }

    /**
     * Runs every cell not yet done.
     *
     * @param resume take the states of an earlier run in the same directory
     * @return true when every cell finished and verified
     */
    public boolean run(boolean resume) throws Exception {
        Files.createDirectories(out.resolve("cells"));
        byte[] text = Files.readAllBytes(specFile);
        String digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text));
        Path manifestFile = out.resolve("manifest.json");
        Manifest manifest = new Manifest(manifestFile, spec, digest);
        if (Files.exists(manifestFile)) {
            if (!resume) {
                throw new IllegalArgumentException(
                        out
                                + " already holds a run of this experiment: add --resume to finish it,"
                                + " or --out DIR for a new one");
            }
            manifest.resumeFrom(manifestFile);
        }
        Files.write(out.resolve("experiment.yaml"), text);
        manifest.save();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stopping = true, "experiment-stop"));

        List<Manifest.Entry> todo =
                manifest.entries().stream().filter(e -> e.state != Manifest.State.DONE).toList();
        total = manifest.entries().size();
        console.printf(
                Locale.ROOT,
                "experiment %s (%s scale): %d cells, %d to run; phases warm-up %s, measure %s, drain up to %s%n",
                spec.name(),
                spec.scale().label(),
                total,
                todo.size(),
                Durations.format(spec.phases().warmup()),
                Durations.format(spec.phases().measure()),
                Durations.format(spec.phases().drain()));
        if (!spec.reproduces().isBlank()) {
            console.println("reproduces " + spec.reproduces());
        }
        console.println("results in " + out);
        int done = total - todo.size();
        double[] spent = {0};
        int[] finished = {0};
        for (Manifest.Entry e : todo) {
            currentIndex = ++done;
            currentLabel = e.cell.id();
            e.state = Manifest.State.RUNNING;
            e.error = null;
            manifest.save();
            cellStartNanos = System.nanoTime();
            int remainingAfter = todo.size() - finished[0] - 1;
            CellMetrics m = null;
            try (ProgressLine progress =
                    new ProgressLine(
                            console, () -> progressLine(spent, finished, remainingAfter))) {
                m = runCell(e.cell);
                e.state = Manifest.State.DONE;
            } catch (Exception ex) {
                if (stopping) {
                    // Ctrl-C: the cell stays "running" in the manifest, so --resume runs it again
                    throw ex;
                }
                e.state = Manifest.State.FAILED;
                e.error = OneLineError.of(ex);
                LOG.error("cell {} failed", e.cell.id(), ex);
                writeFailure(e.cell, ex);
            } finally {
                e.seconds = Numbers.round3(seconds(cellStartNanos));
                spent[0] += seconds(cellStartNanos);
                finished[0]++;
                current = null;
                if (!stopping) {
                    manifest.save();
                }
            }
            if (m != null) {
                console.println(cellLine(e.cell, m, e.seconds));
            } else {
                console.printf(Locale.ROOT, "%-40s FAILED: %s%n", e.cell.id(), e.error);
            }
        }
        ExperimentReport report = new ExperimentReport(spec, out, manifest.entries());
        report.write();
        console.println();
        console.print(report.summaryText());
        console.println("report: " + out.resolve("report.html"));
        return manifest.entries().stream()
                .allMatch(e -> e.state == Manifest.State.DONE && report.verified(e.cell));
    }

    private String progressLine(double[] spent, int[] finished, int remainingAfter) {
        PhaseEngine eng = current;
        double perCell =
                finished[0] > 0
                        ? spent[0] / finished[0]
                        : CELL_OVERHEAD_S
                                + (spec.phases().warmup().toMillis()
                                                + spec.phases().measure().toMillis())
                                        / 1000.0;
        double elapsed = seconds(cellStartNanos);
        double eta = Math.max(0, perCell - elapsed) + remainingAfter * perCell;
        StringBuilder b =
                new StringBuilder(
                        String.format(
                                Locale.ROOT,
                                "cell %d/%d %s | ",
                                currentIndex,
                                total,
                                currentLabel));
        if (eng == null) {
            b.append("starting ").append(Math.round(elapsed)).append(" s");
        } else {
            b.append(eng.phase()).append(' ').append(Math.round(eng.phaseSeconds())).append(" s");
            SecondSample s = eng.latest();
            if (eng.phase().equals("warmup")) {
                PhaseEngine.LoadProgress lp = eng.loadProgress();
                if (lp != null) {
                    b.append(" | ").append(lp.describe()).append(lp.shortfall());
                }
            } else if (s != null) {
                b.append(" | source ")
                        .append(Numbers.count(s.sourceChangesPerSecond()))
                        .append(" ch/s | backlog ")
                        .append(Numbers.count(s.backlog()))
                        .append(" | p99 ")
                        .append(Double.isNaN(s.p99Ms()) ? "-" : Numbers.ms(s.p99Ms()));
            }
        }
        b.append(" | ETA ").append(eta(Math.round(eta)));
        String page = currentPage;
        if (page != null) {
            b.append(" | live ").append(page);
        }
        return b.toString();
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    /** Seconds left, as a reader takes them in at a glance: {@code 45 s}, {@code 13 min 5 s}. */
    static String eta(long seconds) {
        return seconds < 60 ? seconds + " s" : seconds / 60 + " min " + seconds % 60 + " s";
    }

    private String cellLine(ExperimentCell c, CellMetrics m, double secs) {
        return String.format(
                Locale.ROOT,
                "%-40s %5.0f s | %s tx/s | p99 %s | max %s | catch-up %s s | %s",
                c.id(),
                secs,
                Numbers.rate(m.txPerSecond()),
                Double.isNaN(m.latencyP99Ms()) ? "-" : Numbers.ms(m.latencyP99Ms()),
                Double.isNaN(m.latencyMaxMs()) ? "-" : Numbers.ms(m.latencyMaxMs()),
                Double.isNaN(m.catchUpSeconds()) ? "-" : Numbers.fixed2(m.catchUpSeconds()),
                m.caughtUp() && !Double.isNaN(m.catchUpSeconds())
                        ? (m.verified() ? "verified" : "NOT verified")
                        : (Double.isNaN(m.catchUpSeconds()) ? "capture off" : "did not catch up"));
    }

    private CellMetrics runCell(ExperimentCell cell) throws Exception {
        CellSettings cs = new CellSettings(cell.settings());
        CellSettings.WorkloadSettings w = cs.workload();
        Workload wl =
                Workloads.create(
                        w.name(),
                        SqlDialect.of(cs.sourceKind()),
                        new WorkloadOptions(
                                w.seed(), w.prefill(), w.txSize(), w.filledColumns(), w.hotKeys()));
        Path dir = out.resolve("cells").resolve(cell.id());
        Files.createDirectories(dir);
        Path work = dir.resolve("work");
        deleteTree(work);
        String runId =
                (spec.name() + cell.id()).toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
        runId =
                runId.substring(Math.max(0, runId.length() - 20))
                        + Integer.toHexString(cell.hashCode() & 0xfff);
        InfraConfig infraConfig = new InfraConfig(InfraConfig.builder().setAll(cs.infra()).build());
        InfraSpec infra = infraConfig.spec(cs.sourceKind());
        // only an embedded source's processes are this machine's, in this process namespace
        LoadPriority priority =
                new LoadPriority(w.nice(), infraConfig.kind() == InfraKind.EMBEDDED);
        PhaseEngine.Plan plan =
                new PhaseEngine.Plan(
                        wl,
                        w.threads(),
                        w.rate(),
                        spec.phases().warmup(),
                        spec.phases().measure(),
                        w.transactions(),
                        spec.phases().drain());
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("experiment", spec.name());
        summary.put("cell", cell.id());
        summary.put("levels", cell.levels());
        summary.put("repetition", cell.repetition());
        summary.put("settings", cell.settings());
        summary.put("capture", cs.captureEnabled());
        summary.put("load_nice", w.nice());
        PhaseEngine.Measurement m;
        long t0 = System.nanoTime();
        double snapshotSeconds = Double.NaN;
        double txDuringSnapshot = Double.NaN;
        if (cs.captureEnabled()) {
            boolean during = w.duringSnapshot();
            LoadRunner[] load = {null};
            Thread[] loadThread = {null};
            long[] loadStart = {0};
            Pipeline.Builder b =
                    Pipeline.builder()
                            .workDir(work)
                            .runId(runId)
                            .shutdownHooks(false)
                            .infrastructure(infra)
                            .beforeCapture(
                                    src -> {
                                        prepareSource(src, wl, cs);
                                        if (during) {
                                            // the load runs while capture starts: the snapshot is
                                            // taken under it
                                            load[0] =
                                                    new LoadRunner(
                                                                    wl,
                                                                    src::connect,
                                                                    new LoadRunner.Options(
                                                                            w.threads(),
                                                                            w.rate(),
                                                                            spec.phases().measure(),
                                                                            w.transactions(),
                                                                            0))
                                                            .priority(priority);
                                            loadStart[0] = System.nanoTime();
                                            loadThread[0] =
                                                    new Thread(load[0]::run, "load-under-snapshot");
                                            loadThread[0].start();
                                        }
                                    });
            cs.apply(b);
            Pipeline p = b.build();
            running.set(p);
            AdminServer admin = null;
            try (SnapshotWatch snap = new SnapshotWatch()) {
                try {
                    p.start();
                    if (p.initialLoad() != null) {
                        snap.loaded(p.initialLoad().startedNanos(), p.initialLoad().endedNanos());
                    }
                    admin = AdminServer.forPipeline(p, 0, AdminToken.generate());
                    // the page's address holds the token: printed for the user, never logged
                    currentPage = admin.pageUrl();
                    LOG.info("cell {}: live page and metrics at {}", cell.id(), admin.url());
                    if (during) {
                        m = underSnapshot(p, snap, load[0], loadThread[0], loadStart[0]);
                        snapshotSeconds = snap.seconds();
                        txDuringSnapshot = txPerSecondWithin(load[0], loadStart[0], snap);
                        summary.put("source_settings", p.sourceSettings());
                        summary.put("infrastructure", InfraDescription.asMap(p.infrastructure()));
                    } else {
                        double snapshot =
                                p.awaitCaughtUp(spec.phases().drain()).toMillis() / 1000.0;
                        snapshotSeconds = snap.seconds();
                        summary.put("startup_s", Numbers.round3(seconds(t0)));
                        summary.put("snapshot_catch_up_s", Numbers.round3(snapshot));
                        summary.put("source_settings", p.sourceSettings());
                        summary.put("infrastructure", InfraDescription.asMap(p.infrastructure()));
                        PhaseEngine eng =
                                PhaseEngine.onPipeline(plan, p, dir.resolve("latency.hlog"))
                                        .loadPriority(priority);
                        current = eng;
                        m = eng.run();
                    }
                } finally {
                    current = null;
                    currentPage = null;
                    if (admin != null) {
                        admin.close();
                    }
                    if (loadThread[0] != null) {
                        load[0].stop();
                        loadThread[0].join(30_000);
                    }
                    p.close();
                    running.set(null);
                }
            }
        } else {
            try (SourceService pg =
                    infra.startSource(
                            new InfraSpec.Context(work, runId, cs.durable(), 0, 0, false))) {
                running.set(pg);
                SourceEndpoint src = pg.endpoint();
                prepareSource(src, wl, cs);
                summary.put("startup_s", Numbers.round3(seconds(t0)));
                summary.put(
                        "source_settings",
                        cs.sourceKind() == SourceKind.POSTGRES
                                ? sourceSettings(src::connect)
                                : Map.of("source", cs.sourceKind().label()));
                PhaseEngine eng = PhaseEngine.onSource(plan, src::connect).loadPriority(priority);
                current = eng;
                m = eng.run();
            } finally {
                current = null;
                running.set(null);
            }
        }
        CellMetrics metrics =
                CellMetrics.of(m, cs.captureEnabled(), snapshotSeconds, txDuringSnapshot);
        summary.put("metrics", metrics.asMap());
        summary.put("tables", m.tables());
        if (m.verification() != null) {
            summary.put("verification", m.verification().summary());
        }
        if (m.catchUpFailure() != null) {
            summary.put("catch_up_failure", OneLineError.of(m.catchUpFailure()));
        }
        summary.put("machine", Machine.describe());
        PhaseEngine.writeSamples(dir.resolve("samples.csv"), m.samples());
        JsonText.write(dir.resolve("summary.json"), summary);
        deleteTree(work);
        return metrics;
    }

    /**
     * The load already runs (started before capture): waits for the snapshot, the load and the
     * warehouse, then verifies.
     */
    private PhaseEngine.Measurement underSnapshot(
            Pipeline p, SnapshotWatch snap, LoadRunner load, Thread loadThread, long loadStart)
            throws Exception {
        CpuMeter.Reading cpu0 = CpuMeter.read();
        Poll poll = Poll.within(spec.phases().drain()).every(Duration.ofMillis(200));
        while (snap.endNanos() < 0 && !poll.expired()) {
            p.checkHealthy();
            poll.pause();
        }
        loadThread.join();
        long end = System.nanoTime();
        double catchUp;
        RuntimeException failure = null;
        try {
            catchUp = p.awaitCaughtUp(spec.phases().drain()).toMillis() / 1000.0;
        } catch (CatchUpTimeoutException e) {
            failure = e;
            catchUp = spec.phases().drain().toMillis() / 1000.0;
        }
        var cpu = CpuMeter.read().since(cpu0);
        var verification = failure == null ? p.verify() : null;
        var ns = p.streams().stats();
        var ss = p.sink().stats();
        return PhaseEngine.Measurement.builder()
                .load(load.stats())
                .loadSeconds(load.elapsedSeconds())
                .capturedChanges(ns.rawChanges() - ns.snapshotChanges())
                .netApplied(ss.netChanges())
                .vanished(ns.vanished())
                .late(ns.late())
                .deadLetters(ns.deadLetters() + ss.deadLettered())
                .rowsWritten(ss.rowsWritten())
                .batches(ss.batches())
                .catchUpSeconds(catchUp)
                .catchUpFailure(failure)
                .verification(verification)
                .cpu(cpu)
                .heapPeakBytes(
                        java.lang.management.ManagementFactory.getMemoryMXBean()
                                .getHeapMemoryUsage()
                                .getUsed())
                .rssPeakBytes(PhaseEngine.rss())
                .latency(p.sink().latency().endToEnd())
                .build();
    }

    /** The load's tx/s over the seconds the snapshot ran, NaN when it did not complete. */
    static double txPerSecondWithin(LoadRunner load, long loadStart, SnapshotWatch snap) {
        if (snap.startNanos() < 0 || snap.endNanos() < 0) {
            return Double.NaN;
        }
        long from = (long) Math.floor((snap.startNanos() - loadStart) / 1e9);
        long to = (long) Math.ceil((snap.endNanos() - loadStart) / 1e9);
        long tx = 0;
        for (var e : load.stats().transactionsPerSecond().entrySet()) {
            if (e.getKey() >= from && e.getKey() < to) {
                tx += e.getValue();
            }
        }
        return to > from ? (double) tx / (to - from) : Double.NaN;
    }

    private void prepareSource(SourceEndpoint src, Workload wl, CellSettings cs) throws Exception {
        try (Connection c = src.connect()) {
            if (!cs.sourceSettings().isEmpty()) {
                c.setAutoCommit(true);
                try (Statement s = c.createStatement()) {
                    for (var e : cs.sourceSettings().entrySet()) {
                        s.execute(
                                "ALTER SYSTEM SET "
                                        + e.getKey()
                                        + " = '"
                                        + e.getValue().replace("'", "''")
                                        + "'");
                    }
                    s.execute("SELECT pg_reload_conf()");
                }
            }
            wl.createSchema(c);
            wl.prefill(c, n -> {});
        }
    }

    private static Map<String, String> sourceSettings(
            dev.cdclab.load.run.LoadRunner.ConnectionFactory connections) {
        Map<String, String> m = new LinkedHashMap<>();
        try (Connection c = connections.open();
                PreparedStatement ps =
                        c.prepareStatement(
                                "SELECT name, setting, coalesce(unit, '') FROM pg_settings"
                                        + " WHERE name = ANY (?)")) {
            ps.setArray(1, c.createArrayOf("text", REPORTED_SOURCE_SETTINGS.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    m.put(rs.getString(1), rs.getString(2) + rs.getString(3));
                }
            }
        } catch (SQLException e) {
            m.put("error", e.getMessage());
        }
        return m;
    }

    private void writeFailure(ExperimentCell cell, Exception ex) {
        try {
            Path dir = out.resolve("cells").resolve(cell.id());
            Files.createDirectories(dir);
            Map<String, Object> summary = new LinkedHashMap<>();
            summary.put("experiment", spec.name());
            summary.put("cell", cell.id());
            summary.put("levels", cell.levels());
            summary.put("repetition", cell.repetition());
            summary.put("settings", cell.settings());
            summary.put("error", OneLineError.of(ex));
            JsonText.write(dir.resolve("summary.json"), summary);
        } catch (IOException e) {
            LOG.warn("cannot write the failure of {}", cell.id(), e);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        Files.walkFileTree(
                dir,
                new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult visitFile(Path f, BasicFileAttributes a)
                            throws IOException {
                        Files.deleteIfExists(f);
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult postVisitDirectory(Path d, IOException e)
                            throws IOException {
                        Files.deleteIfExists(d);
                        return FileVisitResult.CONTINUE;
                    }
                });
    }
}
