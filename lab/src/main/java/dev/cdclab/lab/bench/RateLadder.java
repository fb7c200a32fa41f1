package dev.cdclab.lab.bench;

import dev.cdclab.lab.experiment.LoadPhases;
import dev.cdclab.load.run.LoadPriority;
import dev.cdclab.load.run.LoadRunner;
import dev.cdclab.load.run.LoadStats;
import dev.cdclab.load.workload.Workload;
import dev.cdclab.orchestration.operate.CatchUpTimeoutException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.HdrHistogram.Histogram;

/**
 * Drives a {@link BenchTarget} with a workload: a warm-up, an optional step at a fixed rate, then
 * steps of rising rate. A step is sustained when the warehouse catches up within the bound after it
 * (the backlog stayed bounded), its p99 is within the bound and the generator kept the rate. When
 * the warehouse kept up but the source fell short of the rate, the step is source-limited: it
 * counts at the rate the source reached, and the ladder goes no higher.
 */
public final class RateLadder {
    /** The share of a step's target rate the source must issue for the step to be at its rate. */
    static final double SOURCE_REACHED = 0.95;

    /**
     * What to run.
     *
     * @param threads load generator threads
     * @param fixedRate rate of the fixed step, tx/s; 0 for none
     * @param rates rising step rates, tx/s
     * @param step length of each step
     * @param warmup unmeasured load before the first step (at the fixed rate, else the first)
     * @param maxCatchUp a step whose backlog takes longer to drain is not sustained
     * @param maxP99 latency bound of a sustained step
     * @param catchUpTimeout how long to wait for the backlog at all
     * @param stopAtFirstMiss end the ladder at the first step not sustained
     * @param countRows read the warehouse's row writes around the fixed step
     * @param loadPriority the CPU priority of the load
     */
    public record Plan(
            int threads,
            double fixedRate,
            List<Double> rates,
            Duration step,
            Duration warmup,
            Duration maxCatchUp,
            Duration maxP99,
            Duration catchUpTimeout,
            boolean stopAtFirstMiss,
            boolean countRows,
            LoadPriority loadPriority) {
        public Plan {
            rates = List.copyOf(rates);
            Objects.requireNonNull(loadPriority, "loadPriority");
            if (rates.isEmpty() && fixedRate <= 0) {
                throw new IllegalArgumentException("nothing to run: no rates and no fixed rate");
            }
        }
    }

    /**
     * One measured step.
     *
     * @param fixed whether this is the fixed-rate step
     * @param latency commit-to-warehouse latency, ms, as the target measures it
     * @param pipelineLatency the pipeline's own recorder, or null
     * @param catchUpSeconds time to drain the backlog after the load; infinite on timeout
     * @param keptUp whether the warehouse kept up with what the source issued: its backlog drained
     *     within the bound and its p99 was within the bound
     * @param cpu CPU used from the step's start until caught up
     * @param cpuWindowSeconds how long that was
     * @param rowsWritten warehouse row writes for the step; -1 when not counted
     */
    public record Step(
            boolean fixed,
            double target,
            double txPerSecond,
            double changesPerSecond,
            long changes,
            Histogram latency,
            Histogram pipelineLatency,
            double catchUpSeconds,
            boolean keptUp,
            CpuMeter.Usage cpu,
            double cpuWindowSeconds,
            long rowsWritten) {
        /** Whether the source issued at least 95% of the target rate. */
        public boolean sourceReached() {
            return txPerSecond >= SOURCE_REACHED * target;
        }

        /** Whether the warehouse kept up with a source that issued the target rate. */
        public boolean sustained() {
            return keptUp && sourceReached();
        }

        /**
         * Whether the warehouse kept up with everything the source issued, but the source fell
         * short of the target: the pipeline sustained at least this step's rate, and the source
         * (which shares the machine) is what bounds the ladder.
         */
        public boolean sourceLimited() {
            return keptUp && !sourceReached();
        }

        /** Machine CPU seconds per million source row changes. */
        public double machineCpuPerMillion() {
            return changes == 0 ? Double.NaN : cpu.machineSeconds() / changes * 1e6;
        }

        /** This JVM's CPU seconds per million source row changes. */
        public double jvmCpuPerMillion() {
            return changes == 0 ? Double.NaN : cpu.jvmSeconds() / changes * 1e6;
        }

        /** PostgreSQL's (source and warehouse) CPU seconds per million source row changes. */
        public double postgresCpuPerMillion() {
            return changes == 0 ? Double.NaN : cpu.postgresSeconds() / changes * 1e6;
        }

        /**
         * Of {@link #machineCpuPerMillion}, the processes that ended during the step (the load's
         * database sessions) per million source row changes.
         */
        public double endedCpuPerMillion() {
            return changes == 0 ? Double.NaN : cpu.endedSeconds() / changes * 1e6;
        }

        /** Cores the machine kept busy on average from the step's start until caught up. */
        public double machineCores() {
            return cpu.machineSeconds() / cpuWindowSeconds;
        }
    }

    /**
     * The ladder's steps.
     *
     * @param issued the transactions the ladder's loads issued, warm-up included: the number of the
     *     next load's first
     */
    public record Result(Step fixed, List<Step> steps, long issued) {
        /** Steps whose loads' count is not needed. */
        public Result(Step fixed, List<Step> steps) {
            this(fixed, steps, 0);
        }

