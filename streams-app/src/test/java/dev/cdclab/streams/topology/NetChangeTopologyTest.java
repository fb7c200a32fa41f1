package dev.cdclab.streams.topology;

import static dev.cdclab.streams.testing.DebeziumEvents.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetChangeMode;
import dev.cdclab.change.NetOperation;
import dev.cdclab.streams.testing.TopologyHarness;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The net-change topology on single keys, intervals, markers and the modes, fed Debezium's envelope
 * ({@link FlatNetChangeTopologyTest} runs the same on flat rows).
 */
class NetChangeTopologyTest {
    private static final long T0 = 1_700_000_000_000L;

    /** Whether the events are flat rows (ExtractNewRecordState) rather than the envelope. */
    boolean flat() {
        return false;
    }

    TopologyHarness harness() {
        return harness(Map.of());
    }

    TopologyHarness harness(Map<String, String> extra) {
        Map<String, String> s = new java.util.HashMap<>(Map.of("interval", "1s", "grace", "100ms"));
        s.putAll(extra);
        return new TopologyHarness(s, flat());
    }

    static Stream<Arguments> sequences() {
        // ops on key 1 inside one interval; the row exists before iff the first op is u or d
        return Stream.of(
                Arguments.of("I", NetOperation.INSERT, "v1"),
                Arguments.of("U", NetOperation.UPDATE, "v1"),
                Arguments.of("D", NetOperation.DELETE, null),
                Arguments.of("IU", NetOperation.INSERT, "v2"),
                Arguments.of("ID", null, null),
                Arguments.of("UU", NetOperation.UPDATE, "v2"),
                Arguments.of("UD", NetOperation.DELETE, null),
                Arguments.of("DI", NetOperation.UPDATE, "v2"),
                Arguments.of("IUD", null, null),
                Arguments.of("DIU", NetOperation.UPDATE, "v3"));
    }

    @Test
    void aTransactionClaimsItsOwnCommitTimeOnceEveryOneBeforeItIsClosed() {
        try (TopologyHarness h = harness(Map.of("interval", "0", "behind.lag", "0"))) {
            h.change('c', null, row(1, "a", 1), 1, T0 + 100);
            h.change('u', null, row(1, "b", 2), 2, T0 + 200);
            // a transaction the source acknowledged before its clock read T0 + 200 logged its
            // commit before transaction 2 took that time: it is in the window just closed
            assertThat(h.markers().get(h.markers().size() - 1).sourceMs()).isEqualTo(T0 + 200);
            h.heartbeat(T0 + 1200);
            assertThat(h.markers().get(h.markers().size() - 1).sourceMs())
                    .as("an idle source's first heartbeat says the warehouse has caught up")
                    .isEqualTo(T0 + 1200);
            assertThat(h.changes())
                    .extracting(c -> c.after().get("name").asText())
                    .containsExactly("a", "b");
        }
    }

