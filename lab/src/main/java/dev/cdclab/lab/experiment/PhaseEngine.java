package dev.cdclab.lab.experiment;

import dev.cdclab.capture.CaptureConfig;
import dev.cdclab.format.Numbers;
import dev.cdclab.lab.bench.CpuMeter;
import dev.cdclab.lab.report.RunReport;
import dev.cdclab.load.run.LoadPriority;
import dev.cdclab.load.run.LoadRunner;
import dev.cdclab.load.run.LoadStats;
import dev.cdclab.load.workload.Workload;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.orchestration.operate.CatchUpTimeoutException;
import dev.cdclab.orchestration.verify.VerificationResult;
import dev.cdclab.sink.SinkStats;
import dev.cdclab.streams.topology.NetChangeStats;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

/**
 * The phases every measured run goes through, shared by {@code run} and {@code experiment}: warm-up
 * at the target rate (excluded), the measured load, catch-up until the warehouse has every
 * committed change, and verification against the source. While the load runs and the warehouse
 * catches up it takes a {@link SecondSample} every second.
 */
public final class PhaseEngine {
    /**
     * What to run.
     *
     * @param workload the workload, its schema already created and prefilled
     * @param threads client threads
     * @param rate target tx/s; 0 = closed loop
     * @param warmup load before measuring; zero = none
     * @param measure measured load duration
     * @param transactions stop the measured load after this many; 0 = run for {@code measure}
     * @param drain longest wait for the warehouse after the warm-up and after the load
     */
    public record Plan(
            Workload workload,
            int threads,
            double rate,
            Duration warmup,
            Duration measure,
            long transactions,
            Duration drain) {}

