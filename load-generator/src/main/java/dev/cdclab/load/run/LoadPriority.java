package dev.cdclab.load.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CPU priority of the load: its client threads and, for a source on this machine, the server
 * processes serving their connections run at a higher niceness than the pipeline under test.
 *
 * <p>On a machine the source shares with the pipeline, Linux gives every runnable thread its share,
 * so under load the many client threads and their server processes take the cores from the few
 * threads of each pipeline stage, and the pipeline falls behind because its source runs beside it,
 * not because of its own cost. A source of its own machine never does that. Linux only (it needs
 * {@code /proc/thread-self} and {@code renice}); elsewhere, or when renicing fails, the load runs
 * at its normal priority and a warning says so once.
 *
 * <p>With the scheduler's autogroups on ({@code kernel.sched_autogroup_enabled}, outside a CPU
 * cgroup), Linux first shares the cores between sessions, each at its autogroup's niceness, and a
 * thread's own niceness weighs it only against the threads of its session. PostgreSQL starts every
 * server process in a session of its own, so renicing one changes nothing: each of the load's
 * server processes weighed as much as the whole JVM of the pipeline. Its autogroup gets the
 * niceness too.
 *
 * @param nice the niceness to run at, 0 (unchanged) to 19
 * @param sourceBackends whether the source's server processes for the load's connections are on
 *     this machine, in this process namespace, so that their process ids can be reniced too
 */
public record LoadPriority(int nice, boolean sourceBackends) {
    private static final Logger LOG = LoggerFactory.getLogger(LoadPriority.class);
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    /** The load at its normal priority. */
    public static final LoadPriority NORMAL = new LoadPriority(0, false);

    /**
     * The niceness {@code run} and {@code bench} run the load at unless told otherwise: the lowest
     * priority, since Linux weighs every client thread and server process on its own: when all are
     * runnable, 16 of each at niceness 10 (weight 110) weigh as much as three of the pipeline's
     * threads (1,024 each), and at 19 (weight 15) as half of one.
     */
    public static final int DEFAULT_NICE = 19;

    /**
     * @throws IllegalArgumentException for a niceness outside 0..19
     */
    public LoadPriority {
        if (nice < 0 || nice > 19) {
            throw new IllegalArgumentException("load niceness must be 0..19, not " + nice);
        }
    }

    /** Whether the load runs below normal priority. */
    public boolean lowered() {
        return nice > 0;
    }

    /**
     * The process id of the PostgreSQL server process serving {@code c}, or -1 when the source's
     * processes are not to be reniced or the source is not PostgreSQL.
     */
    long backendPid(Connection c) {
        if (!lowered() || !sourceBackends) {
            return -1;
        }
        try {
            if (!"PostgreSQL".equals(c.getMetaData().getDatabaseProductName())) {
                return -1;
            }
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
                rs.next();
                long pid = rs.getLong(1);
                // the client's transaction mode is set by the caller; leave no transaction open
                if (!c.getAutoCommit()) {
                    c.rollback();
                }
                return pid;
            }
        } catch (SQLException e) {
            warnOnce("cannot read the source's server process id: " + e.getMessage());
            return -1;
        }
    }

    /**
     * The id Linux schedules the calling thread by, or -1 when the load is not lowered or the id
     * cannot be read.
     */
    long currentThreadId() {
        if (!lowered()) {
            return -1;
        }
        try {
            // /proc/thread-self -> <pid>/task/<tid>
            return Long.parseLong(
                    Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString());
        } catch (IOException | UnsupportedOperationException | NumberFormatException e) {
            warnOnce("no /proc/thread-self (" + e.getMessage() + ")");
            return -1;
        }
    }

    /**
     * Lowers the priority of the given threads and processes (ids not positive are skipped) with
     * one {@code renice}, and the autogroup of each process that leads its own session. Called once
     * per run, before its schedule starts, so that starting a process counts against no
     * transaction.
     */
    void apply(List<Long> ids) {
        List<String> targets = ids.stream().filter(id -> id > 0).map(String::valueOf).toList();
        if (!lowered() || targets.isEmpty()) {
            return;
        }
        List<String> command =
                new ArrayList<>(List.of("renice", "-n", Integer.toString(nice), "-p"));
        command.addAll(targets);
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                warnOnce("renice did not finish");
            } else if (p.exitValue() != 0) {
                warnOnce("renice failed: " + out);
            }
        } catch (IOException e) {
            warnOnce("cannot run renice: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (String id : targets) {
            if (!lowerAutogroup(Long.parseLong(id))) {
                break;
            }
        }
    }

    /**
     * Sets the niceness of the autogroup of {@code pid} when it leads its own session, the only
     * member of its autogroup; the load's threads share the JVM's session with the pipeline, whose
     * autogroup is left alone. False when Linux refused it, so that the rest are not tried.
     */
    private boolean lowerAutogroup(long pid) {
        Path autogroup = Path.of("/proc/" + pid + "/autogroup");
        if (!Files.exists(autogroup) || session(pid) != pid) {
            return true;
        }
        for (int attempt = 1; ; attempt++) {
            try {
                Files.writeString(autogroup, Integer.toString(nice));
                return true;
            } catch (IOException e) {
                // without CAP_SYS_ADMIN Linux takes one autogroup change per 100 ms, machine-wide,
                // and says EAGAIN to the rest; anything else will not change on a retry
                boolean busy = String.valueOf(e.getMessage()).contains("temporarily unavailable");
                if (!busy || attempt == 30 || Thread.currentThread().isInterrupted()) {
                    if (WARNED.compareAndSet(false, true)) {
                        LOG.warn(
                                "The source's server processes weigh as much as the pipeline: cannot"
                                        + " set the scheduler autogroup of process {}: {}",
                                pid,
                                e.getMessage());
                    }
                    return false;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(110));
            }
        }
    }

    /** The session id of process {@code pid} (the 6th field of its stat line), or -1. */
    static long session(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[3]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static void warnOnce(String why) {
        if (WARNED.compareAndSet(false, true)) {
            LOG.warn("The load runs at its normal CPU priority: {}", why);
        }
    }
}
