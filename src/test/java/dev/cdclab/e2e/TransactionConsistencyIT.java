package dev.cdclab.e2e;

import static dev.cdclab.e2e.TestHelper.tx;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.change.NetChange;
import dev.cdclab.junit.CdcLabExtension;
import dev.cdclab.orchestration.verify.VerificationResult;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Intervals and transactions end to end (500 ms intervals, 3 partitions): a transaction that runs
 * across several interval boundaries lands whole in the interval of its commit; unchanged TOASTed
 * values larger than 2 KB survive updates that do not send them, with the connector's read-back
 * turned off.
 */
@Timeout(300)
class TransactionConsistencyIT {
    @RegisterExtension
    static CdcLabExtension lab =
            CdcLabExtension.embedded()
                    .interval(Duration.ofMillis(500))
                    .partitions(3)
                    // the connector's read-back off, so that the placeholder path is what runs
                    // (toast-pk-update in ChaosIT runs with it on)
                    .configure(
                            b ->
                                    b.capture(
                                            "debezium.post.processors.reselect.reselect"
                                                    + ".unavailable.values",
                                            "false"));

    @Test
    void aTransactionStraddlingIntervalBoundariesLandsInTheIntervalOfItsCommit() throws Exception {
        tx(
                lab.source(),
                "CREATE TABLE straddle (id int PRIMARY KEY, v text)",
                "CREATE TABLE chatter (id int PRIMARY KEY, n int)");
        tx(lab.source(), "INSERT INTO chatter SELECT g, 0 FROM generate_series(1, 20) g");
        AtomicBoolean stop = new AtomicBoolean();
        CompletableFuture<Void> background =
                CompletableFuture.runAsync(
                        () -> {
                            int i = 0;
                            while (!stop.get()) {
                                try {
                                    tx(
                                            lab.source(),
                                            "UPDATE chatter SET n = n + 1 WHERE id = "
                                                    + (1 + i++ % 20));
                                    Thread.sleep(20);
                                } catch (Exception e) {
                                    throw new IllegalStateException(e);
                                }
                            }
                        });
        long txid;
        long commitStart;
        try (Connection c = lab.source().getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery("SELECT txid_current()")) {
                    rs.next();
                    txid = rs.getLong(1);
                }
                s.execute("INSERT INTO straddle SELECT g, 'first' FROM generate_series(1, 60) g");
                s.execute("SELECT pg_sleep(0.7)");
                s.execute("UPDATE straddle SET v = 'second' WHERE id <= 30");
                s.execute("SELECT pg_sleep(0.7)");
                s.execute("INSERT INTO straddle SELECT g, 'third' FROM generate_series(61, 120) g");
                s.execute("DELETE FROM straddle WHERE id BETWEEN 100 AND 110");
            }
            commitStart = System.currentTimeMillis();
            c.commit();
        } finally {
            stop.set(true);
        }
        background.get();

        lab.awaitCaughtUp(Duration.ofSeconds(90));
        VerificationResult v = lab.verify();
        assertThat(v.matches()).as(v.summary()).isTrue();

        List<NetChange> straddle =
                TestHelper.netChanges(lab.pipeline()).stream()
                        .filter(c -> c.table().equals("public.straddle"))
                        .toList();
        assertThat(straddle).as("one net change per surviving key").hasSize(109);
        assertThat(straddle)
                .allSatisfy(c -> assertThat(c.transaction()).isEqualTo(Long.toString(txid)));
        Set<Long> intervals =
                straddle.stream().map(NetChange::intervalStartMs).collect(Collectors.toSet());
        assertThat(intervals).as("the whole transaction in one interval").hasSize(1);
        NetChange any = straddle.get(0);
        assertThat(any.commitMs()).isBetween(any.intervalStartMs(), any.intervalEndMs() - 1);
        assertThat(any.commitMs()).isGreaterThanOrEqualTo(commitStart - 50);
        assertThat(straddle)
                .filteredOn(c -> c.key().get("id").asInt() <= 30)
                .allSatisfy(c -> assertThat(c.rawChanges()).isEqualTo(2));
        assertThat(lab.pipeline().streams().stats().late()).isZero();
    }

    @Test
    void unchangedValuesLargerThanToastThresholdSurviveUpdatesThatDoNotSendThem() throws Exception {
        tx(lab.source(), "CREATE TABLE docs (id int PRIMARY KEY, title text, body text)");
        // 3.2 KB of hex: incompressible enough to be stored out of line (TOAST)
        String big =
                "(SELECT string_agg(md5(g::text || 'x' || i::text), '') FROM generate_series(1, 100) i)";
        tx(
                lab.source(),
                "INSERT INTO docs SELECT g, 'v1', "
                        + big.replace("g::text", "g::text")
                        + " FROM generate_series(1, 20) g");
        // same interval as the insert for some keys, later intervals for the rest
        tx(lab.source(), "UPDATE docs SET title = 'v2' WHERE id <= 10");
        Thread.sleep(1200);
        tx(lab.source(), "UPDATE docs SET title = 'v3'");
        Thread.sleep(1200);
        tx(lab.source(), "UPDATE docs SET title = 'v4' WHERE id % 2 = 0");
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT min(length(body)) FROM docs")) {
            rs.next();
            assertThat(rs.getInt(1)).isGreaterThan(2048);
        }
        lab.awaitCaughtUp(Duration.ofSeconds(90));
        VerificationResult v = lab.verify();
        assertThat(v.matches()).as(v.summary()).isTrue();
        List<NetChange> docs =
                TestHelper.netChanges(lab.pipeline()).stream()
                        .filter(c -> c.table().equals("public.docs"))
                        .toList();
        assertThat(docs)
                .as(
                        "Debezium sent the unavailable-value placeholder and it was carried as unchanged")
                .anySatisfy(c -> assertThat(c.unchanged()).containsExactly("body"));
        try (Connection w = lab.warehouse().getConnection();
                Statement s = w.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT count(*) FROM public.docs WHERE body LIKE '%unavailable%' OR body IS NULL")) {
            rs.next();
            assertThat(rs.getLong(1)).isZero();
        }
    }
}
