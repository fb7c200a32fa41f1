package dev.cdclab.streams.topology;

import static dev.cdclab.streams.testing.DebeziumEvents.logRow;
import static dev.cdclab.streams.testing.DebeziumEvents.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.cdclab.change.IntervalMarker;
import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetChangeRecord;
import dev.cdclab.change.NetOperation;
import dev.cdclab.change.SourcePosition;
import dev.cdclab.change.TableEvent;
import dev.cdclab.streams.testing.TopologyHarness;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Truncates, tables without a key and logged DDL through the topology, on flat rows and on the
 * envelope: table events in their interval before its marker, keyless changes passed on one by one
 * in source order.
 */
class TableEventsTopologyTest {
    private static final long T0 = 1_700_000_000_000L;

    private static TopologyHarness harness(boolean flat) {
        return new TopologyHarness(Map.of("interval", "1s", "grace", "100ms"), flat);
    }

    @ParameterizedTest(name = "flat={0}")
    @ValueSource(booleans = {false, true})
    void aTruncateInsideAnIntervalIsPassedOnInItAndTheChangesAfterItFollowIt(boolean flat) {
        try (TopologyHarness h = harness(flat)) {
            h.change('c', null, row(1, "before", 1), 1, T0 + 100);
            long truncate = h.truncate(2, T0 + 200);
            h.change('c', null, row(1, "after", 2), 2, T0 + 200);
            h.heartbeat(T0 + 1100);
            assertThat(h.tableEvents())
                    .singleElement()
                    .satisfies(
                            e -> {
                                assertThat(e.kind()).isEqualTo(TableEvent.Kind.TRUNCATE);
                                assertThat(e.table()).isEqualTo("public.items");
                                assertThat(e.position()).isEqualTo(h.position(2, truncate));
                                assertThat(e.intervalStartMs()).isEqualTo(T0);
                                assertThat(e.intervalEndMs()).isEqualTo(T0 + 1000);
                            });
            NetChange c = h.changes().get(0);
            assertThat(c.after().get("name").asText()).isEqualTo("after");
            assertThat(c.position()).isGreaterThan(h.tableEvents().get(0).position());
            // the truncate is on the topic before the marker that closes its interval
            List<NetChangeRecord> out = h.emitted();
            int event = out.indexOf(h.tableEvents().get(0));
            int marker = -1;
            for (int i = 0; i < out.size(); i++) {
                if (out.get(i) instanceof IntervalMarker m && m.closedThrough() >= T0 + 1000) {
                    marker = i;
                    break;
                }
            }
            assertThat(event).isNotNegative().isLessThan(marker);
            assertThat(h.stats().truncates()).isEqualTo(1);
        }
    }

    @ParameterizedTest(name = "flat={0}")
    @ValueSource(booleans = {false, true})
    void changesOfATableWithoutAKeyPassOneByOneInSourceOrder(boolean flat) {
        try (TopologyHarness h = harness(flat)) {
            // a COPY page: three rows logged at one position
            h.keyless('c', null, logRow("a", 1), 1, T0 + 100, 5000L);
            h.keyless('c', null, logRow("a", 1), 1, T0 + 100, 5000L);
            h.keyless('c', null, logRow("b", 2), 1, T0 + 100, 5000L);
            h.keyless('u', logRow("b", 2), logRow("b", 3), 2, T0 + 200, 5001L);
            h.keyless('d', logRow("a", 1), null, 3, T0 + 300, 5002L);
            List<NetChange> out = h.changes();
            assertThat(out).hasSize(5);
            assertThat(out).allMatch(NetChange::keyless);
            assertThat(out)
                    .extracting(NetChange::op)
                    .containsExactly(
                            NetOperation.INSERT,
                            NetOperation.INSERT,
                            NetOperation.INSERT,
                            NetOperation.UPDATE,
                            NetOperation.DELETE);
            assertThat(out).extracting(NetChange::position).doesNotHaveDuplicates().isSorted();
            assertThat(out.get(3).before().get("n").asInt()).isEqualTo(2);
            assertThat(out.get(3).after().get("n").asInt()).isEqualTo(3);
            assertThat(out.get(4).before().get("name").asText()).isEqualTo("a");
            assertThat(out.get(4).after()).isNull();
            assertThat(out).allMatch(c -> c.intervalEndMs() == T0 + 1000);
        }
    }