    /**
     * What a run measured. Counters cover the measured load and its catch-up only.
     *
     * @param load the workload's counters
     * @param loadSeconds how long the measured load ran
     * @param warmupTransactions transactions of the warm-up
     * @param warmupChanges changes captured after the initial snapshot and before the measured load
     * @param capturedChanges raw changes the Streams app read
     * @param netApplied net changes the sink applied
     * @param vanished keys whose changes cancelled out within an interval
     * @param late changes that arrived after their interval closed
     * @param deadLetters unreadable records (Streams and sink)
     * @param rowsWritten warehouse rows written
     * @param batches warehouse transactions
     * @param tables raw and net changes per table
     * @param catchUpSeconds from the end of the load until the warehouse had every change
     * @param catchUpFailure why catch-up did not finish, or null
     * @param verification the comparison with the source, or null (capture off, no catch-up)
     * @param samples one per second of load and catch-up
     * @param walWrittenBytes WAL the source wrote during load and catch-up, -1 when unknown
     * @param walRetainedPeakBytes the most WAL the slot held back, -1 when unknown
     * @param cpu CPU seconds over load and catch-up
     * @param heapPeakBytes most heap this JVM used (pipeline and load generator)
     * @param rssPeakBytes most resident memory this JVM had
     * @param latency source commit → warehouse commit latency (ms) of the measured changes, or null
     */
    public record Measurement(
            LoadStats load,
            double loadSeconds,
            long warmupTransactions,
            long warmupChanges,
            long capturedChanges,
            long netApplied,
            long vanished,
            long late,
            long deadLetters,
            long rowsWritten,
            long batches,
            List<RunReport.TableCounts> tables,
            double catchUpSeconds,
            RuntimeException catchUpFailure,
            VerificationResult verification,
            List<SecondSample> samples,
            long walWrittenBytes,
            long walRetainedPeakBytes,
            CpuMeter.Usage cpu,
            long heapPeakBytes,
            long rssPeakBytes,
            Histogram latency) {

        public boolean caughtUp() {
            return catchUpFailure == null;
        }

        /** A measurement built by name: what a run did not measure keeps its "none" value. */
        public static Builder builder() {
            return new Builder();
        }

        /** Builds a {@link Measurement}: counters default to 0, sizes to -1 (not measured). */
        public static final class Builder {
            private LoadStats load;
            private double loadSeconds = 0;
            private long warmupTransactions = 0;
            private long warmupChanges = 0;
            private long capturedChanges = 0;
            private long netApplied = 0;
            private long vanished = 0;
            private long late = 0;
            private long deadLetters = 0;
            private long rowsWritten = 0;
            private long batches = 0;
            private List<RunReport.TableCounts> tables = List.of();
            private double catchUpSeconds = 0;
            private RuntimeException catchUpFailure;
            private VerificationResult verification;
            private List<SecondSample> samples = List.of();
            private long walWrittenBytes = -1;
            private long walRetainedPeakBytes = -1;
            private CpuMeter.Usage cpu;
            private long heapPeakBytes = -1;
            private long rssPeakBytes = -1;
            private Histogram latency;

            public Builder load(LoadStats v) {
                this.load = v;
                return this;
            }

            public Builder loadSeconds(double v) {
                this.loadSeconds = v;
                return this;
            }

            public Builder warmupTransactions(long v) {
                this.warmupTransactions = v;
                return this;
            }

            public Builder warmupChanges(long v) {
                this.warmupChanges = v;
                return this;
            }

            public Builder capturedChanges(long v) {
                this.capturedChanges = v;
                return this;
            }

            public Builder netApplied(long v) {
                this.netApplied = v;
                return this;
            }

            public Builder vanished(long v) {
                this.vanished = v;
                return this;
            }

            public Builder late(long v) {
                this.late = v;
                return this;
            }

            public Builder deadLetters(long v) {
                this.deadLetters = v;
                return this;
            }

            public Builder rowsWritten(long v) {
                this.rowsWritten = v;
                return this;
            }

            public Builder batches(long v) {
                this.batches = v;
                return this;
            }

            public Builder tables(List<RunReport.TableCounts> v) {
                this.tables = v;
                return this;
            }

            public Builder catchUpSeconds(double v) {
                this.catchUpSeconds = v;
                return this;
            }

            public Builder catchUpFailure(RuntimeException v) {
                this.catchUpFailure = v;
                return this;
            }

            public Builder verification(VerificationResult v) {
                this.verification = v;
                return this;
            }

            public Builder samples(List<SecondSample> v) {
                this.samples = v;
                return this;
            }

            public Builder walWrittenBytes(long v) {
                this.walWrittenBytes = v;
                return this;
            }

            public Builder walRetainedPeakBytes(long v) {
                this.walRetainedPeakBytes = v;
                return this;
            }

            public Builder cpu(CpuMeter.Usage v) {
                this.cpu = v;
                return this;
            }

            public Builder heapPeakBytes(long v) {
                this.heapPeakBytes = v;
                return this;
            }

            public Builder rssPeakBytes(long v) {
                this.rssPeakBytes = v;
                return this;
            }

            public Builder latency(Histogram v) {
                this.latency = v;
                return this;
            }

            public Measurement build() {
                return new Measurement(
                        load,
                        loadSeconds,
                        warmupTransactions,
                        warmupChanges,
                        capturedChanges,
                        netApplied,
                        vanished,
                        late,
                        deadLetters,
                        rowsWritten,
                        batches,
                        tables,
                        catchUpSeconds,
                        catchUpFailure,
                        verification,
                        samples,
                        walWrittenBytes,
                        walRetainedPeakBytes,
                        cpu,
                        heapPeakBytes,
                        rssPeakBytes,
                        latency);
            }
        }
    }

    private final Plan plan;
    private final Pipeline pipeline;
    private final LoadRunner.ConnectionFactory source;
    private final Path histogramLog;
    private final List<SecondSample> samples = Collections.synchronizedList(new ArrayList<>());
    private volatile String phase = "starting";
    private volatile long phaseStartNanos = System.nanoTime();
    private volatile LoadRunner runner;
    private volatile long applied0;

    private PhaseEngine(
            Plan plan, Pipeline pipeline, LoadRunner.ConnectionFactory source, Path histogramLog) {
        this.plan = plan;
        this.pipeline = pipeline;
        this.source = source;
        this.histogramLog = histogramLog;
    }

    private LoadPriority loadPriority = LoadPriority.NORMAL;

    /**
     * Sets the CPU priority of the load; normal unless set.
     *
     * @return this engine
     */
    public PhaseEngine loadPriority(LoadPriority priority) {
        this.loadPriority = java.util.Objects.requireNonNull(priority, "priority");
        return this;
    }

    /**
     * Phases on a started pipeline.
     *
     * @param histogramLog where to write the per-second latency histograms, or null
     */
    public static PhaseEngine onPipeline(Plan plan, Pipeline p, Path histogramLog) {
        return new PhaseEngine(plan, p, p::sourceConnection, histogramLog);
    }

