package dev.cdclab.junit;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a user's test class does: one pipeline for the class, a table with a key and an audit table
 * without one, and a TRUNCATE of both before every test. Every test sees exactly its own rows in
 * the warehouse, and verify compares both tables.
 */
@Timeout(240)
class TruncateBetweenTestsIT {
    @RegisterExtension
    static CdcLabExtension lab = CdcLabExtension.embedded().interval(Duration.ofMillis(200));

    @BeforeAll
    static void schema() throws Exception {
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE orders (id int PRIMARY KEY, status text)");
            s.execute("CREATE TABLE audit_log (order_id int, what text)");
        }
    }

    @BeforeEach
    void cleanUp() throws Exception {
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement()) {
            s.execute("TRUNCATE orders, audit_log");
        }
    }

    @RepeatedTest(3)
    void eachTestSeesOnlyItsOwnRows(org.junit.jupiter.api.RepetitionInfo run) throws Exception {
        int n = 10 * run.getCurrentRepetition();
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement()) {
            s.execute("INSERT INTO orders SELECT g, 'new' FROM generate_series(1, " + n + ") g");
            s.execute("INSERT INTO audit_log SELECT id, 'created' FROM orders");
            s.execute("UPDATE orders SET status = 'paid' WHERE id % 2 = 0");
            s.execute("INSERT INTO audit_log SELECT id, 'paid' FROM orders WHERE id % 2 = 0");
            // an audit row written twice on purpose: both stay
            s.execute("INSERT INTO audit_log VALUES (1, 'created')");
        }
        lab.awaitCaughtUp(Duration.ofSeconds(60));
        try (Connection w = lab.warehouse().getConnection();
                Statement s = w.createStatement()) {
            assertThat(count(s, "SELECT count(*) FROM orders")).isEqualTo(n);
            assertThat(count(s, "SELECT count(*) FROM orders WHERE status = 'paid'"))
                    .isEqualTo(n / 2);
            assertThat(count(s, "SELECT count(*) FROM audit_log")).isEqualTo(n + n / 2 + 1);
            assertThat(
                            count(
                                    s,
                                    "SELECT count(*) FROM audit_log WHERE order_id = 1 AND what ="
                                            + " 'created'"))
                    .isEqualTo(2);
        }
        assertThat(lab.verify().matches()).as(lab.verify().summary()).isTrue();
    }

    private static long count(Statement s, String sql) throws Exception {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