    /**
     * A task restored after a net-change partition was offline past the delivery timeout reads
     * again a change whose window its restored bound says is closed (the marker reached the other
     * partitions, the change did not reach its own). With a window per transaction it keeps its
     * transaction's window: moved to a later one, a sink whose bound stopped between the two would
     * show half the transaction.
     */
    @Test
    void aChangeReadAgainAfterItsWindowClosedKeepsItsTransactionsWindow() {
        try (TopologyHarness h = harness(Map.of("interval", "0", "behind.lag", "0"))) {
            long lsn = h.change('c', null, row(1, "a", 1), 11, T0 + 100);
            byte[] again = h.events().change('c', null, row(1, "a", 1), lsn, 11, T0 + 100);
            h.change('c', null, row(2, "b", 1), 13, T0 + 200);
            h.send(h.events().key(1), again, T0 + 110);
            h.change('c', null, row(3, "c", 1), 14, T0 + 300);
            List<NetChange> ofEleven =
                    h.changes().stream().filter(c -> c.transaction().equals("11")).toList();
            assertThat(ofEleven).hasSize(2);
            assertThat(ofEleven)
                    .extracting(NetChange::intervalStartMs)
                    .as("both copies in the transaction's own window")
                    .containsOnly(ofEleven.get(0).intervalStartMs());
        }
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("sequences")
    void foldsOneKeyInsideOneInterval(String ops, NetOperation expected, String finalName) {
        try (TopologyHarness h = harness()) {
            long tx = 1;
            for (int i = 0; i < ops.length(); i++) {
                char op = ops.charAt(i);
                String name = "v" + (i + 1);
                long commit = T0 + 100 + i * 10L;
                switch (op) {
                    case 'I' -> h.change('c', null, row(1, name, i), tx++, commit);
                    case 'U' -> h.change('u', null, row(1, name, i), tx++, commit);
                    default -> h.change('d', Map.of("id", 1), null, tx++, commit);
                }
            }
            assertThat(h.changes()).as("nothing before the interval closes").isEmpty();
            h.heartbeat(T0 + 1100);
            List<NetChange> out = h.changes();
            if (expected == null) {
                assertThat(out).isEmpty();
                assertThat(h.stats().vanished()).isEqualTo(1);
                return;
            }
            assertThat(out).hasSize(1);
            NetChange c = out.get(0);
            assertThat(c.op()).isEqualTo(expected);
            assertThat(c.rawChanges()).isEqualTo(ops.length());
            assertThat(c.key().get("id").asInt()).isEqualTo(1);
            assertThat(c.intervalStartMs()).isEqualTo(T0);
            assertThat(c.intervalEndMs()).isEqualTo(T0 + 1000);
            assertThat(c.lastPosition()).isGreaterThanOrEqualTo(c.firstPosition());
            assertThat(c.commitMs()).isEqualTo(T0 + 100 + (ops.length() - 1) * 10L);
            if (finalName == null) {
                assertThat(c.after()).isNull();
            } else {
                assertThat(c.after().get("name").asText()).isEqualTo(finalName);
            }
        }
    }

    @Test
    void itsMetersCountPerTableAndTheKeysOfOpenIntervals() {
        try (TopologyHarness h = harness()) {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            h.stats().bindTo(registry);
            h.change('c', null, row(1, "a", 1), 1, T0 + 10);
            h.change('c', null, row(2, "b", 1), 2, T0 + 20);
            h.change('d', row(2, "b", 1), null, 2, T0 + 20);
            assertThat(registry.get("cdclab.open.interval.keys").gauge().value()).isEqualTo(2);
            h.heartbeat(T0 + 1100);
            assertThat(registry.get("cdclab.open.interval.keys").gauge().value()).isZero();
            assertThat(counter(registry, "cdclab.changes.captured")).isEqualTo(3);
            assertThat(counter(registry, "cdclab.net.changes.emitted")).isEqualTo(1);
            assertThat(counter(registry, "cdclab.keys.cancelled")).isEqualTo(1);
        }
    }

    private static double counter(SimpleMeterRegistry registry, String name) {
        return registry.get(name).tag("table", "public.items").functionCounter().count();
    }

    @Test
    void intervalClosesOnlyWhenThePartitionIsPastItsEndPlusGrace() {
        try (TopologyHarness h = harness()) {
            h.change('c', null, row(1, "a", 1), 1, T0 + 999);
            h.heartbeat(T0 + 1050);
            assertThat(h.changes()).as("within grace").isEmpty();
            assertThat(h.markers())
                    .as("the first event already proves intervals before T0 complete")
                    .extracting(m -> m.closedThrough())
                    .containsExactly(T0);
            h.heartbeat(T0 + 1100);
            assertThat(h.changes()).hasSize(1);
            assertThat(h.markers())
                    .last()
                    .satisfies(
                            m -> {
                                assertThat(m.task()).isZero();
                                assertThat(m.tasks()).isEqualTo(1);
                                assertThat(m.closedThrough()).isEqualTo(T0 + 1000);
                            });
        }
    }

    @Test
    void aLaterChangeClosesEarlierIntervalsLikeAHeartbeat() {
        try (TopologyHarness h = harness()) {
            h.change('c', null, row(1, "a", 1), 1, T0 + 10);
            h.change('c', null, row(2, "b", 1), 2, T0 + 2500);
            assertThat(h.changes()).extracting(c -> c.key().get("id").asInt()).containsExactly(1);
            assertThat(h.markers())
                    .extracting(m -> m.closedThrough())
                    .containsExactly(T0 - 1000, T0 + 2000);
        }
    }

    @Test
    void changesInDifferentIntervalsStayApartAndKeepTheirOrder() {
        try (TopologyHarness h = harness()) {
            h.change('c', null, row(1, "a", 1), 1, T0 + 10);
            h.change('u', null, row(1, "b", 2), 2, T0 + 1010);
            h.change('u', null, row(1, "c", 3), 3, T0 + 2010);
            h.heartbeat(T0 + 5000);
            assertThat(h.changes())
                    .extracting(
                            NetChange::op,
                            c -> c.after().get("name").asText(),
                            NetChange::intervalStartMs)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(NetOperation.INSERT, "a", T0),
                            org.assertj.core.groups.Tuple.tuple(
                                    NetOperation.UPDATE, "b", T0 + 1000),
                            org.assertj.core.groups.Tuple.tuple(
                                    NetOperation.UPDATE, "c", T0 + 2000));
        }
    }

