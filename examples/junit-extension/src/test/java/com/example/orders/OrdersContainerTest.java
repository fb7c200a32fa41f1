package com.example.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.junit.CdcLabExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

@Testcontainers(disabledWithoutDocker = true)
class OrdersContainerTest {
    // the official image; CDCLAB_POSTGRES_IMAGE names a compatible local one instead
    static final DockerImageName POSTGRES =
            DockerImageName.parse(System.getenv().getOrDefault("CDCLAB_POSTGRES_IMAGE", "postgres:17"))
                    .asCompatibleSubstituteFor("postgres");

    @Container
    static PostgreSQLContainer db =
            new PostgreSQLContainer(POSTGRES).withCommand("postgres", "-c", "wal_level=logical");

    // Debezium, Kafka, Streams and the sink in this JVM, capturing the container
    @RegisterExtension static CdcLabExtension lab = CdcLabExtension.attach(db);

    @Test
    void ordersWrittenToTheContainerReachTheWarehouse() throws Exception {
        try (Connection c = db.createConnection("");
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE orders (id int PRIMARY KEY, status text)");
            s.execute("INSERT INTO orders SELECT g, 'new' FROM generate_series(1, 100) g");
            s.execute("UPDATE orders SET status = 'paid' WHERE id <= 40");
        }

        lab.awaitCaughtUp(Duration.ofSeconds(30));

        try (Connection w = lab.warehouse().getConnection();
                Statement s = w.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT count(*) FROM orders WHERE status = 'paid'")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(40);
        }
    }
}
