package dev.cdclab.streams.topology;

import static dev.cdclab.streams.testing.DebeziumEvents.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.cdclab.change.IntervalMarker;
import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetOperation;
import dev.cdclab.streams.testing.TopologyHarness;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Windows per transaction while the app reads changes long after their append: the transactions
 * read meanwhile fold into one window, emitted whole once the app catches up or the window spans
 * {@code behind.window}.
 */
class FoldWhenBehindTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final Duration BEHIND = Duration.ofSeconds(5);

    private static TopologyHarness harness(Map<String, String> extra) {
        Map<String, String> s = new HashMap<>(Map.of("interval", "0", "behind.lag", "200ms"));
        s.putAll(extra);
        return new TopologyHarness(s);
    }

    @Test
    void transactionsReadWhileBehindFoldIntoOneWindowEmittedWholeOnceCaughtUp() {
        try (TopologyHarness h = harness(Map.of("behind.window", "10s"))) {
            h.appendedAgo(BEHIND);
            h.change('c', null, row(1, "a", 1), 11, T0 + 10);
            h.change('u', row(1, "a", 1), row(1, "b", 1), 12, T0 + 20);
            h.change('c', null, row(2, "a", 1), 13, T0 + 30);
            h.change('d', row(2, "a", 1), null, 14, T0 + 40);
            h.change('c', null, row(3, "a", 1), 15, T0 + 50);
            assertThat(h.changes()).as("nothing is emitted while behind").isEmpty();
            long heldFrom = h.markers().get(h.markers().size() - 1).closedThrough();

            h.appendedAgo(Duration.ZERO);
            h.heartbeat(T0 + 60);

            List<NetChange> out = h.changes();
            assertThat(out)
                    .extracting(
                            c -> c.key().get("id").asInt(), NetChange::op, NetChange::rawChanges)
                    .containsExactly(
                            tuple(1, NetOperation.INSERT, 2), tuple(3, NetOperation.INSERT, 1));
            assertThat(out.get(0).after().get("name").asText()).isEqualTo("b");
            long end = out.get(0).intervalEndMs();
            assertThat(out)
                    .allSatisfy(
                            c -> {
                                assertThat(c.intervalStartMs()).isEqualTo(heldFrom);
                                assertThat(c.intervalEndMs()).isEqualTo(end);
                            });
            assertThat(h.markers())
                    .extracting(IntervalMarker::closedThrough)
                    .as("no marker passes the held window until it is emitted, then its end")
                    .containsExactly(heldFrom, end);
            assertThat(h.stats().heldWindows()).isEqualTo(1);
            assertThat(h.stats().vanished()).isEqualTo(1);

            h.change('u', row(3, "a", 1), row(3, "c", 1), 16, T0 + 70);
            assertThat(h.changes())
                    .as("caught up, each transaction is its own window again")
                    .hasSize(3)
                    .last()
                    .satisfies(c -> assertThat(c.intervalStartMs()).isGreaterThanOrEqualTo(end));
        }
    }

    @Test
    void aWindowHeldWhileBehindIsEmittedOnceItSpansBehindWindow() {
        try (TopologyHarness h = harness(Map.of("behind.window", "1s"))) {
            h.appendedAgo(BEHIND);
            h.change('c', null, row(1, "a", 1), 11, T0 + 10);
            h.change('u', row(1, "a", 1), row(1, "b", 1), 12, T0 + 600);
            assertThat(h.changes()).isEmpty();
            h.change('c', null, row(2, "a", 1), 13, T0 + 1100);
            assertThat(h.changes())
                    .as("the transactions of the first second, still behind")
                    .extracting(c -> c.key().get("id").asInt(), NetChange::rawChanges)
                    .containsExactly(tuple(1, 2));
            h.change('u', row(2, "a", 1), row(2, "b", 1), 14, T0 + 1200);
            h.heartbeat(T0 + 2200);
            assertThat(h.changes())
                    .extracting(
                            c -> c.key().get("id").asInt(), NetChange::op, NetChange::rawChanges)
                    .containsExactly(
                            tuple(1, NetOperation.INSERT, 2), tuple(2, NetOperation.INSERT, 2));
            assertThat(h.stats().heldWindows()).isEqualTo(2);
        }
    }

    @Test
    void aReplayedInsertFromBeforeTheHeldWindowThenItsDeleteStillDeletesTheRow() {
        // Connect replays from its last committed offset: row 7's insert was emitted in its own
        // window before the app fell behind, so the held window must delete the row, not cancel
        try (TopologyHarness h = harness(Map.of("behind.window", "10s"))) {
            h.appendedAgo(Duration.ZERO);
            long insertLsn = h.change('c', null, row(7, "a", 1), 11, T0 + 100);
            h.heartbeat(T0 + 200);
            assertThat(h.changes()).hasSize(1);

            h.appendedAgo(BEHIND);
            h.heartbeat(T0 + 300);
            h.send(
                    h.events().key(7),
                    h.events().change('c', null, row(7, "a", 1), insertLsn, 11, T0 + 100),
                    System.currentTimeMillis() - BEHIND.toMillis());
            long deleteLsn = h.change('d', row(7, "a", 1), null, 12, T0 + 400);
            h.appendedAgo(Duration.ZERO);
            h.heartbeat(T0 + 500);

            assertThat(h.stats().late()).isEqualTo(1);
            assertThat(h.changes())
                    .hasSize(2)
                    .last()
                    .satisfies(
                            c -> {
                                assertThat(c.op()).isEqualTo(NetOperation.DELETE);
                                assertThat(c.lastPosition()).isEqualTo(h.position(12, deleteLsn));
                            });
        }
    }

    @Test
    void withMorePartitionsEveryTransactionKeepsItsOwnWindowEvenBehind() {
        try (TopologyHarness h = harness(Map.of("partitions", "2"))) {
            h.appendedAgo(BEHIND);
            h.change('c', null, row(1, "a", 1), 11, T0 + 10);
            h.change('u', row(1, "a", 1), row(1, "b", 1), 12, T0 + 20);
            h.heartbeat(T0 + 30);
            assertThat(h.changes()).hasSize(2);
            assertThat(h.stats().heldWindows()).isZero();
        }
    }
}
