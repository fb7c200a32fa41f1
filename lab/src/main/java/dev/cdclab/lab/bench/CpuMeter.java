package dev.cdclab.lab.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * CPU time used by every process on the machine, by this JVM and by PostgreSQL, summed from each
 * process's own counters in {@code /proc/<pid>/stat}. The machine-wide counters of {@code
 * /proc/stat} are tick samples, which on a virtual machine drift by a quarter over seconds; the
 * per-process ones come from the scheduler's exact run time. This JVM's time is split by what its
 * threads work for ({@link ThreadRole}): Java threads by their full names and CPU clocks, the JIT
 * compiler's and the collector's threads, which Java does not list, from {@code /proc/self/task}.
 */
public final class CpuMeter {
    private static final Path PROC = Path.of("/proc");
    // USER_HZ: the unit of /proc/<pid>/stat on every Linux build that matters here
    private static final double TICKS_PER_SECOND = 100.0;
    private static final long SELF = ProcessHandle.current().pid();

    /**
     * One process's or thread's counters: a process's ticks include the children it waited for
     * ({@code childTicks} of them); a thread's start time tells a reused id apart.
     */
    private record Proc(String comm, long start, long ticks, long childTicks) {}

    private static final Predicate<Proc> POSTGRES = p -> p.comm().equals("postgres");

    /** A Java thread's name and CPU time. */
    private record JavaThread(String name, long nanos) {}

    /** A reading of every process; {@link #since} turns two into CPU seconds. */
    public static final class Reading {
        private final long nanoTime;
        private final Map<Long, Proc> procs;
        private final Map<Long, JavaThread> javaThreads;
        private final Map<Long, Proc> nativeThreads;

        private Reading(
                long nanoTime,
                Map<Long, Proc> procs,
                Map<Long, JavaThread> javaThreads,
                Map<Long, Proc> nativeThreads) {
            this.nanoTime = nanoTime;
            this.procs = procs;
            this.javaThreads = javaThreads;
            this.nativeThreads = nativeThreads;
        }

        /**
         * CPU seconds used from {@code earlier} to this reading. A process's count holds the
         * children it has waited for, so the sessions that ended in between (the load's, at the end
         * of a phase) count in their postmaster's.
         */
        public Usage since(Reading earlier) {
            long all = Math.max(0, ticks(procs, p -> true) - ticks(earlier.procs, p -> true));
            long jvm = Math.max(0, ticks(procs, SELF) - ticks(earlier.procs, SELF));
            long postgres = Math.max(0, ticks(procs, POSTGRES) - ticks(earlier.procs, POSTGRES));
            return new Usage(
                    all / TICKS_PER_SECOND,
                    jvm / TICKS_PER_SECOND,
                    postgres / TICKS_PER_SECOND,
                    (nanoTime - earlier.nanoTime) / 1e9,
                    roles(earlier, jvm / TICKS_PER_SECOND),
                    ended(earlier) / TICKS_PER_SECOND);
        }

        /**
         * Ticks of the processes that ended in between, from the time their parents gained by
         * waiting for them (their whole lives) less what they had used by the earlier reading.
         */
        private long ended(Reading earlier) {
            long gained = 0;
            for (Proc p : procs.values()) {
                gained += p.childTicks();
            }
            for (Proc p : earlier.procs.values()) {
                gained -= p.childTicks();
            }
            for (Map.Entry<Long, Proc> e : earlier.procs.entrySet()) {
                Proc now = procs.get(e.getKey());
                if (now == null || now.start() != e.getValue().start()) {
                    gained -= e.getValue().ticks() - e.getValue().childTicks();
                }
            }
            return Math.max(0, gained);
        }

        private static long ticks(Map<Long, Proc> procs, long pid) {
            Proc p = procs.get(pid);
            return p == null ? 0 : p.ticks();
        }

        private static long ticks(Map<Long, Proc> procs, Predicate<Proc> which) {
            long sum = 0;
            for (Proc p : procs.values()) {
                if (which.test(p)) {
                    sum += p.ticks();
                }
            }
            return sum;
        }

        /** This JVM's seconds by role; what no thread still running accounts for is "other". */
        private Map<ThreadRole, Double> roles(Reading earlier, double jvmSeconds) {
            Map<ThreadRole, Double> roles = new EnumMap<>(ThreadRole.class);
            for (Map.Entry<Long, JavaThread> e : javaThreads.entrySet()) {
                JavaThread then = earlier.javaThreads.get(e.getKey());
                long used = e.getValue().nanos() - (then == null ? 0 : then.nanos());
                roles.merge(ThreadRole.of(e.getValue().name()), used / 1e9, Double::sum);
            }
            for (Map.Entry<Long, Proc> e : nativeThreads.entrySet()) {
                Proc now = e.getValue();
                Proc then = earlier.nativeThreads.get(e.getKey());
                long used =
                        then != null && then.start() == now.start()
                                ? now.ticks() - then.ticks()
                                : now.ticks();
                roles.merge(ThreadRole.of(now.comm()), used / TICKS_PER_SECOND, Double::sum);
            }
            double named = 0;
            for (Map.Entry<ThreadRole, Double> e : roles.entrySet()) {
                if (e.getKey() != ThreadRole.OTHER) {
                    named += e.getValue();
                }
            }
            // threads that ended in between count in the process's time only; the clocks differ
            // by up to a tick per thread, so "other" is what is left, never below zero
            roles.put(ThreadRole.OTHER, Math.max(0, jvmSeconds - named));
            return Collections.unmodifiableMap(roles);
        }
    }