    /**
     * A row over {@code max.row.bytes} stops nothing: capture's small record in its place is
     * dead-lettered with its table, key and size, a table event tells the warehouse, and the
     * changes around it pass on.
     */
    @ParameterizedTest(name = "flat={0}")
    @ValueSource(booleans = {false, true})
    void aRowOverTheLimitIsDeadLetteredAndItsTableMarked(boolean flat) {
        try (TopologyHarness h = harness(flat)) {
            h.change('c', null, row(1, "small", 1), 1, T0 + 100);
            long at = h.tooLarge('u', row(2, "large", 1), 2, T0 + 200, 20_000_000L);
            h.change('c', null, row(3, "after", 1), 3, T0 + 300);
            h.heartbeat(T0 + 1100);
            assertThat(h.changes())
                    .extracting(c -> c.key().get("id").asInt())
                    .containsExactly(1, 3);
            assertThat(h.tableEvents())
                    .singleElement()
                    .satisfies(
                            e -> {
                                assertThat(e.kind()).isEqualTo(TableEvent.Kind.ROW_TOO_LARGE);
                                assertThat(e.table()).isEqualTo("public.items");
                                assertThat(e.position()).isEqualTo(h.position(2, at));
                                assertThat(e.column()).isEqualTo("{\"id\":2}");
                                assertThat(e.newColumn()).isEqualTo("20000000");
                            });
            assertThat(h.deadLetters())
                    .singleElement()
                    .satisfies(
                            d ->
                                    assertThat(TopologyHarness.header(d.headers(), "cdclab.error"))
                                            .contains("public.items")
                                            .contains("{\"id\":2}")
                                            .contains("20000000 bytes"));
        }
    }

    /**
     * After Connect dies, Debezium sends again every change since its last offset flush, at new
     * offsets of the change topic: a change of a table without a key keeps its position, so the
     * warehouse applies it once (its keyless bound skips the copy).
     */
    @ParameterizedTest(name = "flat={0}")
    @ValueSource(booleans = {false, true})
    void aChangeWithoutAKeySentAgainKeepsItsPosition(boolean flat) {
        try (TopologyHarness h = harness(flat)) {
            // a COPY page of three rows at one log position, then the last two sent again
            h.keylessNth('c', null, logRow("a", 1), 1, T0 + 100, 5000L, 1);
            h.keylessNth('c', null, logRow("a", 1), 1, T0 + 100, 5000L, 2);
            h.keylessNth('c', null, logRow("b", 2), 1, T0 + 100, 5000L, 3);
            h.keylessNth('c', null, logRow("a", 1), 1, T0 + 100, 5000L, 2);
            h.keylessNth('c', null, logRow("b", 2), 1, T0 + 100, 5000L, 3);
            h.keylessNth('d', logRow("a", 1), null, 2, T0 + 200, 5001L, 1);
            h.keylessNth('d', logRow("a", 1), null, 2, T0 + 200, 5001L, 1);
            List<NetChange> out = h.changes();
            assertThat(out).hasSize(7);
            List<String> positions = out.stream().map(NetChange::position).toList();
            assertThat(positions.subList(0, 3)).doesNotHaveDuplicates().isSorted();
            assertThat(positions.get(3)).isEqualTo(positions.get(1));
            assertThat(positions.get(4)).isEqualTo(positions.get(2));
            assertThat(positions.get(6)).isEqualTo(positions.get(5));
        }
    }

    @ParameterizedTest(name = "flat={0}")
    @ValueSource(booleans = {false, true})
    void aSnapshotOfATableWithoutAKeyStartsWithATableEvent(boolean flat) {
        try (TopologyHarness h = harness(flat)) {
            h.keyless('r', null, logRow("a", 1), 0, T0 + 100, 4000L);
            h.keyless('r', null, logRow("a", 1), 0, T0 + 100, 4000L);
            assertThat(h.tableEvents())
                    .singleElement()
                    .satisfies(
                            e -> {
                                assertThat(e.kind()).isEqualTo(TableEvent.Kind.SNAPSHOT);
                                assertThat(e.table()).isEqualTo("public.log");
                            });
            assertThat(h.changes())
                    .hasSize(2)
                    .allMatch(c -> c.position().compareTo(h.tableEvents().get(0).position()) > 0);
        }
    }