    /** Phases on the source alone (capture off): warm-up and load, no catch-up. */
    public static PhaseEngine onSource(Plan plan, LoadRunner.ConnectionFactory source) {
        return new PhaseEngine(plan, null, source, null);
    }

    /** warmup, settle, measure, drain, verify or done. */
    public String phase() {
        return phase;
    }

    /** Seconds since the current phase began. */
    public double phaseSeconds() {
        return (System.nanoTime() - phaseStartNanos) / 1e9;
    }

    /** The latest second, or null before the first. */
    public SecondSample latest() {
        synchronized (samples) {
            return samples.isEmpty() ? null : samples.get(samples.size() - 1);
        }
    }

    /**
     * Where the load stands in the current phase (warm-up included), or null before it starts.
     *
     * @param txPerSecond transactions per second the source accepted so far in this phase
     * @param changesPerSecond row changes per second the source issued so far in this phase
     * @param backlog row changes issued in this phase and not yet in the warehouse
     * @param targetRate the rate asked for (0 = as fast as possible)
     */
    public record LoadProgress(
            double txPerSecond, double changesPerSecond, long backlog, double targetRate) {
        /** True when the source has fallen more than 10% short of a target rate. */
        public boolean belowTarget() {
            return targetRate > 0 && txPerSecond < 0.9 * targetRate;
        }

        /** {@code source T tx/s, C ch/s | backlog B}, for a progress line. */
        public String describe() {
            return "source "
                    + Numbers.rate(txPerSecond)
                    + " tx/s, "
                    + Numbers.count(Math.round(changesPerSecond))
                    + " ch/s | backlog "
                    + Numbers.count(backlog);
        }

        /**
         * {@code | target R tx/s not reached: the source takes T tx/s} when {@link #belowTarget},
         * else empty.
         */
        public String shortfall() {
            return belowTarget()
                    ? " | target "
                            + Numbers.rate(targetRate)
                            + " tx/s not reached: the source takes "
                            + Numbers.rate(txPerSecond)
                            + " tx/s"
                    : "";
        }
    }

    /** The current phase's load so far, or null when no load runs. */
    public LoadProgress loadProgress() {
        LoadRunner r = runner;
        double s = r == null ? 0 : r.elapsedSeconds();
        if (r == null || s < 1) {
            return null;
        }
        LoadStats ls = r.stats();
        long backlog =
                pipeline == null ? 0 : Math.max(0, ls.sourceChanges() - (applied() - applied0));
        return new LoadProgress(
                ls.transactions() / s, ls.sourceChanges() / s, backlog, plan.rate());
    }

    private long applied() {
        if (pipeline == null) {
            return 0;
        }
        return pipeline.sink().stats().rawChanges()
                + pipeline.streams().stats().vanishedRawChanges();
    }

    private void enter(String name) {
        phase = name;
        phaseStartNanos = System.nanoTime();
    }

