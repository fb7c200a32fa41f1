package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.junit.CdcLabExtension;
import dev.cdclab.orchestration.verify.VerificationResult;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * {@code CdcLabExtension.attach(...)} on containers the test class manages (PostgreSQL and Kafka),
 * one pipeline for the class.
 */
@Testcontainers(disabledWithoutDocker = true)
@Timeout(300)
class AttachExtensionIT {
    @Container static PostgreSQLContainer postgres = TestContainers.postgres();
    @Container static KafkaContainer kafka = TestContainers.kafka();

    @RegisterExtension
    static CdcLabExtension lab =
            CdcLabExtension.attach(postgres).withKafka(kafka).interval(Duration.ofMillis(300));

    @Test
    void writesToTheContainerReachTheWarehouse() throws Exception {
        assertThat(lab.pipeline().infrastructure().kafkaBootstrapServers())
                .isEqualTo(kafka.getBootstrapServers());
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE orders (id int PRIMARY KEY, status text, total numeric(9,2))");
            s.execute("INSERT INTO orders SELECT g, 'new', g * 1.5 FROM generate_series(1, 300) g");
            s.execute("UPDATE orders SET status = 'paid' WHERE id % 3 = 0");
            s.execute("DELETE FROM orders WHERE id % 10 = 0");
        }
        lab.awaitCaughtUp(Duration.ofSeconds(60));
        try (Connection w = lab.warehouse().getConnection();
                Statement s = w.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT count(*), count(*) FILTER (WHERE status = 'paid') FROM"
                                        + " public.orders")) {
            rs.next();
            assertThat(rs.getLong(1)).isEqualTo(270);
            assertThat(rs.getLong(2)).isEqualTo(90);
        }
        VerificationResult v = lab.verify();
        assertThat(v.matches()).as(v.summary()).isTrue();
        assertThat(lab.capturedChanges()).isGreaterThanOrEqualTo(300 + 100 + 30);
        assertThat(lab.appliedChanges()).isPositive();
        assertThat(lab.latency().count()).isPositive();
        assertThat(lab.latency().p99Ms()).isGreaterThanOrEqualTo(lab.latency().p50Ms());
    }
}