    @ParameterizedTest(name = "flat={0}")
    @ValueSource(booleans = {false, true})
    void aSnapshotOfATableWithAKeyEndsWithATableEventJustBeforeItsPosition(boolean flat) {
        try (TopologyHarness h = harness(flat)) {
            String before = h.position(1, h.change('c', null, row(9, "before", 1), 1, T0 + 50));
            long at = h.lsn() + 100;
            h.snapshotRead(row(1, "a", 1), at, T0 + 100, "first_in_data_collection");
            h.snapshotRead(row(2, "b", 1), at, T0 + 100, "true");
            assertThat(h.tableEvents()).as("the table is still being read").isEmpty();
            h.snapshotRead(row(3, "c", 1), at, T0 + 100, "last_in_data_collection");
            h.heartbeat(T0 + 1100);
            // the snapshot settles once its heartbeat's interval closes
            h.heartbeat(T0 + 2200);
            TableEvent e = h.tableEvents().get(0);
            assertThat(h.tableEvents()).hasSize(1);
            assertThat(e.kind()).isEqualTo(TableEvent.Kind.SNAPSHOT);
            assertThat(e.table()).isEqualTo("public.items");
            assertThat(e.position())
                    .isEqualTo(SourcePosition.commitStart(SourcePosition.postgres(at)))
                    .as("rows from before the snapshot are older")
                    .isGreaterThan(before);
            assertThat(h.changes())
                    .filteredOn(NetChange::snapshot)
                    .hasSize(3)
                    .allMatch(c -> c.position().compareTo(e.position()) > 0);
        }
    }

    @ParameterizedTest(name = "flat={0}")
    @ValueSource(booleans = {false, true})
    void aSnapshotAndTheChangesLoggedWhileItReadCloseTogetherAtTheFirstHeartbeatAfterIt(
            boolean flat) {
        try (TopologyHarness h =
                new TopologyHarness(Map.of("interval", "0", "behind.lag", "0"), flat)) {
            h.change('c', null, row(1, "before", 1), 1, T0 + 10);
            h.change('c', null, row(2, "before", 1), 2, T0 + 20);
            long at = h.lsn() + 100;
            // read at READ COMMITTED after its position: row 1 holds transaction 3 already
            h.snapshotRead(row(1, "after tx 3", 2), at, T0 + 100, "first_in_data_collection");
            h.snapshotRead(row(2, "before", 1), at, T0 + 100, "last_in_data_collection");
            // the log delivers transaction 3 again, then one the snapshot did not see
            h.change('u', null, row(1, "after tx 3", 2), 3, T0 + 90);
            h.change('u', null, row(2, "after tx 4", 2), 4, T0 + 110);
            assertThat(h.markers())
                    .as("nothing past the snapshot's position closes before it settles")
                    .allMatch(m -> m.closedThrough() <= at);
            h.heartbeat(T0 + 200);
            long closed = h.markers().get(h.markers().size() - 1).closedThrough();
            assertThat(h.changes())
                    .filteredOn(c -> c.intervalStartMs() >= at)
                    .as("the snapshot's rows and both transactions close in one step")
                    .extracting(NetChange::intervalEndMs)
                    .hasSize(4)
                    .allMatch(end -> end <= closed);
            h.change('u', null, row(1, "later", 3), 5, T0 + 300);
            h.heartbeat(T0 + 400);
            assertThat(h.markers().get(h.markers().size() - 1).closedThrough())
                    .as("settled: windows close at every transaction again")
                    .isGreaterThan(closed);
        }
    }