    /** Runs every phase; a failed stage ends the load and is thrown. */
    public Measurement run() throws Exception {
        long firstTx = 0;
        long warmupTx = 0;
        if (!plan.warmup().isZero()) {
            enter("warmup");
            LoadRunner w =
                    new LoadRunner(
                                    plan.workload(),
                                    source,
                                    new LoadRunner.Options(
                                            plan.threads(), plan.rate(), plan.warmup(), 0, 0))
                            .priority(loadPriority);
            applied0 = applied();
            runner = w;
            LoadPhases.load(target(), w);
            if (pipeline != null) {
                enter("settle");
                pipeline.awaitCaughtUp(plan.drain());
            }
            firstTx = w.issued();
            warmupTx = w.stats().transactions();
        }
        NetChangeStats ns = pipeline == null ? null : pipeline.streams().stats();
        SinkStats ss = pipeline == null ? null : pipeline.sink().stats();
        long captured0 = ns == null ? 0 : ns.rawChanges();
        long net0 = ss == null ? 0 : ss.netChanges();
        long raw0 = ss == null ? 0 : ss.rawChanges();
        long vanished0 = ns == null ? 0 : ns.vanished();
        long vanishedRaw0 = ns == null ? 0 : ns.vanishedRawChanges();
        long late0 = ns == null ? 0 : ns.late();
        long dead0 = ns == null ? 0 : ns.deadLetters() + ss.deadLettered();
        long rows0 = ss == null ? 0 : ss.rowsWritten();
        long batches0 = ss == null ? 0 : ss.batches();
        Map<String, Long> tableRaw0 = new HashMap<>();
        Map<String, Long> tableNet0 = new HashMap<>();
        if (pipeline != null) {
            ns.tables().forEach((t, c) -> tableRaw0.put(t, c.raw()));
            ss.tables().forEach((t, c) -> tableNet0.put(t, c.net()));
            pipeline.sink().latency().reset();
            ss.resetApplyTimes();
        }

        LoadRunner r =
                new LoadRunner(
                                plan.workload(),
                                source,
                                new LoadRunner.Options(
                                        plan.threads(),
                                        plan.rate(),
                                        plan.measure(),
                                        plan.transactions(),
                                        firstTx))
                        .priority(loadPriority);
        applied0 = applied();
        runner = r;
        LoadStats ls = r.stats();
        String slot = pipeline == null ? null : pipeline.captureConfig().get(CaptureConfig.SLOT);
        double catchUp = 0;
        RuntimeException catchUpFailure = null;
        VerificationResult verification = null;
        long walStart;
        long walEnd;
        CpuMeter.Usage cpu;
        try (SourceLog wal = SourceLog.open(source, slot);
                PrintStream hlog =
                        histogramLog == null
                                ? null
                                : new PrintStream(
                                        new FileOutputStream(histogramLog.toFile()), true)) {
            HistogramLogWriter hlogWriter = hlog == null ? null : new HistogramLogWriter(hlog);
            if (hlogWriter != null) {
                hlogWriter.outputLogFormatVersion();
                hlogWriter.outputComment(
                        "source commit -> warehouse commit latency, ms, per second");
                hlogWriter.outputLegend();
            }
            walStart = wal.position();
            CpuMeter.ThreadWatch threads = new CpuMeter.ThreadWatch();
            CpuMeter.Reading cpu0 = CpuMeter.read(threads);
            Sampler sampler =
                    new Sampler(ls, ns, ss, raw0, vanishedRaw0, wal, hlogWriter, System.nanoTime());
            ScheduledExecutorService tick =
                    Executors.newSingleThreadScheduledExecutor(
                            t -> {
                                Thread th = new Thread(t, "experiment-sampler");
                                th.setDaemon(true);
                                return th;
                            });
            tick.scheduleAtFixedRate(
                    () -> {
                        sampler.sample();
                        threads.sample();
                    },
                    1,
                    1,
                    TimeUnit.SECONDS);
            try {
                enter("measure");
                runner = r;
                LoadPhases.load(target(), r);
                if (r.firstError() != null && ls.transactions() == 0) {
                    throw new IllegalStateException(
                            "every transaction failed: " + r.firstError().getMessage());
                }
                if (pipeline != null) {
                    enter("drain");
                    try {
                        catchUp = pipeline.awaitCaughtUp(plan.drain()).toMillis() / 1000.0;
                    } catch (CatchUpTimeoutException e) {
                        catchUpFailure = e;
                        catchUp = plan.drain().toMillis() / 1000.0;
                    }
                }
            } finally {
                tick.shutdownNow();
                tick.awaitTermination(5, TimeUnit.SECONDS);
            }
            sampler.sample();
            walEnd = wal.position();
            cpu = CpuMeter.read(threads).since(cpu0);
            if (pipeline != null && catchUpFailure == null) {
                enter("verify");
                verification = pipeline.verify();
            }
            enter("done");
            List<RunReport.TableCounts> tables = new ArrayList<>();
            if (pipeline != null) {
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
            }
            Measurement.Builder m =
                    Measurement.builder()
                            .load(ls)
                            .loadSeconds(r.elapsedSeconds())
                            .warmupTransactions(warmupTx)
                            .tables(tables)
                            .catchUpSeconds(catchUp)
                            .catchUpFailure(catchUpFailure)
                            .verification(verification)
                            .samples(List.copyOf(samples))
                            .walWrittenBytes(walStart < 0 || walEnd < 0 ? -1 : walEnd - walStart)
                            .walRetainedPeakBytes(sampler.walRetainedPeak)
                            .cpu(cpu)
                            .heapPeakBytes(sampler.heapPeak)
                            .rssPeakBytes(sampler.rssPeak);
            if (pipeline != null) {
                m.warmupChanges(captured0 - ns.snapshotChanges())
                        .capturedChanges(ns.rawChanges() - captured0)
                        .netApplied(ss.netChanges() - net0)
                        .vanished(ns.vanished() - vanished0)
                        .late(ns.late() - late0)
                        .deadLetters(ns.deadLetters() + ss.deadLettered() - dead0)
                        .rowsWritten(ss.rowsWritten() - rows0)
                        .batches(ss.batches() - batches0)
                        .latency(pipeline.sink().latency().endToEnd());
            }
            return m.build();
        }
    }

