package dev.cdclab.load.run;

import dev.cdclab.load.workload.Op;
import dev.cdclab.load.workload.PlannedStatement;
import dev.cdclab.load.workload.TxPlan;
import dev.cdclab.load.workload.Workload;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives a workload open loop: transaction {@code i} is due at {@code start + i / rate} and its
 * latency counts from then, so a stall shows up in the histogram instead of slowing the schedule.
 * With rate 0 it runs closed loop, as fast as the threads go.
 */
public final class LoadRunner {
    private static final Logger LOG = LoggerFactory.getLogger(LoadRunner.class);

    /** Opens connections for the worker threads. */
    @FunctionalInterface
    public interface ConnectionFactory {
        Connection open() throws SQLException;
    }

    /**
     * How to run.
     *
     * @param threads client threads, one connection each
     * @param rate target transactions per second; 0 = as fast as possible
     * @param duration how long to issue transactions
     * @param maxTransactions stop after this many; 0 = no limit
     * @param firstTransaction number of the first transaction (plans are numbered), so that runs
     *     after a warm-up issue new statements
     */
    public record Options(
            int threads,
            double rate,
            Duration duration,
            long maxTransactions,
            long firstTransaction) {

        public Options(int threads, double rate, Duration duration, long maxTransactions) {
            this(threads, rate, duration, maxTransactions, 0);
        }
    }

    private final Workload workload;
    private final ConnectionFactory connections;
    private final Options options;
    private final LoadStats stats = new LoadStats();
    private final AtomicLong next = new AtomicLong();
    private final AtomicReference<SQLException> firstError = new AtomicReference<>();
    private volatile boolean stopRequested;
    private volatile long startNanos;
    private volatile long endNanos;
    private LoadPriority priority = LoadPriority.NORMAL;

    public LoadRunner(Workload workload, ConnectionFactory connections, Options options) {
        this.workload = workload;
        this.connections = connections;
        this.options = options;
    }

    public LoadStats stats() {
        return stats;
    }

    /**
     * Sets the CPU priority the client threads (and, where it says so, the source's server
     * processes serving them) run at; normal unless set.
     *
     * @return this runner
     */
    public LoadRunner priority(LoadPriority priority) {
        this.priority = java.util.Objects.requireNonNull(priority, "priority");
        return this;
    }

    /** Asks the workers to stop after their current transaction. */
    public void stop() {
        stopRequested = true;
    }

    /** Seconds since the run started (0 before). */
    public double elapsedSeconds() {
        long s = startNanos;
        if (s == 0) {
            return 0;
        }
        long e = endNanos != 0 ? endNanos : System.nanoTime();
        return (e - s) / 1e9;
    }

