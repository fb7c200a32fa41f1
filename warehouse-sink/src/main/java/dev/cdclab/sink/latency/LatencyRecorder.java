package dev.cdclab.sink.latency;

import dev.cdclab.change.NetChange;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Commit-to-warehouse latency of every applied net change, overall and per stage, in milliseconds.
 * Snapshot reads are counted apart: they have no source commit. Recording, resetting and reading
 * hold one lock, so a reset never falls between the histograms of one change. Bound to a {@link
 * MeterRegistry}, it also records into histograms that are never reset, as Prometheus expects.
 */
public final class LatencyRecorder implements MeterBinder {
    private static final long MAX_MS = 24L * 3600 * 1000;

    /** Histogram buckets from 1 ms to 60 s, with the latency targets (100 ms, 300 ms) as edges. */
    private static final Duration[] BUCKETS = {
        Duration.ofMillis(1),
        Duration.ofMillis(2),
        Duration.ofMillis(5),
        Duration.ofMillis(10),
        Duration.ofMillis(20),
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofMillis(200),
        Duration.ofMillis(300),
        Duration.ofMillis(500),
        Duration.ofSeconds(1),
        Duration.ofSeconds(2),
        Duration.ofSeconds(5),
        Duration.ofSeconds(10),
        Duration.ofSeconds(20),
        Duration.ofSeconds(30),
        Duration.ofSeconds(60),
    };

    /** A timer published as a Prometheus histogram with buckets from 1 ms to 60 s. */
    public static Timer.Builder timer(String name) {
        return Timer.builder(name).serviceLevelObjectives(BUCKETS);
    }

    /** The pipeline stages between source commit and warehouse commit. */
    public enum Stage {
        /** source commit to Debezium event. */
        CAPTURE("source commit -> debezium event"),
        /** Debezium event to Kafka append. */
        KAFKA("debezium event -> kafka append"),
        /** Kafka append to net change emitted (includes waiting for the interval to close). */
        NET_CHANGE("kafka append -> net change emitted"),
        /** net change emitted to warehouse commit. */
        WAREHOUSE("net change emitted -> warehouse commit");

        private final String label;

        Stage(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        /** Its value of the {@code stage} tag: {@code capture}, {@code kafka}, ... */
        public String tag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private Timer endToEndTimer;
    private final Map<Stage, Timer> stageTimers = new EnumMap<>(Stage.class);

    /**
     * Binds {@code cdclab_commit_to_warehouse_seconds} and {@code cdclab_stage_latency_seconds} (by
     * {@code stage}); changes recorded from now on are counted in them.
     */
    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        for (Stage s : Stage.values()) {
            stageTimers.put(
                    s,
                    timer("cdclab.stage.latency")
                            .description("Time each applied change spent in one stage")
                            .tag("stage", s.tag())
                            .register(registry));
        }
        endToEndTimer =
                timer("cdclab.commit.to.warehouse")
                        .description("Source commit to warehouse commit of each applied change")
                        .register(registry);
    }

    private final Histogram endToEnd = new Histogram(MAX_MS, 3);
    private final Histogram generator = new Histogram(MAX_MS, 3);
    private final Recorder recent = new Recorder(MAX_MS, 3);
    private final Map<Stage, Histogram> stages = new EnumMap<>(Stage.class);
    private long snapshotChanges;

    public LatencyRecorder() {
        for (Stage s : Stage.values()) {
            stages.put(s, new Histogram(MAX_MS, 3));
        }
    }

    /** Records one change applied at {@code warehouseCommitMs}. */
    public synchronized void record(NetChange c, long warehouseCommitMs) {
        if (c.snapshot()) {
            snapshotChanges++;
            return;
        }
        record(
                c.stages().sourceCommitMs(),
                c.stages().capturedMs(),
                c.stages().kafkaAppendMs(),
                c.stages().emittedMs(),
                c.generatorCommitMicros() == null ? NO_GENERATOR : c.generatorCommitMicros(),
                warehouseCommitMs);
    }

    private static final long NO_GENERATOR = Long.MIN_VALUE;

