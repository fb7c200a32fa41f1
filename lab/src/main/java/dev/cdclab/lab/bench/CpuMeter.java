package dev.cdclab.lab.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time used by every process on the machine, by this JVM and by PostgreSQL, summed from each
 * process's own counters in {@code /proc/<pid>/stat}. The machine-wide counters of {@code
 * /proc/stat} are tick samples, which on a virtual machine drift by a quarter over seconds; the
 * per-process ones come from the scheduler's exact run time.
 */
public final class CpuMeter {
    private static final Path PROC = Path.of("/proc");
    // USER_HZ: the unit of /proc/<pid>/stat on every Linux build that matters here
    private static final double TICKS_PER_SECOND = 100.0;
    private static final long SELF = ProcessHandle.current().pid();

    /** One process's counters: its start time tells a reused pid apart. */
    private record Proc(String comm, long start, long ticks) {}

    /** A reading of every process; {@link #since} turns two into CPU seconds. */
    public static final class Reading {
        private final Map<Long, Proc> procs;

        private Reading(Map<Long, Proc> procs) {
            this.procs = procs;
        }

        /** CPU seconds used from {@code earlier} to this reading. */
        public Usage since(Reading earlier) {
            long all = 0;
            long jvm = 0;
            long postgres = 0;
            for (Map.Entry<Long, Proc> e : procs.entrySet()) {
                Proc now = e.getValue();
                Proc then = earlier.procs.get(e.getKey());
                long used =
                        then != null && then.start() == now.start()
                                ? now.ticks() - then.ticks()
                                : now.ticks();
                all += used;
                if (e.getKey() == SELF) {
                    jvm += used;
                } else if (now.comm().equals("postgres")) {
                    postgres += used;
                }
            }
            return new Usage(
                    all / TICKS_PER_SECOND, jvm / TICKS_PER_SECOND, postgres / TICKS_PER_SECOND);
        }
    }

    /**
     * CPU seconds over a period; NaN where the machine does not say (not Linux).
     *
     * @param machineSeconds every process
     * @param jvmSeconds this JVM (load generator, Kafka, Connect, Streams, sink)
     * @param postgresSeconds PostgreSQL's processes (source and warehouse)
     */
    public record Usage(double machineSeconds, double jvmSeconds, double postgresSeconds) {}

    private CpuMeter() {}

    public static Reading read() {
        Map<Long, Proc> procs = new HashMap<>();
        if (!Files.isDirectory(PROC)) {
            return new Reading(procs);
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(PROC, "[0-9]*")) {
            for (Path dir : dirs) {
                try {
                    String stat = Files.readString(dir.resolve("stat"));
                    int open = stat.indexOf('(');
                    int close = stat.lastIndexOf(')');
                    String comm = stat.substring(open + 1, close);
                    // fields after the command: state is 3rd; utime 14th, stime 15th, start 22nd
                    String[] f = stat.substring(close + 2).split(" ");
                    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                    long start = Long.parseLong(f[19]);
                    procs.put(
                            Long.parseLong(dir.getFileName().toString()),
                            new Proc(comm, start, ticks));
                } catch (IOException | RuntimeException e) {
                    // the process ended while being read
                }
            }
        } catch (IOException e) {
            // no /proc to read: the usage comes out as zero
        }
        return new Reading(procs);
    }
}
