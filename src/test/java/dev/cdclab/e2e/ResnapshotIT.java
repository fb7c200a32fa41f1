package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdclab.junit.CdcLabExtension;
import dev.cdclab.orchestration.verify.VerificationResult;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A warehouse table that drifted from its source (rows changed behind the pipeline's back) is read
 * again on demand while a writer keeps changing the source table: afterwards they are equal, rows
 * gone from the source included. A table without a key is refused with the reason.
 */
@Timeout(300)
class ResnapshotIT {
    @RegisterExtension
    static CdcLabExtension lab = CdcLabExtension.embedded().interval(Duration.ofMillis(200));

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

        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicLong writes = new AtomicLong();
        Thread writer =
                new Thread(
                        () -> {
                            try (Connection c = lab.source().getConnection();
                                    Statement s = c.createStatement()) {
                                int i = 0;
                                while (writing.get()) {
                                    int id = 1 + (i++ * 37) % 5000;
                                    s.execute(
                                            "UPDATE accounts SET balance = balance + 1 WHERE id = "
                                                    + id);
                                    if (i % 50 == 0) {
                                        s.execute("DELETE FROM accounts WHERE id = " + id);
                                    }
                                    writes.incrementAndGet();
                                    Thread.sleep(2);
                                }
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        },
                        "writer");
        writer.start();
        long rows;
        try {
            rows = lab.resnapshot("public.accounts", Duration.ofMinutes(3));
        } finally {
            writing.set(false);
            writer.join();
        }
        assertThat(writes.get()).as("the stream went on meanwhile").isPositive();
        assertThat(rows).isGreaterThan(4000);
        lab.awaitCaughtUp(Duration.ofSeconds(60));
        VerificationResult v = lab.verify();
        assertThat(v.matches()).as(v.tables().toString()).isTrue();
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
