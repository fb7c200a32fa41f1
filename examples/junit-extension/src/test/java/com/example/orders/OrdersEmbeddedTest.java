package com.example.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.junit.CdcLabExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class OrdersEmbeddedTest {
    // PostgreSQL, Kafka, Kafka Connect + Debezium, Streams and the sink, in this JVM
    @RegisterExtension
    static CdcLabExtension lab = CdcLabExtension.embedded().interval(Duration.ofMillis(200));

    @Test
    void paidOrdersReachTheWarehouse() throws Exception {
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE orders (id int PRIMARY KEY, status text)");
            s.execute("INSERT INTO orders SELECT g, 'new' FROM generate_series(1, 100) g");
            s.execute("UPDATE orders SET status = 'paid' WHERE id <= 40");
            s.execute("DELETE FROM orders WHERE id > 90");
        }

        lab.awaitCaughtUp(Duration.ofSeconds(30));

        try (Connection w = lab.warehouse().getConnection();
                Statement s = w.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT count(*) FROM orders WHERE status = 'paid'")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(40);
        }
        assertThat(lab.verify().matches()).isTrue();
        assertThat(lab.latency().p99Ms()).isLessThan(5_000);
    }
}