    /**
     * Runs the workload and blocks until done.
     *
     * @throws IllegalStateException when connections cannot be opened
     */
    public LoadStats run() {
        List<Connection> conns = new ArrayList<>();
        List<Long> backends = new ArrayList<>();
        try {
            for (int t = 0; t < options.threads(); t++) {
                Connection c = connections.open();
                conns.add(c);
                backends.add(priority.backendPid(c));
                c.setAutoCommit(false);
            }
        } catch (SQLException e) {
            conns.forEach(LoadRunner::closeQuietly);
            throw new IllegalStateException("cannot open source connections: " + e.getMessage(), e);
        }
        // each worker reports the id it is scheduled by and waits; one renice lowers them all (and
        // their server processes) before the schedule starts
        int n = conns.size();
        long[] threadIds = new long[n];
        CountDownLatch ready = new CountDownLatch(n);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < n; t++) {
            Connection c = conns.get(t);
            int slot = t;
            Thread w =
                    new Thread(
                            () -> {
                                threadIds[slot] = priority.currentThreadId();
                                ready.countDown();
                                try {
                                    go.await();
                                } catch (InterruptedException e) {
                                    return;
                                }
                                work(c);
                            },
                            "load-" + t);
            w.setDaemon(true);
            workers.add(w);
            w.start();
        }
        try {
            ready.await();
            List<Long> ids = new ArrayList<>(backends);
            for (long id : threadIds) {
                ids.add(id);
            }
            priority.apply(ids);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop();
        }
        startNanos = System.nanoTime();
        go.countDown();
        for (Thread w : workers) {
            try {
                w.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                stop();
            }
        }
        endNanos = System.nanoTime();
        conns.forEach(LoadRunner::closeQuietly);
        return stats;
    }

    private void work(Connection c) {
        Map<String, PreparedStatement> prepared = new HashMap<>();
        double nanosPerTx = options.rate() > 0 ? 1e9 / options.rate() : 0;
        long durationNanos = options.duration().toNanos();
        try {
            while (!stopRequested) {
                long n = next.getAndIncrement();
                if (options.maxTransactions() > 0 && n >= options.maxTransactions()) {
                    return;
                }
                long i = options.firstTransaction() + n;
                long intended;
                if (nanosPerTx > 0) {
                    intended = startNanos + (long) (n * nanosPerTx);
                    if (intended - startNanos >= durationNanos) {
                        return;
                    }
                    long wait;
                    while ((wait = intended - System.nanoTime()) > 0 && !stopRequested) {
                        LockSupport.parkNanos(Math.min(wait, 100_000_000L));
                    }
                    if (stopRequested) {
                        return;
                    }
                } else {
                    intended = System.nanoTime();
                    if (intended - startNanos >= durationNanos) {
                        return;
                    }
                }
                TxPlan plan = workload.plan(i);
                long changes = execute(c, prepared, plan);
                for (int retry = 0; changes == RETRY && retry < MAX_RETRIES; retry++) {
                    stats.retry();
                    changes = execute(c, prepared, plan);
                }
                if (changes == RETRY) {
                    stats.error();
                    changes = -1;
                }
                long done = System.nanoTime();
                if (changes >= 0) {
                    stats.transaction(
                            plan.type(),
                            (done - intended) / 1000,
                            (done - startNanos) / 1_000_000_000L,
                            changes);
                }
            }
        } finally {
            prepared.values().forEach(LoadRunner::closeQuietly);
        }
    }

    private static final long RETRY = -2;
    private static final int MAX_RETRIES = 5;

    /**
     * Runs one planned transaction; returns row changes, {@link #RETRY} after a deadlock or
     * serialization failure (rolled back, worth repeating), or -1 when it failed otherwise.
     */
    private long execute(Connection c, Map<String, PreparedStatement> prepared, TxPlan plan) {
        long changes = 0;
        long[] opRows = new long[Op.values().length];
        long triggered = 0;
        try {
            for (PlannedStatement st : plan.statements()) {
                PreparedStatement ps = prepared.get(st.sql());
                if (ps == null) {
                    ps = c.prepareStatement(st.sql());
                    prepared.put(st.sql(), ps);
                }
                Object[] params = st.params();
                for (int p = 0; p < params.length; p++) {
                    Object v = st.isTimestamp(p) ? nowMicros() : params[p];
                    ps.setObject(p + 1, v);
                }
                switch (st.op()) {
                    case SELECT -> {
                        try (var rs = ps.executeQuery()) {
                            long n = 0;
                            while (rs.next()) {
                                n++;
                            }
                            opRows[st.op().ordinal()] += n;
                        }
                    }
                    default -> {
                        int n = ps.executeUpdate();
                        opRows[st.op().ordinal()] += n;
                        changes += n;
                        if (st.triggeredChanges() > 0) {
                            triggered += (long) n * st.triggeredChanges();
                            changes += (long) n * st.triggeredChanges();
                        }
                    }
                }
            }
            c.commit();
            // counted only once committed: a rolled-back attempt changed nothing
            for (Op op : Op.values()) {
                stats.rows(op, opRows[op.ordinal()]);
            }
            stats.triggeredChanges(triggered);
            return changes;
        } catch (SQLException e) {
            try {
                c.rollback();
            } catch (SQLException re) {
                LOG.warn("Rollback failed: {}", re.getMessage());
            }
            if (workload.dialect().isRetryable(e)) {
                return RETRY;
            }
            stats.error();
            if (firstError.compareAndSet(null, e)) {
                LOG.error("Transaction {} failed: {}", plan.type(), e.getMessage());
            }
            return -1;
        }
    }

    /** Transactions issued so far (the next run can start after them). */
    public long issued() {
        return Math.min(
                next.get(),
                options.maxTransactions() > 0 ? options.maxTransactions() : Long.MAX_VALUE);
    }

    /** The first failed transaction's error, if any. */
    public SQLException firstError() {
        return firstError.get();
    }

    private static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            LOG.debug("close: {}", e.getMessage());
        }
    }
}
