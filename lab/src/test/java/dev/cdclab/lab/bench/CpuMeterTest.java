package dev.cdclab.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CpuMeterTest {

    /** Names from a thread dump of {@code cdc-lab run} (ids shortened), and the JVM's in /proc. */
    @ParameterizedTest
    @CsvSource(
            delimiterString = " => ",
            value = {
                "load-3 => LOAD",
                "debezium-postgresconnector-cdclab-x1-change-event-source-coordinator => CAPTURE",
                "task-thread-cdclab-source-x1-0 => CAPTURE",
                "kafka-producer-network-thread | connector-producer-cdclab-source-x1-0 => CAPTURE",
                "KafkaBasedLog Work Thread - cdclab-connect-x1-offsets => CAPTURE",
                "data-plane-kafka-request-handler-1 => BROKER",
                "group-coordinator-event-processor-0 => BROKER",
                "kafka-1-raft-io-thread => BROKER",
                "cdclab-net-changes-x1-4deab-StreamThread-1 => STREAMS",
                "kafka-producer-network-thread | cdclab-net-changes-x1-4deab-StreamThread-1-producer"
                        + " => STREAMS",
                "warehouse-sink => SINK",
                "kafka-coordinator-heartbeat-thread | cdclab-warehouse-sink-x1 => SINK",
                "cdc-lab-duckdb-checkpoint => SINK",
                "C2 CompilerThre => JIT",
                "C1 CompilerThre => JIT",
                "GC Thread#0 => GC",
                "G1 Refine#0 => GC",
                "progress => OTHER",
                "main => OTHER"
            })
    void tellsWhatAThreadWorksForByItsName(String name, ThreadRole role) {
        assertThat(ThreadRole.of(name)).isEqualTo(role);
    }

    @Test
    void countsTheTimeOfRunningThreadsToTheirRolesAndOfEndedOnesToOther() throws Exception {
        assumeThat(Files.isDirectory(Path.of("/proc/self/task"))).isTrue();
        CpuMeter.Reading before = CpuMeter.read();
        Thread sink = new Thread(CpuMeterTest::spinForAQuarterSecondOfCpu, "warehouse-sink");
        sink.start();
        sink.join(TimeUnit.SECONDS.toMillis(30));
        CountDownLatch spun = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread load = spinThenHold("load-0", spun, release);
        assertThat(spun.await(30, TimeUnit.SECONDS)).isTrue();
        CpuMeter.Usage usage = CpuMeter.read().since(before);
        release.countDown();
        load.join();

        assertThat(usage.wallSeconds()).isGreaterThan(0.25);
        // the load thread still runs: its quarter second is the load generator's
        assertThat(usage.jvmRoles().get(ThreadRole.LOAD)).isBetween(0.24, 0.4);
        // the sink's thread ended: its time counts in the process's only, as "other"
        assertThat(usage.jvmRoles().getOrDefault(ThreadRole.SINK, 0.0)).isLessThan(0.05);
        assertThat(usage.jvmRoles().get(ThreadRole.OTHER)).isGreaterThanOrEqualTo(0.2);
        assertThat(usage.jvmSeconds()).isGreaterThanOrEqualTo(0.5);
        assertThat(usage.cores(usage.jvmSeconds()))
                .isEqualTo(usage.jvmSeconds() / usage.wallSeconds());
    }

    @Test
    void aWatchCountsAThreadThatEndedToItsRoleUpToItsLastSample() throws Exception {
        assumeThat(Files.isDirectory(Path.of("/proc/self/task"))).isTrue();
        CpuMeter.ThreadWatch watch = new CpuMeter.ThreadWatch();
        CpuMeter.Reading before = CpuMeter.read(watch);
        CountDownLatch spun = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread load = spinThenHold("load-0", spun, release);
        assertThat(spun.await(30, TimeUnit.SECONDS)).isTrue();
        watch.sample();
        release.countDown();
        load.join();

        CpuMeter.Usage usage = CpuMeter.read(watch).since(before);

        assertThat(usage.jvmRoles().get(ThreadRole.LOAD)).isBetween(0.24, 0.4);
    }

    @Test
    void countsAChildProcessThatEndedInBetweenInItsParent() throws Exception {
        assumeThat(Files.isDirectory(Path.of("/proc/self/task"))).isTrue();
        CpuMeter.Reading before = CpuMeter.read();
        // busy for a second of wall time, then gone: the JVM waited for it
        Process child =
                new ProcessBuilder("timeout", "1", "sh", "-c", "while :; do :; done").start();
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();

        CpuMeter.Usage usage = CpuMeter.read().since(before);

        assertThat(usage.jvmSeconds()).isGreaterThanOrEqualTo(0.3);
        assertThat(usage.machineSeconds()).isGreaterThanOrEqualTo(usage.jvmSeconds());
        assertThat(usage.endedSeconds()).isGreaterThanOrEqualTo(0.3);
        assertThat(usage.endedSeconds()).isLessThanOrEqualTo(usage.machineSeconds());
    }

    @Test
    void countsOnlyTheTimeAnEndedProcessUsedAfterTheEarlierReading() throws Exception {
        assumeThat(Files.isDirectory(Path.of("/proc/self/task"))).isTrue();
        Process child =
                new ProcessBuilder("timeout", "1.6", "sh", "-c", "while :; do :; done").start();
        Thread.sleep(800);
        CpuMeter.Reading before = CpuMeter.read();
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();

        CpuMeter.Usage usage = CpuMeter.read().since(before);

        // at most the 0.8 s of wall time left to it, not the whole of its life
        assertThat(usage.endedSeconds()).isBetween(0.1, 1.05);
    }

    /** A started thread that spins a quarter second of CPU, says so, then waits to be released. */
    private static Thread spinThenHold(String name, CountDownLatch spun, CountDownLatch release) {
        Thread t =
                new Thread(
                        () -> {
                            spinForAQuarterSecondOfCpu();
                            spun.countDown();
                            try {
                                release.await();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        name);
        t.start();
        return t;
    }

    private static void spinForAQuarterSecondOfCpu() {
        var mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long until = mx.getCurrentThreadCpuTime() + TimeUnit.MILLISECONDS.toNanos(260);
        long x = 0;
        while (mx.getCurrentThreadCpuTime() < until) {
            x += System.nanoTime() % 7;
        }
        if (x == 42) {
            System.out.print("");
        }
    }
}
