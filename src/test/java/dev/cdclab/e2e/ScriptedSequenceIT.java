package dev.cdclab.e2e;

import static dev.cdclab.e2e.TestHelper.script;
import static dev.cdclab.e2e.TestHelper.tx;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.junit.CdcLabExtension;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.orchestration.verify.TableResult;
import dev.cdclab.orchestration.verify.VerificationResult;
import dev.cdclab.sink.latency.LatencyRecorder;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The spine end to end: a scripted sequence of inserts, updates and deletes (one key changed many
 * times inside one interval, delete then re-insert, a 10,000-row transaction) on tables created
 * while the pipeline runs; the warehouse must equal the source and every applied net change must
 * have its latency recorded.
 */
@Timeout(300)
class ScriptedSequenceIT {
    @RegisterExtension
    static CdcLabExtension lab = CdcLabExtension.embedded().interval(Duration.ofMillis(500));

    @Test
    void warehouseEqualsSourceAfterTheScript() throws Exception {
        script(lab.source(), "/sql/scripted-schema.sql");
        tx(
                lab.source(),
                "INSERT INTO accounts SELECT g, 'owner ' || g, g * 10.5, NULL, DATE '2024-01-01' + g,"
                        + " now() FROM generate_series(1, 200) g",
                "INSERT INTO events SELECT g, 'k' || (g % 3), jsonb_build_object('n', g), decode(md5(g::text),"
                        + " 'hex'), g / 7.0, g % 2 = 0 FROM generate_series(1, 100) g",
                "INSERT INTO line_items SELECT g / 3, g % 3, gen_random_uuid(), (g % 100)::smallint FROM"
                        + " generate_series(1, 300) g");
        tx(
                lab.source(),
                "UPDATE accounts SET balance = balance + 1, note = 'touched' WHERE id % 5 = 0");
        tx(lab.source(), "DELETE FROM accounts WHERE id > 180");
        tx(lab.source(), "DELETE FROM line_items WHERE order_id = 7");
        // one key changed many times inside one interval, in many small transactions
        for (int i = 0; i < 25; i++) {
            tx(
                    lab.source(),
                    "UPDATE accounts SET balance = " + i + ", note = 'hot " + i + "' WHERE id = 1");
        }
        // delete then re-insert the same key
        tx(lab.source(), "DELETE FROM accounts WHERE id = 2");
        tx(
                lab.source(),
                "INSERT INTO accounts VALUES (2, 'reborn', 2.00, 'again', DATE '2025-05-05', now())");
        // insert then delete in one transaction: nothing to apply
        tx(
                lab.source(),
                "INSERT INTO accounts VALUES (999, 'ghost', 0, NULL, NULL, NULL)",
                "DELETE FROM accounts WHERE id = 999");
        // a 10,000-row transaction
        tx(
                lab.source(),
                "INSERT INTO events SELECT g, 'bulk', jsonb_build_object('g', g), NULL, g, true FROM"
                        + " generate_series(1000, 10999) g");
        tx(lab.source(), "UPDATE events SET active = false WHERE id BETWEEN 1000 AND 1500");

        lab.awaitCaughtUp(Duration.ofSeconds(90));
        VerificationResult v = lab.verify();
        assertThat(v.matches()).as(v.summary()).isTrue();
        assertThat(v.tables())
                .extracting(TableResult::table)
                .contains("public.accounts", "public.events", "public.line_items");
        try (Connection w = lab.warehouse().getConnection();
                Statement s = w.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT count(*) FROM public.events WHERE kind = 'bulk'")) {
            rs.next();
            assertThat(rs.getLong(1)).isEqualTo(10_000);
        }

        Pipeline pipeline = lab.pipeline();
        var ns = pipeline.streams().stats();
        var ss = pipeline.sink().stats();
        assertThat(ns.rawChanges())
                .as("folding made fewer net changes than raw ones")
                .isGreaterThan(ss.netChanges());
        assertThat(ns.vanished()).as("the ghost row cancelled out").isGreaterThanOrEqualTo(1);
        assertThat(ns.late()).isZero();
        assertThat(ns.deadLetters()).isZero();
        assertThat(ss.malformed()).isZero();

        LatencyRecorder lat = pipeline.sink().latency();
        // one latency per net change emitted; the sink's count is lower where it folded several
        // closed windows of one key into one warehouse transaction
        assertThat(lat.recorded())
                .as("every emitted net change has a latency")
                .isEqualTo(ns.netChanges())
                .isGreaterThanOrEqualTo(ss.netChanges());
        assertThat(lat.endToEnd().getTotalCount()).isPositive();
        for (var stage : lat.stages().values()) {
            assertThat(stage.getTotalCount()).isEqualTo(lat.endToEnd().getTotalCount());
        }
    }
}