    @ParameterizedTest(name = "flat={0}")
    @ValueSource(booleans = {false, true})
    void theFirstTransactionAfterASnapshotFollowsItsRowsThoughItLoggedChangesBeforeItsPosition(
            boolean flat) {
        for (String interval : List.of("0", "1s")) {
            try (TopologyHarness h =
                    new TopologyHarness(
                            Map.of("interval", interval, "grace", "0ms", "behind.lag", "0"),
                            flat)) {
                h.change('c', null, row(1, "before", 1), 1, T0 + 10);
                h.change('c', null, row(2, "before", 1), 2, T0 + 20);
                long early = h.lsn() + 50;
                long at = h.lsn() + 100;
                // transaction 3 began before the snapshot's position and committed after its
                // SELECTs: the log delivers all of it, naming no commit before it
                h.snapshotRead(row(1, "before", 1), at, T0 + 100, "first_in_data_collection");
                h.snapshotRead(row(2, "before", 1), at, T0 + 100, "last_in_data_collection");
                h.followingNoCommit(3);
                h.changeAt('u', null, row(1, "moved", 2), 3, T0 + 150, early);
                h.changeAt('u', null, row(2, "moved", 2), 3, T0 + 150, at + 10);
                h.change('u', null, row(2, "after tx 3", 3), 4, T0 + 160);
                h.heartbeat(T0 + 2200);
                h.heartbeat(T0 + 3200);
                String snapshot = SourcePosition.commitStart(SourcePosition.postgres(at));
                assertThat(h.tableEvents())
                        .extracting(TableEvent::position)
                        .as("interval %s", interval)
                        .containsExactly(snapshot);
                assertThat(h.changes())
                        .filteredOn(c -> c.key().get("id").asInt() == 1)
                        .as(
                                "interval %s: row 1 as transaction 3 left it, after the snapshot",
                                interval)
                        .last()
                        .satisfies(
                                c -> {
                                    assertThat(c.after().get("name").asText()).isEqualTo("moved");
                                    assertThat(c.position()).isGreaterThan(snapshot);
                                });
                assertThat(h.changes())
                        .filteredOn(c -> c.transaction().equals("3"))
                        .as("interval %s: transaction 3 in one window", interval)
                        .extracting(NetChange::intervalStartMs)
                        .isNotEmpty()
                        .containsOnly(
                                h.changes().stream()
                                        .filter(c -> c.transaction().equals("3"))
                                        .findFirst()
                                        .orElseThrow()
                                        .intervalStartMs());
                assertThat(h.changes())
                        .filteredOn(c -> c.key().get("id").asInt() == 2)
                        .as("interval %s: transaction 4 follows transaction 3", interval)
                        .last()
                        .satisfies(
                                c ->
                                        assertThat(c.after().get("name").asText())
                                                .isEqualTo("after tx 3"));
            }
        }
    }

    @ParameterizedTest(name = "flat={0}")
    @ValueSource(booleans = {false, true})
    void withFixedIntervalsASnapshotSettlesWithEveryIntervalTheLogDeliveredBeforeItsHeartbeat(
            boolean flat) {
        try (TopologyHarness h =
                new TopologyHarness(Map.of("interval", "500ms", "grace", "100ms"), flat)) {
            h.change('c', null, row(1, "a0", 1), 1, T0 + 10);
            h.change('c', null, row(2, "b0", 1), 2, T0 + 20);
            h.heartbeat(T0 + 700);
            long at = h.lsn() + 100;
            // the SELECT ran after transactions 3 and 4 committed: it read their rows
            h.snapshotRead(row(1, "a2", 3), at, T0 + 1000, "first_in_data_collection");
            h.snapshotRead(row(2, "b2", 2), at, T0 + 1000, "last_in_data_collection");
            h.change('u', null, row(1, "a1", 2), 3, T0 + 1200);
            // a transfer in the next interval, committed before the SELECT and within grace of
            // the heartbeat that ends the settling
            h.change('u', null, row(1, "a2", 3), 4, T0 + 1550);
            h.change('u', null, row(2, "b2", 2), 4, T0 + 1550);
            h.heartbeat(T0 + 1600);
            assertThat(h.markers())
                    .as("the snapshot's interval waits for the one its heartbeat reached")
                    .allMatch(m -> m.closedThrough() <= T0 + 1000);
            h.change('u', null, row(1, "a3", 4), 5, T0 + 1650);
            h.heartbeat(T0 + 2200);
            assertThat(h.markers().get(h.markers().size() - 1).closedThrough())
                    .isEqualTo(T0 + 2000);
            assertThat(h.changes())
                    .filteredOn(c -> c.key().get("id").asInt() == 1)
                    .last()
                    .satisfies(c -> assertThat(c.after().get("name").asText()).isEqualTo("a3"));
            assertThat(h.changes())
                    .filteredOn(c -> c.key().get("id").asInt() == 2)
                    .last()
                    .satisfies(c -> assertThat(c.after().get("name").asText()).isEqualTo("b2"));
        }
    }

