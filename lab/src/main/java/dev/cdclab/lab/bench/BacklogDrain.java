package dev.cdclab.lab.bench;

import dev.cdclab.format.Numbers;
import dev.cdclab.load.run.LoadRunner;
import dev.cdclab.load.run.LoadStats;
import dev.cdclab.load.workload.Workload;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The backlog phase of a comparison: with capture stopped (the replication slot keeps the log), the
 * source commits a backlog of changes as fast as it can; then capture starts again, and the phase
 * measures how fast the pipeline drains it, and the CPU that took. On a machine where the source
 * cannot write faster than either pipeline applies, this is where their limits show.
 */
public final class BacklogDrain {
    /** Each chunk of the backlog's load: the count is checked between chunks. */
    private static final Duration CHUNK = Duration.ofSeconds(10);

    /**
     * What a drain measured.
     *
     * @param changes the changes the source committed while capture was stopped
     * @param writeSeconds how long the source took to commit them
     * @param seconds from capture's start until the warehouse held every one of them
     * @param cpu the CPU of the drain
     */
    public record Drain(long changes, double writeSeconds, double seconds, CpuMeter.Usage cpu) {
        /** Changes per second drained. */
        public double changesPerSecond() {
            return seconds > 0 ? changes / seconds : 0;
        }

        /** Machine CPU seconds per million changes drained (every process). */
        public double cpuPerMillion() {
            return changes > 0 ? cpu.machineSeconds() * 1e6 / changes : Double.NaN;
        }

        /** This JVM's CPU seconds per million changes drained. */
        public double jvmCpuPerMillion() {
            return changes > 0 ? cpu.jvmSeconds() * 1e6 / changes : Double.NaN;
        }

        /** PostgreSQL's CPU seconds per million changes drained (source and warehouse). */
        public double postgresCpuPerMillion() {
            return changes > 0 ? cpu.postgresSeconds() * 1e6 / changes : Double.NaN;
        }

        /** The figures for a JSON report. */
        public Map<String, Object> asMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("changes", changes);
            m.put("write_s", Numbers.round3(writeSeconds));
            m.put("drain_s", Numbers.round3(seconds));
            m.put("drain_changes_per_s", Math.round(changesPerSecond()));
            m.put("cpu_s_per_million_changes_machine", Numbers.round3(cpuPerMillion()));
            m.put("cpu_s_per_million_changes_jvm", Numbers.round3(jvmCpuPerMillion()));
            m.put("cpu_s_per_million_changes_postgres", Numbers.round3(postgresCpuPerMillion()));
            return m;
        }
    }

    private BacklogDrain() {}

    /**
     * Runs the phase on a target whose warehouse has caught up.
     *
     * @param changes about how many changes the backlog holds (it ends at the chunk that reaches
     *     it)
     * @param threads the load generator's threads
     * @param firstTransaction the number of the backlog's first transaction (after every earlier
     *     load's)
     * @param timeout how long the drain may take
     */
    public static Drain run(
            BenchTarget target,
            Workload workload,
            long changes,
            int threads,
            long firstTransaction,
            Duration timeout,
            PrintStream out)
            throws Exception {
        target.awaitCaughtUp(timeout);
        target.stopCapture();
        long written = 0;
        double writeSeconds = 0;
        long next = firstTransaction;
        try {
            while (written < changes) {
                // as fast as the source goes: no pipeline competes for the machine meanwhile
                LoadRunner r =
                        new LoadRunner(
                                workload,
                                target::sourceConnection,
                                new LoadRunner.Options(threads, 0, CHUNK, 0, next));
                LoadStats s = r.run();
                next += r.issued();
                written += s.sourceChanges();
                writeSeconds += r.elapsedSeconds();
                if (s.sourceChanges() == 0) {
                    throw new IllegalStateException("the backlog's load committed no change");
                }
            }
        } catch (Exception e) {
            target.startCapture();
            throw e;
        }
        out.printf(
                Locale.ROOT,
                "backlog: %s changes committed with capture stopped, in %s s; draining%n",
                Numbers.count(written),
                Numbers.fixed2(writeSeconds));
        CpuMeter.Reading cpu0 = CpuMeter.read();
        long t0 = System.nanoTime();
        target.startCapture();
        target.awaitCaughtUp(timeout);
        double seconds = (System.nanoTime() - t0) / 1e9;
        Drain d = new Drain(written, writeSeconds, seconds, CpuMeter.read().since(cpu0));
        out.printf(
                Locale.ROOT,
                "backlog drained in %s s: %s changes/s, CPU s per M changes %.0f (JVM %.0f, PG"
                        + " %.0f)%n",
                Numbers.fixed2(seconds),
                Numbers.count(Math.round(d.changesPerSecond())),
                d.cpuPerMillion(),
                d.jvmCpuPerMillion(),
                d.postgresCpuPerMillion());
        return d;
    }
}
