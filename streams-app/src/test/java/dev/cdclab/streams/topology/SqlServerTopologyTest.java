package dev.cdclab.streams.topology;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetOperation;
import dev.cdclab.change.SourcePosition;
import dev.cdclab.streams.testing.SqlServerEvents;
import dev.cdclab.streams.testing.TopologyHarness;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The net-change topology fed events shaped like the Debezium SQL Server connector's: snapshot
 * reads without a change LSN, update pairs as one event, a primary-key change, transactions in
 * commit-LSN order, and events whose position cannot be read.
 */
class SqlServerTopologyTest {
    private static final long T0 = 1_763_683_200_000L;
    private static final String SNAP = "00000027:00000100:0001";
    private static final String TX1 = "00000027:00000758:0005";
    private static final String TX2 = "00000027:00000798:0003";
    private static final String TX3 = "00000028:00000010:0002";
    private static final String TX4 = "00000029:00000010:0002";

    private static TopologyHarness harness(String interval) {
        return new TopologyHarness(Map.of("interval", interval, "grace", "100ms"));
    }

    private static Map<String, Object> order(int id, String status, String amount) {
        return SqlServerEvents.order(id, status, amount);
    }

    @Test
    void snapshotThenTwoTransactionsFoldIntoOneNetChangePerKey() {
        try (TopologyHarness h = harness("1s")) {
            SqlServerEvents ev = new SqlServerEvents();
            h.send(
                    ev.key("dbo.orders", 1),
                    ev.order('r', null, order(1, "new", "10.00"), SNAP, null, null, T0),
                    T0 + 5);
            h.send(
                    ev.key("dbo.orders", 2),
                    ev.order(
                            'c',
                            null,
                            order(2, "new", "20.00"),
                            TX1,
                            "00000027:00000750:0002",
                            1L,
                            T0 + 100),
                    T0 + 105);
            h.send(
                    ev.key("dbo.orders", 2),
                    ev.order(
                            'u',
                            order(2, "new", "20.00"),
                            order(2, "paid", "20.00"),
                            TX2,
                            "00000027:00000790:0002",
                            2L,
                            T0 + 300),
                    T0 + 305);
            h.send(
                    ev.key("cdc_lab.heartbeat", 1),
                    ev.heartbeat(TX3, "00000028:00000008:0002", T0 + 1500),
                    T0 + 1505);
            // the snapshot settles once its heartbeat's interval closes
            h.send(
                    ev.key("cdc_lab.heartbeat", 1),
                    ev.heartbeat(TX4, "00000029:00000008:0002", T0 + 2200),
                    T0 + 2205);

            List<NetChange> out = h.changes();
            assertThat(out).hasSize(2);
            NetChange snap =
                    out.stream()
                            .filter(c -> c.key().get("id").asInt() == 1)
                            .findFirst()
                            .orElseThrow();
            assertThat(snap.snapshot()).isTrue();
            assertThat(snap.lastPosition()).isEqualTo(SourcePosition.sqlServer(SNAP, null, null));
            NetChange two =
                    out.stream()
                            .filter(c -> c.key().get("id").asInt() == 2)
                            .findFirst()
                            .orElseThrow();
            assertThat(two.op())
                    .as("inserted then updated in one interval")
                    .isEqualTo(NetOperation.INSERT);
            assertThat(two.rawChanges()).isEqualTo(2);
            assertThat(two.transaction()).isEqualTo(TX2);
            assertThat(two.firstPosition()).isLessThan(two.lastPosition());
            assertThat(two.lastPosition())
                    .isEqualTo(SourcePosition.sqlServer(TX2, "00000027:00000790:0002", 2L));
            assertThat(two.after().get("status").asText()).isEqualTo("paid");
            assertThat(two.after().get("paid").asBoolean()).isTrue();
            assertThat(two.table()).isEqualTo("dbo.orders");
            assertThat(two.columns())
                    .extracting(c -> c.name() + ":" + c.sourceType() + ":" + c.semanticType())
                    .contains(
                            "amount:DECIMAL:null",
                            "placed_at:INT64:io.debezium.time.NanoTimestamp",
                            "shipped_at:STRING:io.debezium.time.ZonedTimestamp");
            assertThat(h.stats().deadLetters()).isZero();
            assertThat(h.stats().late()).isZero();
        }
    }