    @Test
    void carriesLsnsCommitTimeStagesAndTheGeneratorTimestamp() {
        try (TopologyHarness h = harness()) {
            Map<String, Object> r = row(7, "x", 1);
            r.put("gen_commit_us", (T0 + 5) * 1000);
            long first = h.change('c', null, r, 1, T0 + 6);
            Map<String, Object> r2 = row(7, "y", 2);
            r2.put("gen_commit_us", (T0 + 19) * 1000);
            long last = h.change('u', null, r2, 2, T0 + 20);
            h.heartbeat(T0 + 2000);
            NetChange c = h.changes().get(0);
            assertThat(c.firstPosition()).isEqualTo(h.position(1, first));
            assertThat(c.lastPosition()).isEqualTo(h.position(2, last));
            assertThat(c.transaction()).isEqualTo("2");
            assertThat(c.commitMs()).isEqualTo(T0 + 20);
            assertThat(c.stages().sourceCommitMs()).isEqualTo(T0 + 20);
            assertThat(c.stages().capturedMs()).isEqualTo(T0 + 25);
            assertThat(c.stages().kafkaAppendMs()).isEqualTo(T0 + 30);
            assertThat(c.stages().emittedMs()).isPositive();
            assertThat(c.generatorCommitMicros()).isEqualTo((T0 + 19) * 1000);
            assertThat(c.columns())
                    .extracting(col -> col.name() + (col.key() ? "*" : ""))
                    .containsExactly("id*", "name", "qty", "note", "price", "gen_commit_us");
            assertThat(c.columns().get(4).sourceType()).isEqualTo("NUMERIC");
            assertThat(c.columns().get(4).length()).isEqualTo(10);
            assertThat(c.columns().get(4).scale()).isEqualTo(2);
        }
    }

    @Test
    void allWithMergeReportsInsertsAndUpdatesAsUpserts() {
        try (TopologyHarness h = harness(Map.of("mode", "all_with_merge"))) {
            h.change('c', null, row(1, "a", 1), 1, T0 + 10);
            h.change('u', null, row(2, "b", 1), 2, T0 + 20);
            h.change('d', Map.of("id", 3), null, 3, T0 + 30);
            h.heartbeat(T0 + 2000);
            assertThat(h.changes())
                    .extracting(NetChange::op)
                    .containsExactlyInAnyOrder(
                            NetOperation.UPSERT, NetOperation.UPSERT, NetOperation.DELETE);
        }
    }

