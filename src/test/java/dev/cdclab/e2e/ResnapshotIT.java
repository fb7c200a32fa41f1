package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.cdclab.junit.CdcLabExtension;
import dev.cdclab.orchestration.verify.VerificationResult;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A warehouse table that drifted from its source (rows changed behind the pipeline's back) is read
 * again on demand while a writer keeps changing the source table: afterwards they are equal, rows
 * gone from the source included. A commit logged but not yet visible when the reading begins is
 * waited for. A table without a key is refused with the reason.
 */
@Timeout(300)
class ResnapshotIT {
    /**
     * A synchronous standby that never connects: a commit waiting for it is logged, not visible.
     */
    private static final String ABSENT_STANDBY = "cdclab_absent_standby";

    @RegisterExtension
    static CdcLabExtension lab =
            CdcLabExtension.embedded()
                    .interval(Duration.ofMillis(200))
                    .configure(
                            b ->
                                    b.beforeCapture(
                                            src -> {
                                                // every session but the one that asks for it
                                                // commits without waiting for a standby
                                                try (Connection c = src.connect();
                                                        Statement s = c.createStatement()) {
                                                    s.execute(
                                                            "DO $$ BEGIN EXECUTE format('ALTER"
                                                                    + " DATABASE %I SET"
                                                                    + " synchronous_commit = local',"
                                                                    + " current_database()); END $$");
                                                }
                                            }));

    @Test
    void aDriftedTableIsReadAgainWhileTheStreamGoesOn() throws Exception {
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE accounts (id int PRIMARY KEY, balance int)");
            s.execute("INSERT INTO accounts SELECT g, 100 FROM generate_series(1, 5000) g");
        }
        lab.awaitCaughtUp(Duration.ofSeconds(60));
        try (Connection w = lab.warehouse().getConnection();
                Statement s = w.createStatement()) {
            // drift: a row lost, a row that never existed, a wrong value
            s.execute("DELETE FROM public.accounts WHERE id = 10");
            s.execute(
                    "INSERT INTO public.accounts (id, balance, _cdc_lsn) VALUES (99999, 1,"
                            + " '0000000000000001')");
            s.execute("UPDATE public.accounts SET balance = -1 WHERE id = 20");
        }
        assertThat(lab.verify().matches()).as("drifted").isFalse();

        long rows;
        long writes;
        try (AccountsWriter writer = new AccountsWriter(lab.source(), 1, 5000, 50)) {
            rows = lab.resnapshot("public.accounts", Duration.ofMinutes(3));
            writes = writer.writes();
        }
        assertThat(writes).as("the stream went on meanwhile").isPositive();
        assertThat(rows).isGreaterThan(4000);
        lab.awaitCaughtUp(Duration.ofSeconds(60));
        VerificationResult v = lab.verify();
        assertThat(v.matches()).as(v.tables().toString()).isTrue();
    }

    @Test
    void aCommitLoggedButNotYetVisibleWhenTheReadingBeginsIsWaitedFor() throws Exception {
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE held (id int PRIMARY KEY, v int)");
            s.execute("INSERT INTO held SELECT g, 0 FROM generate_series(1, 100) g");
        }
        lab.awaitCaughtUp(Duration.ofSeconds(60));
        ExecutorService background = Executors.newFixedThreadPool(2);
        try (Connection admin = lab.source().getConnection();
                Statement s = admin.createStatement();
                Connection held = lab.source().getConnection();
                Statement h = held.createStatement()) {
            s.execute("ALTER SYSTEM SET synchronous_standby_names = '" + ABSENT_STANDBY + "'");
            s.execute("SELECT pg_reload_conf()");
            try {
                await().atMost(Duration.ofSeconds(30))
                        .until(
                                () -> setting(h, "synchronous_standby_names"),
                                ABSENT_STANDBY::equals);
                h.execute("SET synchronous_commit = on");
                int pid = intOf(h, "SELECT pg_backend_pid()");
                Future<Boolean> commit =
                        background.submit(() -> h.execute("UPDATE held SET v = 1 WHERE id = 7"));
                await().atMost(Duration.ofSeconds(30))
                        .until(
                                () ->
                                        intOf(
                                                s,
                                                "SELECT count(*) FROM pg_stat_activity WHERE pid = "
                                                        + pid
                                                        + " AND wait_event = 'SyncRep'"),
                                n -> n == 1);
                Future<Long> reading =
                        background.submit(
                                () -> lab.resnapshot("public.held", Duration.ofMinutes(3)));
                await().atMost(Duration.ofSeconds(60))
                        .until(
                                () ->
                                        intOf(
                                                s,
                                                "SELECT count(*) FROM cdc_lab.heartbeat WHERE"
                                                        + " reading = 'public.held'"),
                                n -> n > 0);
                assertThat(
                                intOf(
                                        s,
                                        "SELECT count(*) FROM cdc_lab.debezium_signal WHERE type ="
                                                + " 'execute-snapshot' AND data LIKE '%held%'"))
                        .as("no row is read while the logged commit is invisible")
                        .isZero();
                s.execute("ALTER SYSTEM RESET synchronous_standby_names");
                s.execute("SELECT pg_reload_conf()");
                commit.get(60, TimeUnit.SECONDS);
                assertThat(reading.get(3, TimeUnit.MINUTES)).isEqualTo(100);
            } finally {
                s.execute("ALTER SYSTEM RESET synchronous_standby_names");
                s.execute("SELECT pg_reload_conf()");
            }
        } finally {
            background.shutdownNow();
        }
        lab.awaitCaughtUp(Duration.ofSeconds(60));
        VerificationResult v = lab.verify();
        assertThat(v.matches()).as(v.tables().toString()).isTrue();
    }

    @Test
    void aSessionLeftOpenAfterWritingHoldsTheReadingBackAndIsNamed() throws Exception {
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE left_open (id int PRIMARY KEY, v int)");
            s.execute("INSERT INTO left_open VALUES (1, 0)");
        }
        lab.awaitCaughtUp(Duration.ofSeconds(60));
        try (Connection open = lab.source().getConnection();
                Statement s = open.createStatement()) {
            open.setAutoCommit(false);
            s.execute("UPDATE left_open SET v = 1 WHERE id = 1");
            int pid = intOf(s, "SELECT pg_backend_pid()");
            assertThatThrownBy(() -> lab.resnapshot("public.left_open", Duration.ofSeconds(3)))
                    .hasMessageContaining("cannot re-snapshot public.left_open")
                    .hasMessageContaining("transactions open when it began")
                    .hasMessageContaining(Integer.toString(pid));
            open.rollback();
        }
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement()) {
            assertThat(
                            intOf(
                                    s,
                                    "SELECT count(*) FROM cdc_lab.heartbeat WHERE reading IS NOT"
                                            + " NULL"))
                    .as("a reading that never began names no table")
                    .isZero();
        }
        assertThat(lab.resnapshot("public.left_open", Duration.ofMinutes(1))).isEqualTo(1);
    }

    private static String setting(Statement s, String name) throws SQLException {
        try (ResultSet rs = s.executeQuery("SHOW " + name)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static int intOf(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void aTableWithoutAKeyCannotBeReadAgainAndSaysWhy() throws Exception {
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE notes_log (body text)");
            s.execute("INSERT INTO notes_log VALUES ('a'), ('a')");
        }
        assertThatThrownBy(() -> lab.resnapshot("notes_log", Duration.ofSeconds(60)))
                .hasMessageContaining("public.notes_log")
                .hasMessageContaining("NO_PRIMARY_KEY");
    }
}