        /**
         * The step with the most changes per second that the warehouse kept up with: sustained, or
         * {@linkplain Step#sourceLimited() limited by the source}.
         */
        public Optional<Step> best() {
            Step best = null;
            for (Step s : steps) {
                if (s.keptUp()
                        && (best == null || s.changesPerSecond() > best.changesPerSecond())) {
                    best = s;
                }
            }
            if (fixed != null
                    && fixed.keptUp()
                    && (best == null || fixed.changesPerSecond() > best.changesPerSecond())) {
                best = fixed;
            }
            return Optional.ofNullable(best);
        }

        /**
         * Whether {@link #best()} is only a lower bound of what the pipeline sustains: the ladder
         * ended at a step whose warehouse kept up and whose source fell short of the rate, so no
         * step found the pipeline's limit.
         */
        public boolean lowerBound() {
            return !steps.isEmpty() && steps.get(steps.size() - 1).sourceLimited();
        }

        /** True when the last step's backlog drained (the warehouse can be verified). */
        public boolean caughtUp() {
            Step last = steps.isEmpty() ? fixed : steps.get(steps.size() - 1);
            return last == null || !Double.isInfinite(last.catchUpSeconds());
        }
    }

    /** Hears about progress. */
    public interface Listener {
        default void warmup(Duration length, double rate) {}

        default void step(Step step) {}

        /** The steps run without the checkpoint before each (the user may not ask for one). */
        default void noCheckpoint(String why) {}
    }

    private final Plan plan;
    private boolean checkpointing = true;

    public RateLadder(Plan plan) {
        this.plan = plan;
    }

    /**
     * Runs the plan on a started target whose warehouse has caught up.
     *
     * @throws dev.cdclab.orchestration.operate.StageFailedException when a part fails meanwhile
     */
    public Result run(BenchTarget target, Workload workload, Listener listener)
            throws SQLException {
        long next = 0;
        if (!plan.warmup().isZero()) {
            double rate = plan.fixedRate() > 0 ? plan.fixedRate() : plan.rates().get(0);
            listener.warmup(plan.warmup(), rate);
            try {
                next +=
                        LoadPhases.warmUp(
                                        target,
                                        workload,
                                        target::sourceConnection,
                                        plan.threads(),
                                        rate,
                                        plan.warmup(),
                                        plan.catchUpTimeout())
                                .issued();
            } catch (RuntimeException | SQLException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }
        Step fixed = null;
        long[] issued = {next};
        if (plan.fixedRate() > 0) {
            fixed = measure(target, workload, plan.fixedRate(), true, issued, listener);
            listener.step(fixed);
        }
        List<Step> steps = new ArrayList<>();
        if (fixed == null || !Double.isInfinite(fixed.catchUpSeconds())) {
            for (double rate : plan.rates()) {
                Step s = measure(target, workload, rate, false, issued, listener);
                steps.add(s);
                listener.step(s);
                if (Double.isInfinite(s.catchUpSeconds())
                        || (plan.stopAtFirstMiss() && !s.sustained())) {
                    break;
                }
            }
        }
        return new Result(fixed, steps, issued[0]);
    }

    private Step measure(
            BenchTarget target,
            Workload workload,
            double rate,
            boolean fixed,
            long[] issued,
            Listener listener)
            throws SQLException {
        boolean countRows = fixed && plan.countRows();
        if (!fixed && checkpointing) {
            // the rising steps decide the sustained rate: each starts right after a checkpoint,
            // so none is the one a timed checkpoint happens to fall in
            try {
                target.checkpoint();
            } catch (SQLException e) {
                checkpointing = false;
                listener.noCheckpoint(e.getMessage());
            }
        }
        long rows0 = countRows ? target.rowsWritten() : -1;
        target.beforeStep();
        CpuMeter.Reading cpu0 = CpuMeter.read();
        long t0 = System.nanoTime();
        long fromMicros = nowMicros();
        LoadRunner r = load(target, workload, rate, plan.step(), issued[0]);
        LoadStats s;
        try {
            s = LoadPhases.load(target, r);
        } catch (RuntimeException | SQLException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        issued[0] += r.issued();
        long toMicros = nowMicros();
        double secs = r.elapsedSeconds();
        double catchUp;
        try {
            catchUp = target.awaitCaughtUp(plan.catchUpTimeout()).toMillis() / 1000.0;
        } catch (CatchUpTimeoutException e) {
            catchUp = Double.POSITIVE_INFINITY;
        }
        CpuMeter.Usage cpu = CpuMeter.read().since(cpu0);
        double window = (System.nanoTime() - t0) / 1e9;
        Histogram lat = target.latency(fromMicros, toMicros);
        Histogram own = target.pipelineLatency();
        long rows = countRows && !Double.isInfinite(catchUp) ? target.rowsWritten() - rows0 : -1;
        boolean keptUp =
                catchUp <= plan.maxCatchUp().toMillis() / 1000.0
                        && lat.getTotalCount() > 0
                        && lat.getValueAtPercentile(99) <= plan.maxP99().toMillis();
        return new Step(
                fixed,
                rate,
                s.transactions() / secs,
                s.sourceChanges() / secs,
                s.sourceChanges(),
                lat,
                own,
                catchUp,
                keptUp,
                cpu,
                window,
                rows);
    }

    private LoadRunner load(
            BenchTarget target, Workload workload, double rate, Duration length, long first) {
        return new LoadRunner(
                        workload,
                        target::sourceConnection,
                        new LoadRunner.Options(plan.threads(), rate, length, 0, first))
                .priority(plan.loadPriority());
    }

    private static long nowMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
    }
}