    @ParameterizedTest(name = "flat={0}")
    @ValueSource(booleans = {false, true})
    void aSnapshotStartedWhileAnEarlierOneWaitsForItsIntervalWaitsForItsOwnHeartbeat(boolean flat) {
        try (TopologyHarness h =
                new TopologyHarness(Map.of("interval", "500ms", "grace", "100ms"), flat)) {
            h.change('c', null, row(1, "a0", 1), 1, T0 + 10);
            h.heartbeat(T0 + 700);
            long first = h.lsn() + 100;
            h.snapshotRead(row(1, "a1", 1), first, T0 + 1000, "last_in_data_collection");
            h.heartbeat(T0 + 1100);
            long second = h.lsn() + 100;
            h.snapshotRead(row(1, "a2", 1), second, T0 + 1200, "last_in_data_collection");
            h.change('u', null, row(1, "a3", 2), 2, T0 + 1650);
            assertThat(h.markers())
                    .as("the second snapshot has seen no heartbeat of its own")
                    .allMatch(m -> m.closedThrough() <= T0 + 1000);
            h.heartbeat(T0 + 1700);
            h.heartbeat(T0 + 2200);
            assertThat(h.markers().get(h.markers().size() - 1).closedThrough())
                    .isEqualTo(T0 + 2000);
        }
    }

    @ParameterizedTest(name = "flat={0}")
    @ValueSource(booleans = {false, true})
    void theFirstTransactionStreamedWithNoSnapshotBeforeItStaysInOneWindow(boolean flat) {
        try (TopologyHarness h =
                new TopologyHarness(Map.of("interval", "0", "behind.lag", "0"), flat)) {
            // a connector that streams without a snapshot names no commit before its first
            h.followingNoCommit(1);
            long first = h.change('c', null, row(1, "a", 1), 1, T0 + 10);
            h.change('c', null, row(2, "b", 1), 1, T0 + 10);
            h.change('c', null, row(3, "c", 1), 1, T0 + 10);
            assertThat(h.markers())
                    .as("no window of the transaction closes before it ends")
                    .allMatch(m -> m.closedThrough() <= first);
            h.change('u', null, row(1, "later", 2), 2, T0 + 20);
            assertThat(h.changes())
                    .filteredOn(c -> c.transaction().equals("1"))
                    .extracting(NetChange::intervalStartMs)
                    .hasSize(3)
                    .containsOnly(h.changes().get(0).intervalStartMs());
            assertThat(h.markers()).isNotEmpty();
        }
    }

    @ParameterizedTest(name = "flat={0}")
    @ValueSource(booleans = {false, true})
    void aSnapshotSettlingInItsOwnWindowClaimsNoSourceTimeUntilThatWindowCloses(boolean flat) {
        try (TopologyHarness h =
                new TopologyHarness(Map.of("interval", "0", "behind.lag", "0"), flat)) {
            long at = h.lsn() + 100;
            h.snapshotRead(row(1, "a", 1), at, T0 + 100, "first_in_data_collection");
            h.snapshotRead(row(2, "b", 1), at, T0 + 100, "last_in_data_collection");
            // the first transaction after the snapshot follows no commit: it shares its window
            h.heartbeat(T0 + 150);
            assertThat(h.markers())
                    .as("the snapshot's window is open: no marker says the warehouse has it")
                    .allMatch(m -> m.closedThrough() <= at && m.sourceMs() < T0 + 100);
            h.change('u', null, row(1, "later", 2), 5, T0 + 300);
            assertThat(h.markers().get(h.markers().size() - 1))
                    .satisfies(
                            m -> {
                                assertThat(m.closedThrough()).isGreaterThan(at);
                                assertThat(m.sourceMs()).isGreaterThanOrEqualTo(T0 + 150);
                            });
        }
    }

