package dev.cdclab.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.cdclab.embedded.PostgresServer;
import dev.cdclab.load.dialect.PostgresDialect;
import dev.cdclab.load.run.LoadRunner;
import dev.cdclab.load.run.LoadStats;
import dev.cdclab.load.workload.Op;
import dev.cdclab.load.workload.Workload;
import dev.cdclab.load.workload.WorkloadOptions;
import dev.cdclab.load.workload.Workloads;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The load generator against a real (embedded) PostgreSQL. */
@Timeout(180)
class LoadRunnerIT {
    private static PostgresServer pg;

    @BeforeAll
    static void start() {
        pg = PostgresServer.builder().start();
    }

    @AfterAll
    static void stop() {
        pg.close();
    }

    @Test
    void prefillLoadsTheRowsItPromisesWithCopy() throws Exception {
        Workload w =
                Workloads.create(
                        "mix", new PostgresDialect(), new WorkloadOptions(3, 2_000, -1, -1, 100));
        try (Connection c = pg.connect()) {
            w.createSchema(c);
            long loaded = w.prefill(c, n -> {});
            assertThat(loaded).isEqualTo(w.prefillRows());
            long counted = 0;
            try (Statement s = c.createStatement()) {
                for (String t : w.tables()) {
                    try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + t)) {
                        rs.next();
                        counted += rs.getLong(1);
                    }
                }
            }
            assertThat(counted).isEqualTo(loaded);
        }
    }

    @Test
    void openLoopHoldsTheTargetRateWhenTheDatabaseKeepsUp() throws Exception {
        Workload w =
                Workloads.create(
                        "mix", new PostgresDialect(), new WorkloadOptions(4, 1_000, -1, -1, 100));
        try (Connection c = pg.connect()) {
            w.createSchema(c);
            w.prefill(c, n -> {});
        }
        LoadRunner r =
                new LoadRunner(
                        w, pg::connect, new LoadRunner.Options(4, 200, Duration.ofSeconds(5), 0));
        LoadStats s = r.run();
        double rate = s.transactions() / r.elapsedSeconds();
        assertThat(rate).isCloseTo(200, within(20.0));
        assertThat(s.errors()).isZero();
        assertThat(s.rows().get(Op.INSERT)).isPositive();
        assertThat(s.rows().get(Op.UPDATE)).isPositive();
        assertThat(s.rows().get(Op.DELETE)).isPositive();
        assertThat(s.latency().getTotalCount()).isEqualTo(s.transactions());
        assertThat(s.sourceChanges() / (double) s.transactions()).isBetween(2.5, 5.0);
    }
}