    /** Stops the load early (Ctrl-C). */
    public void stop() {
        LoadRunner r = runner;
        if (r != null) {
            r.stop();
        }
    }

    private LoadPhases.Target target() {
        if (pipeline == null) {
            return null;
        }
        return new LoadPhases.Target() {
            @Override
            public AutoCloseable watch(java.util.function.Consumer<RuntimeException> onFailure) {
                return pipeline.watch(onFailure);
            }

            @Override
            public Duration awaitCaughtUp(Duration timeout) {
                return pipeline.awaitCaughtUp(timeout);
            }
        };
    }

    /** Takes a {@link SecondSample} per call from the counters' differences. */
    private final class Sampler {
        private final LoadStats load;
        private final NetChangeStats streams;
        private final SinkStats sink;
        private final long raw0;
        private final long vanishedRaw0;
        private final SourceLog wal;
        private final HistogramLogWriter hlog;
        private final long t0;
        private long lastTx;
        private long lastChanges;
        private long lastApplied;
        private double lastSecond;
        long walRetainedPeak = -1;
        long heapPeak;
        long rssPeak;

        Sampler(
                LoadStats load,
                NetChangeStats streams,
                SinkStats sink,
                long raw0,
                long vanishedRaw0,
                SourceLog wal,
                HistogramLogWriter hlog,
                long t0) {
            this.load = load;
            this.streams = streams;
            this.sink = sink;
            this.raw0 = raw0;
            this.vanishedRaw0 = vanishedRaw0;
            this.wal = wal;
            this.hlog = hlog;
            this.t0 = t0;
        }

        synchronized void sample() {
            try {
                double now = (System.nanoTime() - t0) / 1e9;
                long tx = load.transactions();
                long changes = load.sourceChanges();
                long applied =
                        sink == null
                                ? 0
                                : sink.rawChanges()
                                        - raw0
                                        + streams.vanishedRawChanges()
                                        - vanishedRaw0;
                Histogram h =
                        pipeline == null
                                ? new Histogram(3)
                                : pipeline.sink().latency().sinceLastCall();
                if (hlog != null) {
                    h.setStartTimeStamp(Math.round(lastSecond * 1000));
                    h.setEndTimeStamp(Math.round(now * 1000));
                    hlog.outputIntervalHistogram(lastSecond, now, h, 1.0);
                }
                long retained = wal.retained();
                walRetainedPeak = Math.max(walRetainedPeak, retained);
                long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
                long rss = rss();
                heapPeak = Math.max(heapPeak, heap);
                rssPeak = Math.max(rssPeak, rss);
                boolean any = h.getTotalCount() > 0;
                samples.add(
                        new SecondSample(
                                Math.round(now * 10) / 10.0,
                                phase.equals("measure") ? "measure" : "drain",
                                tx - lastTx,
                                changes - lastChanges,
                                applied - lastApplied,
                                pipeline == null ? 0 : Math.max(0, changes - applied),
                                any ? h.getValueAtPercentile(50) : Double.NaN,
                                any ? h.getValueAtPercentile(99) : Double.NaN,
                                any ? h.getMaxValue() : Double.NaN,
                                retained,
                                heap,
                                rss));
                lastTx = tx;
                lastChanges = changes;
                lastApplied = applied;
                lastSecond = now;
            } catch (RuntimeException e) {
                // a sample is lost, the run goes on
            }
        }
    }

    /** This JVM's resident set size from /proc, 0 where there is none. */
    static long rss() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return 0;
    }

    /** Writes samples as CSV. */
    static void writeSamples(Path file, List<SecondSample> samples) throws IOException {
        StringBuilder b = new StringBuilder(SecondSample.CSV_HEADER).append('\n');
        for (SecondSample s : samples) {
            b.append(s.csv()).append('\n');
        }
        Files.writeString(file, b.toString());
    }
}