    private void record(
            long sourceCommitMs,
            long capturedMs,
            long kafkaAppendMs,
            long emittedMs,
            long generatorCommitMicros,
            long warehouseCommitMs) {
        long e2e = clamp(warehouseCommitMs - sourceCommitMs);
        endToEnd.recordValue(e2e);
        recent.recordValue(e2e);
        stage(Stage.CAPTURE, clamp(capturedMs - sourceCommitMs));
        stage(Stage.KAFKA, clamp(kafkaAppendMs - capturedMs));
        stage(Stage.NET_CHANGE, clamp(emittedMs - kafkaAppendMs));
        stage(Stage.WAREHOUSE, clamp(warehouseCommitMs - emittedMs));
        if (endToEndTimer != null) {
            endToEndTimer.record(e2e, TimeUnit.MILLISECONDS);
        }
        if (generatorCommitMicros != NO_GENERATOR) {
            generator.recordValue(clamp(warehouseCommitMs - generatorCommitMicros / 1000));
        }
    }

    /**
     * The stage times of changes written into a warehouse transaction that has not committed yet,
     * kept compactly (five longs a change) so the changes themselves need not be.
     */
    public static final class Pending {
        private static final int FIELDS = 5;
        private long[] times = new long[FIELDS * 1024];
        private int timed;
        private long snapshots;

        /** Keeps what {@link #record(NetChange, long)} will need of the change. */
        public void add(NetChange c) {
            if (c.snapshot()) {
                snapshots++;
                return;
            }
            if ((timed + 1) * FIELDS > times.length) {
                times = java.util.Arrays.copyOf(times, times.length * 2);
            }
            int i = timed++ * FIELDS;
            times[i] = c.stages().sourceCommitMs();
            times[i + 1] = c.stages().capturedMs();
            times[i + 2] = c.stages().kafkaAppendMs();
            times[i + 3] = c.stages().emittedMs();
            times[i + 4] =
                    c.generatorCommitMicros() == null ? NO_GENERATOR : c.generatorCommitMicros();
        }

        /** Changes added. */
        public long size() {
            return timed + snapshots;
        }

        /** Forgets them (their transaction rolled back). */
        public void clear() {
            times = new long[FIELDS * 1024];
            timed = 0;
            snapshots = 0;
        }
    }

    /**
     * Records the changes kept in {@code pending}, whose warehouse transaction committed at {@code
     * warehouseCommitMs}, as {@link #recordAll} would have recorded them; then clears it.
     */
    public synchronized void recordAll(Pending pending, long warehouseCommitMs) {
        snapshotChanges += pending.snapshots;
        long[] t = pending.times;
        for (int i = 0; i < pending.timed * Pending.FIELDS; i += Pending.FIELDS) {
            record(t[i], t[i + 1], t[i + 2], t[i + 3], t[i + 4], warehouseCommitMs);
        }
        pending.clear();
    }

    /**
     * Records a batch of changes applied in one warehouse transaction at {@code warehouseCommitMs}.
     */
    public synchronized void recordAll(Iterable<NetChange> changes, long warehouseCommitMs) {
        for (NetChange c : changes) {
            record(c, warehouseCommitMs);
        }
    }

    private void stage(Stage s, long ms) {
        stages.get(s).recordValue(ms);
        if (endToEndTimer != null) {
            stageTimers.get(s).record(ms, TimeUnit.MILLISECONDS);
        }
    }

    private static long clamp(long ms) {
        return Math.max(0, Math.min(ms, MAX_MS));
    }

    /** Forgets everything recorded so far (after a warm-up). */
    public synchronized void reset() {
        endToEnd.reset();
        generator.reset();
        stages.values().forEach(Histogram::reset);
        recent.reset();
        snapshotChanges = 0;
    }

    /** Source commit to warehouse commit, all streamed changes since the last reset. */
    public synchronized Histogram endToEnd() {
        return endToEnd.copy();
    }

    /** Generator's commit timestamp to warehouse commit (generated load only). */
    public synchronized Histogram fromGenerator() {
        return generator.copy();
    }

    /** Per-stage split. */
    public synchronized Map<Stage, Histogram> stages() {
        Map<Stage, Histogram> out = new EnumMap<>(Stage.class);
        stages.forEach((k, v) -> out.put(k, v.copy()));
        return out;
    }

    /** End-to-end latencies recorded since the previous call (single reader). */
    public synchronized Histogram sinceLastCall() {
        return recent.getIntervalHistogram();
    }

    /** Changes applied that came from the initial snapshot (no latency recorded). */
    public synchronized long snapshotChanges() {
        return snapshotChanges;
    }

    /** Every applied change is either timed or a snapshot read. */
    public synchronized long recorded() {
        return endToEnd.getTotalCount() + snapshotChanges;
    }
}