    @ParameterizedTest(name = "flat={0}")
    @ValueSource(booleans = {false, true})
    void theSnapshotsFirstRowMayBeAllOfItsTableAndAnythingElseEndsIt(boolean flat) {
        try (TopologyHarness h = harness(flat)) {
            h.snapshotRead(row(1, "only", 1), 4000, T0 + 100, "first");
            assertThat(h.tableEvents()).isEmpty();
            h.heartbeat(T0 + 200);
            assertThat(h.tableEvents())
                    .singleElement()
                    .satisfies(
                            e -> {
                                assertThat(e.kind()).isEqualTo(TableEvent.Kind.SNAPSHOT);
                                assertThat(e.position())
                                        .isEqualTo(
                                                SourcePosition.commitStart(
                                                        SourcePosition.postgres(4000)));
                            });
            h.incrementalRead(row(2, "read on demand", 1), T0 + 300);
            h.change('u', null, row(1, "changed", 2), 7, T0 + 400);
            assertThat(h.tableEvents()).as("only a snapshot's end is one").hasSize(1);
        }
    }

    @ParameterizedTest(name = "flat={0}")
    @ValueSource(booleans = {false, true})
    void aTableTheSnapshotFoundEmptyGetsATableEventJustBeforeItsPosition(boolean flat) {
        try (TopologyHarness h = harness(flat)) {
            h.snapshotRead(row(1, "only", 1), 4000, T0 + 100, "first");
            h.emptyTableScanned("public.notes", 4000, T0 + 150);
            h.emptyTableScanned("cdc_lab.signal", 4000, T0 + 160);
            String before = SourcePosition.commitStart(SourcePosition.postgres(4000));
            assertThat(h.tableEvents())
                    .as(
                            "the empty table ends the reading of the one before it, and lab tables"
                                    + " are not the warehouse's")
                    .extracting(TableEvent::table, TableEvent::kind, TableEvent::position)
                    .containsExactly(
                            tuple("public.items", TableEvent.Kind.SNAPSHOT, before),
                            tuple("public.notes", TableEvent.Kind.SNAPSHOT, before));
            assertThat(h.deadLetters()).isEmpty();
        }
    }

    @ParameterizedTest(name = "flat={0}")
    @ValueSource(booleans = {false, true})
    void aTableTheSnapshotFoundEmptyClaimsNoSourceTimeOfItsOwn(boolean flat) {
        try (TopologyHarness h =
                new TopologyHarness(Map.of("interval", "0", "behind.lag", "0"), flat)) {
            long at = h.lsn() + 100;
            // Debezium stamps the notification when it sends it, which can be after transactions
            // committed since the snapshot that the log has yet to deliver
            h.emptyTableScanned("public.notes", at, T0 + 500);
            h.snapshotRead(row(1, "a", 1), at, T0 + 100, "last_in_data_collection");
            h.heartbeat(T0 + 150);
            h.change('c', null, row(2, "b", 1), 5, T0 + 300);
            assertThat(h.markers())
                    .as("no marker claims a time no transaction seen so far was committed at")
                    .isNotEmpty()
                    .allMatch(m -> m.sourceMs() <= T0 + 300);
            h.heartbeat(T0 + 400);
            assertThat(h.markers().get(h.markers().size() - 1).sourceMs()).isEqualTo(T0 + 400);
            assertThat(h.changes()).extracting(c -> c.key().get("id").asInt()).contains(1, 2);
        }
    }

    @ParameterizedTest(name = "flat={0}")
    @ValueSource(booleans = {false, true})
    void aRowAnIncrementalSnapshotReadClaimsNoSourceTimeOfItsOwn(boolean flat) {
        try (TopologyHarness h =
                new TopologyHarness(Map.of("interval", "0", "behind.lag", "0"), flat)) {
            h.change('c', null, row(1, "a", 1), 1, T0 + 100);
            // Debezium stamps a chunk's rows when it sends them, after its window closed in the
            // log and possibly after transactions the log delivers later
            h.incrementalRead(row(2, "read on demand", 1), T0 + 500);
            h.change('u', null, row(1, "b", 2), 2, T0 + 300);
            assertThat(h.markers())
                    .as("no marker claims the time the rows were sent")
                    .isNotEmpty()
                    .allMatch(m -> m.sourceMs() <= T0 + 300);
        }
    }

