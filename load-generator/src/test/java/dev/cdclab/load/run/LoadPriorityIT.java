package dev.cdclab.load.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cdclab.embedded.PostgresServer;
import dev.cdclab.load.dialect.PostgresDialect;
import dev.cdclab.load.dialect.SqlDialect;
import dev.cdclab.load.workload.Op;
import dev.cdclab.load.workload.PlannedStatement;
import dev.cdclab.load.workload.TxPlan;
import dev.cdclab.load.workload.Workload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The load's priority applied to a client thread and to the embedded source's server process. */
@Timeout(120)
class LoadPriorityIT {
    private static PostgresServer pg;

    @BeforeAll
    static void start() {
        assumeTrue(Files.exists(Path.of("/proc/thread-self")), "Linux only");
        pg = PostgresServer.builder().start();
    }

    @AfterAll
    static void stop() {
        if (pg != null) {
            pg.close();
        }
    }

    @Test
    void aLoweredPriorityRenicesTheClientThreadAndItsServerProcess() throws Exception {
        LoadPriority priority = new LoadPriority(10, true);
        try (Connection c = pg.connect()) {
            long backend = priority.backendPid(c);
            assertThat(backend).isPositive();
            assertThat(niceness(Path.of("/proc/" + backend + "/stat"))).isZero();

            assertThat(nicenessOfAThreadThatApplies(priority, backend)).isEqualTo(10);
            assertThat(niceness(Path.of("/proc/" + backend + "/stat"))).isEqualTo(10);
        }
    }

    @Test
    void theServerProcessesAutogroupIsLoweredAndThePipelinesIsNot() throws Exception {
        Path own = Path.of("/proc/self/autogroup");
        assumeTrue(Files.exists(own), "a kernel with scheduler autogroups");
        String pipelineBefore = Files.readString(own);
        LoadPriority priority = new LoadPriority(13, true);
        try (Connection c = pg.connect()) {
            long backend = priority.backendPid(c);
            // PostgreSQL gives each server process a session, and so an autogroup, of its own
            assertThat(LoadPriority.session(backend)).isEqualTo(backend);
            assertThat(Files.readString(Path.of("/proc/" + backend + "/autogroup")))
                    .contains("nice 0");

            nicenessOfAThreadThatApplies(priority, backend);

            assertThat(Files.readString(Path.of("/proc/" + backend + "/autogroup")))
                    .contains("nice 13");
            assertThat(Files.readString(own)).isEqualTo(pipelineBefore);
        }
    }

    @Test
    void theSourcesProcessesKeepTheirPriorityWhenTheyAreNotThisMachines() throws Exception {
        LoadPriority priority = new LoadPriority(10, false);
        try (Connection c = pg.connect()) {
            assertThat(priority.backendPid(c)).isEqualTo(-1);
            assertThat(nicenessOfAThreadThatApplies(priority, -1)).isEqualTo(10);
        }
    }

    @Test
    void theNormalPriorityChangesNothing() throws Exception {
        try (Connection c = pg.connect()) {
            assertThat(LoadPriority.NORMAL.backendPid(c)).isEqualTo(-1);
        }
        assertThat(nicenessOfAThreadThatApplies(LoadPriority.NORMAL, -1)).isZero();
    }

    @Test
    void aNicenessOutsideLinuxsRangeIsRefused() {
        assertThatThrownBy(() -> new LoadPriority(20, true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0..19");
        assertThatThrownBy(() -> new LoadPriority(-1, true))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void everyClientThreadRunsLoweredFromItsFirstTransaction() throws Exception {
        Set<Integer> seen = ConcurrentHashMap.newKeySet();
        Workload probe = new NicenessProbe(seen);
        LoadStats stats =
                new LoadRunner(
                                probe,
                                pg::connect,
                                new LoadRunner.Options(4, 0, Duration.ofSeconds(30), 40))
                        .priority(new LoadPriority(12, true))
                        .run();
        assertThat(stats.transactions()).isEqualTo(40);
        assertThat(seen).containsExactly(12);
    }

    /**
     * A workload of {@code SELECT 1} whose plans note the niceness of the thread asking for them.
     */
    private record NicenessProbe(Set<Integer> seen) implements Workload {
        @Override
        public String name() {
            return "niceness-probe";
        }

        @Override
        public String description() {
            return "notes the niceness of each client thread";
        }

        @Override
        public SqlDialect dialect() {
            return new PostgresDialect();
        }

        @Override
        public List<String> tables() {
            return List.of();
        }

        @Override
        public void createSchema(Connection c) {}

        @Override
        public long prefillRows() {
            return 0;
        }

        @Override
        public long prefill(Connection c, LongConsumer progress) {
            return 0;
        }

        @Override
        public TxPlan plan(long i) {
            try {
                seen.add(niceness(Path.of("/proc/thread-self/stat")));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return new TxPlan(
                    "probe",
                    List.of(new PlannedStatement(Op.SELECT, "SELECT 1", new Object[0], -1)));
        }
    }

    private static int nicenessOfAThreadThatApplies(LoadPriority priority, long backend)
            throws Exception {
        AtomicInteger seen = new AtomicInteger(Integer.MIN_VALUE);
        Thread t =
                new Thread(
                        () -> {
                            priority.apply(List.of(priority.currentThreadId(), backend));
                            try {
                                seen.set(niceness(Path.of("/proc/thread-self/stat")));
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        },
                        "load-priority-test");
        t.start();
        t.join();
        return seen.get();
    }

    /** The niceness field of a {@code /proc/.../stat} line (the 19th). */
    private static int niceness(Path stat) throws Exception {
        String s = Files.readString(stat);
        String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
        return Integer.parseInt(f[16]);
    }
}
