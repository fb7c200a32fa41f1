package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdclab.capture.ConnectRestClient;
import dev.cdclab.capture.DebeziumConnectorConfig;
import dev.cdclab.junit.CdcLabExtension;
import dev.cdclab.orchestration.verify.VerificationResult;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A connector that starts over without offsets (stopped before it first committed them, or its
 * offsets reset) reads every table again: rows deleted at the source in between leave the warehouse
 * too, those of a table emptied in between included, while a writer goes on changing the table.
 */
@Timeout(300)
class SnapshotAgainIT {
    @RegisterExtension
    static CdcLabExtension lab =
            CdcLabExtension.embedded()
                    .interval(Duration.ofMillis(200))
                    .partitions(3)
                    // Debezium's own snapshot: a direct load is not taken again when the
                    // connector's offsets go
                    .configure(b -> b.capture("initial.load", "debezium"));

    @Test
    void rowsDeletedBeforeANewSnapshotLeaveTheWarehouse() throws Exception {
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE accounts (id int PRIMARY KEY, balance int)");
            s.execute("INSERT INTO accounts SELECT g, 100 FROM generate_series(1, 2000) g");
            s.execute("CREATE TABLE settings (name text PRIMARY KEY, value text)");
            s.execute("INSERT INTO settings VALUES ('a', '1'), ('b', '2')");
            s.execute("CREATE TABLE notes (id int PRIMARY KEY, body text)");
            s.execute("INSERT INTO notes VALUES (1, 'x'), (2, 'y'), (3, 'z')");
        }
        lab.awaitCaughtUp(Duration.ofSeconds(60));

        String connector = lab.pipeline().names().connectorName();
        ConnectRestClient rest = stopAndDeleteOffsets(connector);
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement()) {
            s.execute("DELETE FROM accounts WHERE id % 10 = 0");
            s.execute("UPDATE accounts SET balance = 7 WHERE id % 10 = 1");
            s.execute("INSERT INTO accounts SELECT g, 5 FROM generate_series(3001, 3050) g");
            s.execute("DELETE FROM settings WHERE name = 'a'");
            // the new snapshot sends no row of it
            s.execute("DELETE FROM notes");
        }

        try (AccountsWriter writer = new AccountsWriter(lab.source(), 2, 2000, 20)) {
            rest.resume(connector);
            rest.awaitRunning(connector, Duration.ofSeconds(60));
            // the writer goes on through the new snapshot and after it
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> lab.pipeline().streams().stats().snapshotChanges() > 0);
            long during = writer.writes();
            await().atMost(Duration.ofSeconds(60)).until(() -> writer.writes() >= during + 300);
        }
        lab.awaitCaughtUp(Duration.ofSeconds(90));
        VerificationResult v = lab.verify();
        assertThat(v.matches()).as(v.tables().toString()).isTrue();
    }

    /**
     * The first transaction the log delivers after a snapshot names no commit before it. One that
     * began before the snapshot's position and committed after the snapshot read its table reaches
     * the warehouse whole, its change logged before that position included.
     */
    @Test
    void aTransactionOpenAcrossTheSnapshotsPositionReachesTheWarehouseWhole() throws Exception {
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE held (id int PRIMARY KEY, v text)");
            s.execute("INSERT INTO held VALUES (1, 'a'), (2, 'b'), (3, 'c')");
        }
        lab.awaitCaughtUp(Duration.ofSeconds(60));
        String connector = lab.pipeline().names().connectorName();
        ConnectRestClient rest = stopAndDeleteOffsets(connector);

        try (Connection open = lab.source().getConnection();
                Statement s = open.createStatement();
                Connection watch = lab.source().getConnection()) {
            open.setAutoCommit(false);
            // Debezium's heartbeat, which it runs once the snapshot has read every table, waits
            // for this transaction: nothing commits between the snapshot's position and it
            s.execute("LOCK TABLE " + HEARTBEAT_TABLE + " IN SHARE ROW EXCLUSIVE MODE");
            s.execute("INSERT INTO held VALUES (1001, 'logged before the snapshot')");
            try (Statement other = watch.createStatement()) {
                // a commit writes the log out past that insert: the snapshot's position, the log's
                // write position, is then after it
                other.execute("INSERT INTO held VALUES (4, 'd')");
            }
            rest.resume(connector);
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> heartbeatWaiting(watch));
            s.execute("INSERT INTO held VALUES (1002, 'logged after it')");
            open.commit();
        }
        lab.awaitCaughtUp(Duration.ofSeconds(90));
        VerificationResult v = lab.verify();
        assertThat(v.matches()).as(v.tables().toString()).isTrue();
    }

    /** Stops the connector and deletes its offsets: resumed, it takes a snapshot again. */
    private static ConnectRestClient stopAndDeleteOffsets(String connector) {
        ConnectRestClient rest =
                new ConnectRestClient(lab.pipeline().infrastructure().connectUrl());
        rest.stop(connector);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> rest.status(connector).connector(), "STOPPED"::equals);
        rest.resetOffsets(connector);
        return rest;
    }

    private static final String HEARTBEAT_TABLE = DebeziumConnectorConfig.HEARTBEAT_TABLE;

    private static boolean heartbeatWaiting(Connection c) throws Exception {
        try (Statement s = c.createStatement();
                ResultSet r =
                        s.executeQuery(
                                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type ="
                                        + " 'Lock' AND query LIKE 'UPDATE "
                                        + HEARTBEAT_TABLE
                                        + "%'")) {
            r.next();
            return r.getInt(1) > 0;
        }
    }
}
