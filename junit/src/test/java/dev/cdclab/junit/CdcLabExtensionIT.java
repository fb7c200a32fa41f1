package dev.cdclab.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdclab.change.NetChangeMode;
import dev.cdclab.orchestration.verify.VerificationResult;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The extension as an instance field (a pipeline per test), with the builder settings applied, and
 * what its API promises: data sources, catch-up, verification with differing keys, latency,
 * counters.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(240)
class CdcLabExtensionIT {
    private static final Set<String> RUN_IDS = new HashSet<>();

    @RegisterExtension
    CdcLabExtension lab =
            CdcLabExtension.embedded()
                    .interval(Duration.ofMillis(250))
                    .netChanges(NetChangeMode.ALL_WITH_MERGE)
                    .partitions(2);

    @Test
    @Order(1)
    void eachTestHasAPipelineOfItsOwnWithTheBuilderSettings() throws Exception {
        assertThat(RUN_IDS.add(lab.pipeline().runId())).isTrue();
        var settings = lab.pipeline().spec();
        assertThat(settings.interval()).isEqualTo(Duration.ofMillis(250));
        assertThat(settings.mode()).isEqualTo(NetChangeMode.ALL_WITH_MERGE);
        assertThat(settings.partitions()).isEqualTo(2);
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id int PRIMARY KEY, v int)");
            s.execute("INSERT INTO t SELECT g, g FROM generate_series(1, 200) g");
            s.execute("UPDATE t SET v = -v WHERE id <= 50");
        }
        Duration took = lab.awaitCaughtUp(Duration.ofSeconds(60));
        assertThat(took).isLessThan(Duration.ofSeconds(60));
        try (Connection w = lab.warehouse().getConnection();
                Statement s = w.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*), sum(v) FROM t")) {
            rs.next();
            assertThat(rs.getLong(1)).isEqualTo(200);
            assertThat(rs.getLong(2)).isEqualTo(200L * 201 / 2 - 2 * (50L * 51 / 2));
        }
        assertThat(lab.verify().matches()).isTrue();
        assertThat(lab.capturedChanges()).isGreaterThanOrEqualTo(250);
        assertThat(lab.appliedChanges()).isBetween(200L, 250L);
        LatencySnapshot l = lab.latency();
        assertThat(l.count()).isPositive();
        assertThat(l.p50Ms()).isLessThanOrEqualTo(l.p99Ms());
        assertThat(l.p99Ms()).isLessThanOrEqualTo(l.maxMs());
        // the pipeline's lines reach this module's own binding (logback-test.xml: a file)
        assertThat(java.nio.file.Path.of("target", "junit-tests.log"))
                .content()
                .contains(" dev.cdclab.");
    }

    @Test
    @Order(2)
    void verifyNamesTheDifferingTableAndKeys() throws Exception {
        assertThat(RUN_IDS.add(lab.pipeline().runId())).as("a new pipeline").isTrue();
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement()) {
            assertThat(count(s, "SELECT count(*) FROM pg_tables WHERE tablename = 't'"))
                    .as("a fresh source")
                    .isZero();
            s.execute("CREATE TABLE accounts (id int PRIMARY KEY, balance int)");
            s.execute("INSERT INTO accounts SELECT g, 100 FROM generate_series(1, 20) g");
        }
        lab.awaitCaughtUp(Duration.ofSeconds(60));
        try (Connection w = lab.warehouse().getConnection();
                Statement s = w.createStatement()) {
            s.execute("UPDATE accounts SET balance = 99 WHERE id = 7");
            s.execute("DELETE FROM accounts WHERE id = 9");
        }
        VerificationResult v = lab.verify();
        assertThat(v.matches()).isFalse();
        assertThat(v.differingTables()).containsExactly("public.accounts");
        assertThat(v.tables().get(0).differingKeys()).containsExactly("(id=7)", "(id=9)");
    }

    @Test
    @Order(3)
    void catchUpThatTimesOutSaysHowFarBehindTheWarehouseIs() throws Exception {
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE late (id int PRIMARY KEY)");
            s.execute("INSERT INTO late VALUES (1)");
        }
        assertThatThrownBy(() -> lab.awaitCaughtUp(Duration.ZERO))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("warehouse did not catch up within 0ms")
                .hasMessageContaining("captured");
        lab.awaitCaughtUp(Duration.ofSeconds(60));
    }

    private static long count(Statement s, String sql) throws Exception {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
