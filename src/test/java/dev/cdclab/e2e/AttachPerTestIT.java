package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.junit.CdcLabExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * {@code CdcLabExtension.attach(...)} as an instance field: a pipeline per test on one shared
 * container, each removing its replication slot and publication when its test ends.
 */
@Testcontainers(disabledWithoutDocker = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(300)
class AttachPerTestIT {
    @Container static PostgreSQLContainer postgres = TestContainers.postgres();

    @RegisterExtension CdcLabExtension lab = CdcLabExtension.attach(postgres);

    @Test
    @Order(1)
    void firstPipeline() throws Exception {
        writeAndCheck("first");
    }

    @Test
    @Order(2)
    void secondPipelineFindsNothingLeftByTheFirst() throws Exception {
        writeAndCheck("second");
    }

    private void writeAndCheck(String table) throws Exception {
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement()) {
            assertThat(count(s, "SELECT count(*) FROM pg_replication_slots"))
                    .as("only this test's slot")
                    .isEqualTo(1);
            assertThat(count(s, "SELECT count(*) FROM pg_publication"))
                    .as("only this test's publication")
                    .isEqualTo(1);
            s.execute("CREATE TABLE " + table + " (id int PRIMARY KEY, v text)");
            s.execute("INSERT INTO " + table + " SELECT g, 'x' FROM generate_series(1, 50) g");
        }
        lab.awaitCaughtUp(Duration.ofSeconds(60));
        assertThat(lab.verify().matches()).as(lab.verify().summary()).isTrue();
    }

    private static long count(Statement s, String sql) throws Exception {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
