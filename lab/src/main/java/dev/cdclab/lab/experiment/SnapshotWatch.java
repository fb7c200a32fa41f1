package dev.cdclab.lab.experiment;

import java.lang.management.ManagementFactory;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Watches Debezium's snapshot metrics (JMX, the Connect worker in this JVM) and notes when the
 * initial snapshot started running and when it completed, in {@link System#nanoTime()}.
 */
final class SnapshotWatch implements AutoCloseable {
    private final Thread thread;
    private volatile long startNanos = -1;
    private volatile long endNanos = -1;
    private volatile boolean running = true;

    SnapshotWatch() {
        thread = new Thread(this::loop, "snapshot-watch");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        while (running && endNanos < 0) {
            try {
                Set<ObjectName> names =
                        server.queryNames(
                                new ObjectName(
                                        "debezium.*:type=connector-metrics,context=snapshot,*"),
                                null);
                for (ObjectName n : names) {
                    boolean active = Boolean.TRUE.equals(server.getAttribute(n, "SnapshotRunning"));
                    boolean done = Boolean.TRUE.equals(server.getAttribute(n, "SnapshotCompleted"));
                    if ((active || done) && startNanos < 0) {
                        startNanos = System.nanoTime();
                    }
                    if (done) {
                        endNanos = System.nanoTime();
                    }
                }
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                // the connector is not registered yet, or went away: look again
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    /**
     * The tables were read by cdc-lab's initial load, not Debezium's snapshot: its times are the
     * snapshot's, and Debezium's metrics are no longer watched.
     */
    void loaded(long startNanos, long endNanos) {
        running = false;
        thread.interrupt();
        try {
            thread.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        this.startNanos = startNanos;
        this.endNanos = endNanos;
    }

    /** When the snapshot was first seen running, -1 when not yet. */
    long startNanos() {
        return startNanos;
    }

    /** When it was first seen completed, -1 when not yet. */
    long endNanos() {
        return endNanos;
    }

    /** Seconds the snapshot ran as seen from here, NaN when it has not completed. */
    double seconds() {
        return startNanos < 0 || endNanos < 0 ? Double.NaN : (endNanos - startNanos) / 1e9;
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