    /**
     * CPU seconds over a period; NaN where the machine does not say (not Linux).
     *
     * @param machineSeconds every process
     * @param jvmSeconds this JVM (load generator, Kafka, Connect, Streams, sink)
     * @param postgresSeconds PostgreSQL's processes (source and warehouse)
     * @param wallSeconds the time between the two readings
     * @param jvmRoles this JVM's seconds by what its threads work for; empty where not measured
     * @param endedSeconds of {@code machineSeconds}, the time of processes that ended in between
     *     (the load's database sessions, which close with their phase), counted through the parents
     *     that waited for them
     */
    public record Usage(
            double machineSeconds,
            double jvmSeconds,
            double postgresSeconds,
            double wallSeconds,
            Map<ThreadRole, Double> jvmRoles,
            double endedSeconds) {

        /** Usage without the wall time, the JVM's split or the ended processes. */
        public Usage(double machineSeconds, double jvmSeconds, double postgresSeconds) {
            this(machineSeconds, jvmSeconds, postgresSeconds, Double.NaN, Map.of(), 0);
        }

        /** Usage without the ended processes' share. */
        public Usage(
                double machineSeconds,
                double jvmSeconds,
                double postgresSeconds,
                double wallSeconds,
                Map<ThreadRole, Double> jvmRoles) {
            this(machineSeconds, jvmSeconds, postgresSeconds, wallSeconds, jvmRoles, 0);
        }

        /** Cores busy on average over the wall time: {@code seconds / wallSeconds}. */
        public double cores(double seconds) {
            return wallSeconds > 0 ? seconds / wallSeconds : Double.NaN;
        }
    }

    private CpuMeter() {}

    /**
     * Follows this JVM's Java threads between readings: sampled every second or so, a thread that
     * ends before the next reading (the load generator's, at the end of a phase) still counts to
     * its role, up to its last sample.
     */
    public static final class ThreadWatch {
        private final Map<Long, JavaThread> seen = new ConcurrentHashMap<>();

        /** Takes the CPU time of every Java thread running now. */
        public void sample() {
            javaThreads()
                    .forEach(
                            (id, t) -> seen.merge(id, t, (a, b) -> a.nanos() >= b.nanos() ? a : b));
        }

        private Map<Long, JavaThread> sampled() {
            sample();
            return new HashMap<>(seen);
        }
    }

    /** Reads every process's counters, and this JVM's threads' running now. */
    public static Reading read() {
        return read(null);
    }

    /**
     * Reads every process's counters, and this JVM's threads': those {@code watch} has seen, or
     * those running now when it is null.
     */
    public static Reading read(ThreadWatch watch) {
        long now = System.nanoTime();
        Map<Long, JavaThread> javaThreads = watch == null ? javaThreads() : watch.sampled();
        Map<Long, Proc> nativeThreads = new HashMap<>();
        for (Map.Entry<Long, Proc> e :
                stats(PROC.resolve("self").resolve("task"), false).entrySet()) {
            ThreadRole role = ThreadRole.of(e.getValue().comm());
            // Java threads' names are cut to 15 characters here: they are read from Java
            if (role == ThreadRole.JIT || role == ThreadRole.GC) {
                nativeThreads.put(e.getKey(), e.getValue());
            }
        }
        return new Reading(now, stats(PROC, true), javaThreads, nativeThreads);
    }

    private static Map<Long, JavaThread> javaThreads() {
        Map<Long, JavaThread> threads = new HashMap<>();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        if (!mx.isThreadCpuTimeSupported() || !mx.isThreadCpuTimeEnabled()) {
            return threads;
        }
        long[] ids = mx.getAllThreadIds();
        ThreadInfo[] infos = mx.getThreadInfo(ids);
        for (int i = 0; i < ids.length; i++) {
            long nanos = mx.getThreadCpuTime(ids[i]);
            if (infos[i] != null && nanos >= 0) {
                threads.put(ids[i], new JavaThread(infos[i].getThreadName(), nanos));
            }
        }
        return threads;
    }

    /**
     * The counters of every numbered entry of a {@code /proc} directory: processes, with the
     * children they waited for, or threads.
     */
    private static Map<Long, Proc> stats(Path directory, boolean withChildren) {
        Map<Long, Proc> procs = new HashMap<>();
        if (!Files.isDirectory(directory)) {
            return procs;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(directory, "[0-9]*")) {
            for (Path dir : dirs) {
                try {
                    String stat = Files.readString(dir.resolve("stat"));
                    int open = stat.indexOf('(');
                    int close = stat.lastIndexOf(')');
                    String comm = stat.substring(open + 1, close);
                    // fields after the command: state is 3rd; utime 14th, stime 15th, cutime
                    // 16th, cstime 17th, start 22nd
                    String[] f = stat.substring(close + 2).split(" ");
                    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                    long children =
                            withChildren ? Long.parseLong(f[13]) + Long.parseLong(f[14]) : 0;
                    long start = Long.parseLong(f[19]);
                    procs.put(
                            Long.parseLong(dir.getFileName().toString()),
                            new Proc(comm, start, ticks + children, children));
                } catch (IOException | RuntimeException e) {
                    // the process ended while being read
                }
            }
        } catch (IOException e) {
            // no /proc to read: the usage comes out as zero
        }
        return procs;
    }
}