    @Test
    void offModePassesEveryRawChangeOn() {
        try (TopologyHarness h = harness(Map.of("mode", "off"))) {
            h.change('c', null, row(1, "a", 1), 1, T0 + 10);
            h.change('u', null, row(1, "b", 1), 2, T0 + 20);
            h.change('d', Map.of("id", 1), null, 3, T0 + 30);
            assertThat(h.changes())
                    .extracting(NetChange::op, NetChange::mode, NetChange::rawChanges)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(
                                    NetOperation.INSERT, NetChangeMode.OFF, 1),
                            org.assertj.core.groups.Tuple.tuple(
                                    NetOperation.UPDATE, NetChangeMode.OFF, 1),
                            org.assertj.core.groups.Tuple.tuple(
                                    NetOperation.DELETE, NetChangeMode.OFF, 1));
        }
    }

    @Test
    void zeroIntervalMakesEachTransactionItsOwnInterval() {
        try (TopologyHarness h = harness(Map.of("interval", "0"))) {
            h.change('c', null, row(1, "a", 1), 11, T0 + 10);
            h.change('c', null, row(2, "a", 1), 11, T0 + 10);
            h.change('u', null, row(1, "b", 1), 12, T0 + 10);
            h.heartbeat(T0 + 500);
            List<NetChange> out = h.changes();
            assertThat(out).hasSize(3);
            assertThat(out)
                    .filteredOn(c -> c.transaction().equals("11"))
                    .extracting(NetChange::op)
                    .containsOnly(NetOperation.INSERT);
            assertThat(out)
                    .filteredOn(c -> c.transaction().equals("12"))
                    .singleElement()
                    .satisfies(c -> assertThat(c.op()).isEqualTo(NetOperation.UPDATE));
        }
    }

    @Test
    void placeholderForUnchangedToastValueIsResolvedFromTheIntervalOrCarriedAsUnchanged() {
        try (TopologyHarness h = harness()) {
            String big = "x".repeat(3000);
            Map<String, Object> ins = row(1, "a", 1);
            ins.put("note", big);
            h.change('c', null, ins, 1, T0 + 10);
            Map<String, Object> upd = row(1, "b", 2);
            upd.put("note", "__debezium_unavailable_value");
            h.change('u', null, upd, 2, T0 + 20);
            Map<String, Object> later = row(2, "c", 3);
            later.put("note", "__debezium_unavailable_value");
            h.change('u', null, later, 3, T0 + 30);
            h.heartbeat(T0 + 2000);
            NetChange one =
                    h.changes().stream()
                            .filter(c -> c.key().get("id").asInt() == 1)
                            .findFirst()
                            .orElseThrow();
            assertThat(one.after().get("note").asText()).isEqualTo(big);
            assertThat(one.unchanged()).isEmpty();
            NetChange two =
                    h.changes().stream()
                            .filter(c -> c.key().get("id").asInt() == 2)
                            .findFirst()
                            .orElseThrow();
            assertThat(two.unchanged()).containsExactly("note");
        }
    }

    @Test
    void lateChangeGoesToTheNextOpenIntervalAndIsCounted() {
        try (TopologyHarness h = harness()) {
            h.change('c', null, row(1, "a", 1), 1, T0 + 2500);
            assertThat(h.markers()).extracting(m -> m.closedThrough()).containsExactly(T0 + 2000);
            assertThat(h.changes()).isEmpty();
            h.change('c', null, row(2, "late", 1), 2, T0 + 900);
            h.heartbeat(T0 + 4000);
            assertThat(h.stats().late()).isEqualTo(1);
            assertThat(h.changes())
                    .filteredOn(c -> c.key().get("id").asInt() == 2)
                    .singleElement()
                    .satisfies(c -> assertThat(c.intervalStartMs()).isEqualTo(T0 + 2000));
        }
    }

    @Test
    void replayedInsertArrivingLateThenItsDeleteStillDeletesTheRow() {
        // a Connect restart replays from the last committed offset: the insert of row 7 was
        // already emitted (and applied) in its own interval, comes again after that interval
        // closed, and its delete, never delivered before the restart, follows in the same open
        // interval. The row existed in the warehouse's view, so the interval must delete it.
        try (TopologyHarness h = harness()) {
            byte[] key = h.events().key(7);
            byte[] insert = h.events().change('c', null, row(7, "a", 1), 5001, 11, T0 + 100);
            h.send(key, insert, T0 + 110);
            h.heartbeat(T0 + 1200);
            assertThat(h.changes())
                    .singleElement()
                    .satisfies(c -> assertThat(c.op()).isEqualTo(NetOperation.INSERT));

            h.send(key, insert, T0 + 1250);
            h.send(
                    key,
                    h.events().change('d', Map.of("id", 7), null, 5002, 12, T0 + 1300),
                    T0 + 1310);
            h.heartbeat(T0 + 2200);

            assertThat(h.stats().late()).isEqualTo(1);
            assertThat(h.changes())
                    .hasSize(2)
                    .last()
                    .satisfies(
                            c -> {
                                assertThat(c.op()).isEqualTo(NetOperation.DELETE);
                                assertThat(c.key().get("id").asInt()).isEqualTo(7);
                                assertThat(c.lastPosition()).isEqualTo(h.position(12, 5002));
                                assertThat(c.intervalStartMs()).isEqualTo(T0 + 1000);
                            });
        }
    }

    @Test
    void unreadableRecordGoesToTheDeadLetterTopicAndProcessingContinues() {
        try (TopologyHarness h = harness()) {
            h.send(h.events().key(9), "{not json".getBytes(StandardCharsets.UTF_8), T0);
            h.change('c', null, row(1, "a", 1), 1, T0 + 10);
            h.heartbeat(T0 + 2000);
            var dead = h.deadLetters();
            assertThat(dead).hasSize(1);
            assertThat(TopologyHarness.header(dead.get(0).headers(), "cdclab.error"))
                    .contains("not JSON");
            assertThat(h.stats().deadLetters()).isEqualTo(1);
            assertThat(h.changes()).hasSize(1);
        }
    }

    @Test
    void heartbeatsOnlyMoveTheWatermark() {
        try (TopologyHarness h = harness()) {
            h.heartbeat(T0 + 10);
            h.heartbeat(T0 + 5000);
            assertThat(h.changes()).isEmpty();
            assertThat(h.stats().rawChanges()).isZero();
            assertThat(h.stats().heartbeats()).isEqualTo(2);
            assertThat(h.markers()).isNotEmpty();
        }
    }

    /**
     * One big transaction, updates and a cancelled insert inside it, and a second interval still
     * open when the first closes: what is emitted, as (interval, key, op, name).
     */
    private static List<String> bigTransaction(TopologyHarness h) {
        int rows = 600;
        for (int k = 1; k <= rows; k++) {
            h.change('c', null, row(k, "v" + k, k), 7, T0 + 100);
        }
        // keys seen early (on the heap) and late (in the overflow store) change again
        for (int k : new int[] {1, 2, 599, 600}) {
            h.change('u', null, row(k, "u" + k, k), 7, T0 + 100);
        }
        h.change('d', Map.of("id", 598), null, 7, T0 + 100);
        h.change('u', null, row(3, "next", 3), 8, T0 + 1050);
        h.change('c', null, row(700, "next", 700), 8, T0 + 1050);
        h.heartbeat(T0 + 1200);
        assertThat(h.changes()).as("the first interval only").hasSize(rows - 1);
        h.heartbeat(T0 + 3000);
        return h.changes().stream()
                .map(
                        c ->
                                c.intervalStartMs()
                                        + "/"
                                        + c.key().get("id").asInt()
                                        + "/"
                                        + c.op()
                                        + "/"
                                        + (c.after() == null
                                                ? null
                                                : c.after().get("name").asText()))
                .toList();
    }

    @Test
    void aTransactionPastTheHeapBudgetOverflowsToDiskAndEmitsTheSame() {
        List<String> onHeap;
        try (TopologyHarness h = harness()) {
            onHeap = bigTransaction(h);
            assertThat(h.stats().overflowed()).isZero();
        }
        try (TopologyHarness h = harness(Map.of("state.heap.bytes", "20000"))) {
            List<String> spilled = bigTransaction(h);
            assertThat(h.stats().overflowed()).as("keys past the budget").isGreaterThan(400);
            assertThat(spilled).containsExactlyElementsOf(onHeap);
            assertThat(h.stats().vanished()).isEqualTo(1);
        }
        assertThat(onHeap)
                .hasSize(601)
                .contains(T0 + "/600/INSERT/u600", (T0 + 1000) + "/3/UPDATE/next")
                .noneMatch(c -> c.contains("/598/"));
    }
}
