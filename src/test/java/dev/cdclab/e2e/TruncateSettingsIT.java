package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdclab.change.NetChangeMode;
import dev.cdclab.junit.CdcLabExtension;
import dev.cdclab.orchestration.verify.TableResult;
import dev.cdclab.orchestration.verify.VerificationResult;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * TRUNCATE with every net-change mode and every sink.truncate setting: propagated with net changes
 * off too, skipped with the table marked diverged, or stopping the sink before its interval.
 */
@Timeout(300)
class TruncateSettingsIT {
    static void truncateAndReload(CdcLabExtension lab) throws Exception {
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id int PRIMARY KEY, v text)");
            s.execute("INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 50) g");
            c.setAutoCommit(false);
            s.execute("UPDATE t SET v = 'changed' WHERE id <= 5");
            s.execute("TRUNCATE t");
            s.execute("INSERT INTO t SELECT g, 'reloaded' FROM generate_series(1, 10) g");
            c.commit();
        }
    }

    static long warehouseRows(CdcLabExtension lab) throws Exception {
        try (Connection w = lab.warehouse().getConnection();
                Statement s = w.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM public.t")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** net changes off: every raw change applied in order, the truncate among them. */
    @Nested
    class NetChangesOff {
        @RegisterExtension
        static CdcLabExtension lab =
                CdcLabExtension.embedded()
                        .interval(Duration.ofMillis(200))
                        .netChanges(NetChangeMode.OFF);

        @Test
        void theTruncateIsAppliedInOrder() throws Exception {
            truncateAndReload(lab);
            lab.awaitCaughtUp(Duration.ofSeconds(60));
            assertThat(warehouseRows(lab)).isEqualTo(10);
            VerificationResult v = lab.verify();
            assertThat(v.matches()).as(v.summary()).isTrue();
        }
    }

    /** sink.truncate=skip: the warehouse keeps its rows and verify says why it differs. */
    @Nested
    class Skip {
        @RegisterExtension
        static CdcLabExtension lab =
                CdcLabExtension.embedded()
                        .interval(Duration.ofMillis(200))
                        .configure(b -> b.sink("truncate", "skip"));

        @Test
        void theTableIsMarkedDiverged() throws Exception {
            truncateAndReload(lab);
            lab.awaitCaughtUp(Duration.ofSeconds(60));
            assertThat(warehouseRows(lab)).isEqualTo(50);
            TableResult t = lab.verify().tables().get(0);
            assertThat(t.matches()).isFalse();
            assertThat(t.differences().get(0).toString())
                    .contains("diverged: TRUNCATE")
                    .contains("sink.truncate=skip");
        }
    }

    /** sink.truncate=stop: the sink stops before the truncate's interval, naming it. */
    @Nested
    class Stop {
        @RegisterExtension
        static CdcLabExtension lab =
                CdcLabExtension.embedded()
                        .interval(Duration.ofMillis(200))
                        .configure(b -> b.sink("truncate", "stop"));

        @Test
        void theSinkStopsBeforeTheTruncatesInterval() throws Exception {
            try (Connection c = lab.source().getConnection();
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id int PRIMARY KEY, v text)");
                s.execute("INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 50) g");
            }
            lab.awaitCaughtUp(Duration.ofSeconds(60));
            try (Connection c = lab.source().getConnection();
                    Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                s.execute("TRUNCATE t");
                s.execute("INSERT INTO t VALUES (1, 'reloaded')");
                c.commit();
            }
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> lab.pipeline().sink().failure().isPresent());
            assertThat(lab.pipeline().sink().failure().get().getMessage())
                    .contains("TRUNCATE of public.t")
                    .contains("sink.truncate=stop");
            assertThat(warehouseRows(lab)).as("nothing of the interval applied").isEqualTo(50);
        }
    }
}