    @ParameterizedTest(name = "flat={0}")
    @ValueSource(booleans = {false, true})
    void loggedRenamesAndDropsBecomeTableEventsAndSnapshotReadsOfTheLogDoNot(boolean flat) {
        try (TopologyHarness h = harness(flat)) {
            h.ddl('r', "drop", "public.old", null, 0, T0 + 50);
            h.ddl('c', "rename", "public.items", "public.things", 7, T0 + 100);
            h.ddl('c', "drop", "public.things", null, 8, T0 + 200);
            h.ddl('c', "snapshot", "public.other", SourcePosition.postgres(42), 9, T0 + 300);
            assertThat(h.tableEvents())
                    .extracting(TableEvent::kind, TableEvent::table, TableEvent::newName)
                    .containsExactly(
                            tuple(TableEvent.Kind.RENAME, "public.items", "public.things"),
                            tuple(TableEvent.Kind.DROP, "public.things", null),
                            tuple(TableEvent.Kind.SNAPSHOT, "public.other", null));
            assertThat(h.tableEvents().get(2).position())
                    .as("a table read again: rows before where the reading began are gone")
                    .isEqualTo(SourcePosition.postgres(42));
            assertThat(h.changes()).as("the log itself never reaches the warehouse").isEmpty();
        }
    }

    @ParameterizedTest(name = "flat={0}")
    @ValueSource(booleans = {false, true})
    void rowsAnIncrementalSnapshotReadsGoRightAfterTheLastPositionTheirPartitionShowed(
            boolean flat) {
        try (TopologyHarness h = harness(flat)) {
            h.incrementalRead(row(9, "too early", 1), T0 + 50);
            assertThat(h.deadLetters()).as("no position seen yet").hasSize(1);
            long before = h.change('u', null, row(1, "streamed", 1), 1, T0 + 100);
            h.incrementalRead(row(2, "read again", 2), T0 + 150);
            h.incrementalRead(row(3, "read again", 3), T0 + 160);
            long after = h.change('u', null, row(2, "streamed later", 4), 2, T0 + 200);
            h.heartbeat(T0 + 1100);
            List<NetChange> out = h.changes();
            NetChange two =
                    out.stream().filter(c -> c.key().get("id").asInt() == 2).findFirst().get();
            NetChange three =
                    out.stream().filter(c -> c.key().get("id").asInt() == 3).findFirst().get();
            assertThat(three.position())
                    .isGreaterThan(h.position(1, before))
                    .isLessThan(h.position(2, after));
            assertThat(two.after().get("name").asText()).isEqualTo("streamed later");
            assertThat(two.position()).isEqualTo(h.position(2, after));
        }
    }

    @ParameterizedTest(name = "flat={0}")
    @ValueSource(booleans = {false, true})
    void aRowReadAgainNeverReplacesAChangeTheLogDeliveredWhileItsTableWasRead(boolean flat) {
        try (TopologyHarness h = harness(flat)) {
            h.heartbeat(T0 + 50, "public.items");
            // committed before Debezium's window opened, still invisible to the chunk's SELECT
            h.change('u', null, row(1, "committed", 1), 1, T0 + 100);
            h.incrementalRead(row(1, "before the commit", 1), T0 + 150);
            h.incrementalRead(row(2, "read again", 2), T0 + 160);
            h.heartbeat(T0 + 1100);
            // a later reading of the table knows nothing of the first one's keys
            h.heartbeat(T0 + 1200, "public.items");
            h.incrementalRead(row(1, "read a second time", 1), T0 + 1250);
            h.heartbeat(T0 + 2300);
            List<NetChange> out = h.changes();
            assertThat(out)
                    .extracting(
                            c -> c.key().get("id").asInt() + " " + c.after().get("name").asText())
                    .containsExactly("1 committed", "2 read again", "1 read a second time");
        }
    }

    @ParameterizedTest(name = "flat={0}")
    @ValueSource(booleans = {false, true})
    void aTruncateArrivingAfterItsIntervalClosedGoesIntoTheNextOpenOne(boolean flat) {
        try (TopologyHarness h = harness(flat)) {
            h.heartbeat(T0 + 1200);
            h.truncate(2, T0 + 500);
            assertThat(h.tableEvents())
                    .singleElement()
                    .satisfies(e -> assertThat(e.intervalStartMs()).isEqualTo(T0 + 1000));
            assertThat(h.stats().late()).isEqualTo(1);
        }
    }
}