    @Test
    void aPrimaryKeyChangeIsADeleteAndAnInsertInOneInterval() {
        try (TopologyHarness h = harness("1s")) {
            SqlServerEvents ev = new SqlServerEvents();
            h.send(
                    ev.key("dbo.orders", 5),
                    ev.order('r', null, order(5, "new", "5.00"), SNAP, null, null, T0),
                    T0);
            // SQL Server logs a key update as a delete and an insert with the same commit LSN
            h.send(
                    ev.key("dbo.orders", 5),
                    ev.order(
                            'd',
                            order(5, "new", "5.00"),
                            null,
                            TX1,
                            "00000027:00000750:0002",
                            1L,
                            T0 + 1200),
                    T0 + 1205);
            h.send(
                    ev.key("dbo.orders", 6),
                    ev.order(
                            'c',
                            null,
                            order(6, "new", "5.00"),
                            TX1,
                            "00000027:00000750:0002",
                            2L,
                            T0 + 1200),
                    T0 + 1206);
            h.send(
                    ev.key("cdc_lab.heartbeat", 1),
                    ev.heartbeat(TX3, "00000028:00000008:0002", T0 + 2500),
                    T0 + 2505);
            h.send(
                    ev.key("cdc_lab.heartbeat", 1),
                    ev.heartbeat(TX4, "00000029:00000008:0002", T0 + 3200),
                    T0 + 3205);
            List<NetChange> out = h.changes();
            NetChange gone =
                    out.stream()
                            .filter(c -> c.key().get("id").asInt() == 5 && !c.snapshot())
                            .findFirst()
                            .orElseThrow();
            NetChange moved =
                    out.stream()
                            .filter(c -> c.key().get("id").asInt() == 6)
                            .findFirst()
                            .orElseThrow();
            assertThat(gone.op()).isEqualTo(NetOperation.DELETE);
            assertThat(moved.op()).isEqualTo(NetOperation.INSERT);
            assertThat(gone.intervalStartMs()).isEqualTo(moved.intervalStartMs());
            assertThat(gone.lastPosition()).isLessThan(moved.lastPosition());
        }
    }

    @Test
    void perTransactionIntervalsKeyOnTheCommitLsn() {
        try (TopologyHarness h = harness("0")) {
            SqlServerEvents ev = new SqlServerEvents();
            // two transactions committed in the same millisecond
            h.send(
                    ev.key("dbo.orders", 1),
                    ev.order(
                            'c',
                            null,
                            order(1, "new", "1.00"),
                            TX1,
                            "00000027:00000750:0002",
                            1L,
                            T0),
                    T0);
            h.send(
                    ev.key("dbo.orders", 2),
                    ev.order(
                            'c',
                            null,
                            order(2, "new", "2.00"),
                            TX2,
                            "00000027:00000790:0002",
                            1L,
                            T0),
                    T0);
            h.send(
                    ev.key("cdc_lab.heartbeat", 1),
                    ev.heartbeat(TX3, "00000028:00000008:0002", T0 + 500),
                    T0 + 505);
            List<NetChange> out = h.changes();
            assertThat(out).extracting(NetChange::transaction).containsExactlyInAnyOrder(TX1, TX2);
            NetChange first =
                    out.stream().filter(c -> c.transaction().equals(TX1)).findFirst().orElseThrow();
            NetChange second =
                    out.stream().filter(c -> c.transaction().equals(TX2)).findFirst().orElseThrow();
            assertThat(first.intervalStartMs())
                    .as("a window per transaction, in commit LSN order")
                    .isLessThan(second.intervalStartMs());
            assertThat(
                            SourcePosition.sqlServerTransactionNumber(TX1)
                                    != SourcePosition.sqlServerTransactionNumber(TX2))
                    .as("told apart within the millisecond")
                    .isTrue();
        }
    }

    @Test
    void anEventWithoutAReadablePositionGoesToTheDeadLetterTopic() {
        try (TopologyHarness h = harness("1s")) {
            SqlServerEvents ev = new SqlServerEvents();
            Map<String, Object> noCommit = new HashMap<>();
            noCommit.put("commit_lsn", null);
            h.send(ev.key("dbo.orders", 1), ev.orderWithSource(noCommit, T0), T0);
            h.send(
                    ev.key("dbo.orders", 1),
                    ev.orderWithSource(Map.of("commit_lsn", "27:758:5"), T0),
                    T0);
            var dead = h.deadLetters();
            assertThat(dead).hasSize(2);
            assertThat(TopologyHarness.header(dead.get(0).headers(), "cdclab.error"))
                    .contains("no readable source position");
            assertThat(TopologyHarness.header(dead.get(1).headers(), "cdclab.error"))
                    .contains("not a SQL Server LSN");
            assertThat(h.stats().deadLetters()).isEqualTo(2);
            h.send(
                    ev.key("cdc_lab.heartbeat", 1),
                    ev.heartbeat(TX3, "00000028:00000008:0002", T0 + 2000),
                    T0 + 2005);
            assertThat(h.changes()).as("nothing at position 0 reached the net changes").isEmpty();
        }
    }
}
