package dev.cdclab.load.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cdclab.embedded.PostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.concurrent.atomic.AtomicInteger;
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

    private static int nicenessOfAThreadThatApplies(LoadPriority priority, long backend)
            throws Exception {
        AtomicInteger seen = new AtomicInteger(Integer.MIN_VALUE);
        Thread t =
                new Thread(
                        () -> {
                            priority.applyToCurrentThread(backend);
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
