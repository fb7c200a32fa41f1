package dev.cdclab.sink.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdclab.change.IntervalMarker;
import dev.cdclab.change.IntervalRecord;
import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetChangeMode;
import dev.cdclab.change.NetOperation;
import dev.cdclab.change.Schemas;
import dev.cdclab.change.SourcePosition;
import dev.cdclab.change.StageTimes;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The sink applies an interval only when every task has closed it on every partition. */
class IntervalGateTest {
    private static NetChange change(long start, long end) {
        return new NetChange(
                "public.t",
                NetOperation.INSERT,
                new com.fasterxml.jackson.databind.ObjectMapper()
                        .createObjectNode()
                        .put("id", start),
                null,
                null,
                List.of(),
                Schemas.describe(List.of()),
                start,
                end,
                SourcePosition.postgres(1),
                SourcePosition.postgres(1),
                "1",
                start,
                1,
                false,
                NetChangeMode.ALL,
                new StageTimes(0, 0, 0, 0),
                null);
    }

    private static final String TX_WINDOWS = "interval=0 (a window per transaction) mode=all";
    private static final String ONE_SECOND = "interval=1000ms grace=100ms mode=all";

    private static IntervalMarker marker(int task, long closedThrough, String windows) {
        return new IntervalMarker(task, 2, closedThrough, closedThrough, windows);
    }

    @Test
    void tasksRunningWithDifferentWindowSettingsStopTheSink() {
        IntervalGate<String> g = new IntervalGate<>();
        g.assign(List.of("p0"));
        g.mark("p0", 0, marker(0, 5_000, TX_WINDOWS));
        g.mark("p0", 1, marker(1, 1_000, ONE_SECOND));
        assertThat(g.bound())
                .as("task 0's bound was said under other settings")
                .isEqualTo(Long.MIN_VALUE);
        assertThatThrownBy(() -> g.mark("p0", 2, marker(0, 5_001, TX_WINDOWS)))
                .isInstanceOf(IntervalGate.InconsistentTasksException.class)
                .hasMessageContaining("p0")
                .hasMessageContaining("'partitions=2 " + TX_WINDOWS + "'")
                .hasMessageContaining("'partitions=2 " + ONE_SECOND + "'");
    }

    @Test
    void tasksRunningWithDifferentPartitionCountsStopTheSink() {
        IntervalGate<String> g = new IntervalGate<>();
        g.assign(List.of("p0"));
        g.mark("p0", 0, new IntervalMarker(0, 2, 1_000, 1_000, ONE_SECOND));
        g.mark("p0", 1, new IntervalMarker(1, 3, 1_000, 1_000, ONE_SECOND));
        assertThatThrownBy(
                        () -> g.mark("p0", 2, new IntervalMarker(0, 2, 2_000, 2_000, ONE_SECOND)))
                .isInstanceOf(IntervalGate.InconsistentTasksException.class)
                .hasMessageContaining("partitions=2")
                .hasMessageContaining("partitions=3");
    }

    @Test
    void instancesRestartedWithNewSettingsAreFollowedAndMayChangeBackLater() {
        IntervalGate<String> g = new IntervalGate<>();
        g.assign(List.of("p0"));
        g.mark("p0", 0, marker(0, 1_000, ONE_SECOND));
        g.mark("p0", 1, marker(1, 1_000, ONE_SECOND));
        assertThat(g.bound()).isEqualTo(1_000);
        // every instance restarted with transaction windows
        g.mark("p0", 2, marker(1, 7_000, TX_WINDOWS));
        assertThat(g.bound())
                .as("task 0 has not marked under the new settings")
                .isEqualTo(Long.MIN_VALUE);
        g.mark("p0", 3, marker(0, 7_000, TX_WINDOWS));
        assertThat(g.bound()).isEqualTo(7_000);
        // and, once every task follows them, back again
        g.mark("p0", 4, marker(0, 2_000, ONE_SECOND));
        g.mark("p0", 5, marker(1, 2_000, ONE_SECOND));
        assertThat(g.bound()).isEqualTo(2_000);
    }

    /**
     * The net-change app restarted from fixed intervals to transaction windows: the bound's unit
     * changes from commit times to places in the commit order. No bound mixes the two (one
     * partition switched, the other not yet), the changes held from before are placed in the
     * windows they fall in now, and they are released with the first bound that covers them.
     */
    @Test
    void aChangeOfWindowSettingsPlacesHeldChangesInTheNewUnit() {
        IntervalGate<String> g = new IntervalGate<>();
        g.assign(List.of("p0", "p1"));
        for (String p : List.of("p0", "p1")) {
            g.mark(p, 0, marker(0, 1_700_000_001_000L, ONE_SECOND));
            g.mark(p, 1, marker(1, 1_700_000_001_000L, ONE_SECOND));
        }
        assertThat(g.bound()).isEqualTo(1_700_000_001_000L);
        // emitted under one-second windows, in a window no marker closed before the restart:
        // its transaction follows the commit at 0x1000
        NetChange orphan =
                new NetChange(
                        "public.t",
                        NetOperation.INSERT,
                        new com.fasterxml.jackson.databind.ObjectMapper()
                                .createObjectNode()
                                .put("id", 1),
                        null,
                        null,
                        List.of(),
                        Schemas.describe(List.of()),
                        1_700_000_001_000L,
                        1_700_000_002_000L,
                        SourcePosition.postgres(0x1000, 0x1010),
                        SourcePosition.postgres(0x1000, 0x1010),
                        "7",
                        1_700_000_001_500L,
                        1,
                        false,
                        NetChangeMode.ALL,
                        new StageTimes(0, 0, 0, 0),
                        null);
        g.add("p0", 2, orphan);
        int before = g.settingsChanges();
        g.mark("p0", 3, marker(0, 0x1000, TX_WINDOWS));
        g.mark("p0", 4, marker(1, 0x1000, TX_WINDOWS));
        assertThat(g.settingsChanges()).isEqualTo(before + 1);
        assertThat(g.bound()).as("p1 still says commit times").isEqualTo(Long.MIN_VALUE);
        g.mark("p1", 2, marker(0, 0x1000, TX_WINDOWS));
        g.mark("p1", 3, marker(1, 0x1000, TX_WINDOWS));
        assertThat(g.bound()).isEqualTo(0x1000);
        assertThat(g.release(g.bound())).as("its transaction's window is still open").isEmpty();
        g.mark("p0", 5, marker(0, 0x1001, TX_WINDOWS));
        g.mark("p0", 6, marker(1, 0x1001, TX_WINDOWS));
        g.mark("p1", 4, marker(0, 0x1001, TX_WINDOWS));
        g.mark("p1", 5, marker(1, 0x1001, TX_WINDOWS));
        List<IntervalRecord> out = g.release(g.bound());
        assertThat(out)
                .singleElement()
                .satisfies(r -> assertThat(r.intervalEndMs()).isEqualTo(0x1001));
    }

    @Test
    void nothingIsReleasedUntilEveryTaskMarkedEveryPartition() {
        IntervalGate<String> g = new IntervalGate<>();
        g.assign(List.of("p0", "p1"));
        g.add("p0", 0, change(0, 1000));
        g.mark("p0", 1, new IntervalMarker(0, 2, 1000));
        g.mark("p0", 2, new IntervalMarker(1, 2, 1000));
        assertThat(g.bound()).as("p1 has no markers yet").isEqualTo(Long.MIN_VALUE);
        g.mark("p1", 0, new IntervalMarker(0, 2, 2000));
        assertThat(g.bound()).as("task 1 has not marked p1").isEqualTo(Long.MIN_VALUE);
        g.mark("p1", 1, new IntervalMarker(1, 2, 1000));
        assertThat(g.bound()).isEqualTo(1000);
        assertThat(g.release(g.bound())).hasSize(1);
    }

    @Test
    void releasesOnlyClosedIntervalsAndCommitsBeforeTheFirstHeldChange() {
        IntervalGate<String> g = new IntervalGate<>();
        g.assign(List.of("p0"));
        g.add("p0", 10, change(0, 1000));
        g.add("p0", 11, change(1000, 2000));
        g.mark("p0", 12, new IntervalMarker(0, 1, 1000));
        assertThat(g.release(g.bound()))
                .extracting(IntervalRecord::intervalEndMs)
                .containsExactly(1000L);
        assertThat(g.committableOffsets())
                .as("released, not committed yet")
                .containsEntry("p0", 10L);
        g.committed();
        assertThat(g.committableOffsets()).containsEntry("p0", 11L);
        assertThat(g.held()).isEqualTo(1);
        g.mark("p0", 13, new IntervalMarker(0, 1, 2000));
        assertThat(g.release(g.bound())).hasSize(1);
        g.committed();
        assertThat(g.committableOffsets()).containsEntry("p0", 14L);
    }

    @Test
    void rescalingTheStreamsAppDropsMarkersOfTasksThatAreGone() {
        IntervalGate<String> g = new IntervalGate<>();
        g.mark("p0", 0, new IntervalMarker(0, 2, 1000));
        g.mark("p0", 1, new IntervalMarker(1, 2, 500));
        assertThat(g.bound()).isEqualTo(500);
        g.mark("p0", 2, new IntervalMarker(0, 1, 3000));
        assertThat(g.bound()).isEqualTo(3000);
    }

    @Test
    void revokedPartitionsAreForgotten() {
        IntervalGate<String> g = new IntervalGate<>();
        g.assign(List.of("p0", "p1"));
        g.mark("p0", 0, new IntervalMarker(0, 1, 1000));
        g.add("p1", 0, change(0, 1000));
        g.revoke(List.of("p1"));
        assertThat(g.bound()).isEqualTo(1000);
        assertThat(g.held()).isZero();
    }

    @Test
    void theOldestIntervalIsWrittenAheadAndItsOffsetsWaitForTheWarehouseCommit() {
        IntervalGate<String> g = new IntervalGate<>();
        g.assign(List.of("p0", "p1"));
        g.add("p0", 10, change(0, 1000), 100);
        g.add("p1", 20, change(0, 1000), 100);
        g.add("p0", 11, change(1000, 2000), 100);
        g.add("p1", 21, change(0, 1000), 100);
        assertThat(g.heldBytes()).isEqualTo(400);

        IntervalGate.Oldest oldest = g.releaseOldest();
        assertThat(oldest.intervalEndMs()).isEqualTo(1000);
        assertThat(oldest.changes()).hasSize(3);
        assertThat(g.heldBytes()).isEqualTo(100);
        assertThat(g.held()).isEqualTo(1);
        assertThat(g.committableOffsets())
                .as("not past what is written but uncommitted")
                .containsEntry("p0", 10L)
                .containsEntry("p1", 20L);

        g.mark("p0", 12, new IntervalMarker(0, 1, 1000));
        g.mark("p1", 22, new IntervalMarker(0, 1, 1000));
        assertThat(g.release(g.bound())).as("the rest of the interval").isEmpty();
        assertThat(g.committableOffsets()).containsEntry("p0", 10L).containsEntry("p1", 20L);
        g.committed();
        assertThat(g.committableOffsets()).containsEntry("p0", 11L).containsEntry("p1", 23L);
    }

    @Test
    void aRewoundPartitionIsReadAgainFromWhereItsRolledBackChangesBegin() {
        IntervalGate<String> g = new IntervalGate<>();
        g.add("p0", 10, change(0, 1000), 100);
        g.add("p0", 11, change(1000, 2000), 100);
        g.releaseOldest();
        long restart = g.committableOffsets().get("p0");
        g.rewind("p0", restart);
        g.committed();
        assertThat(g.held()).isZero();
        assertThat(g.heldBytes()).isZero();
        assertThat(g.committableOffsets())
                .as("the offset a revocation commits for the next owner")
                .containsEntry("p0", 10L);
    }

    @Test
    void anIntervalIsNotWrittenAheadWhileAPartitionHasNotBeenReadThroughIt() {
        IntervalGate<String> g = new IntervalGate<>();
        g.assign(List.of("p0", "p1"));
        // p0 was fetched far ahead; p1's changes of the interval ending at 2000 are still unread
        g.add("p0", 10, change(1000, 2000), 100);
        g.add("p0", 11, change(2000, 3000), 100);
        g.add("p1", 20, change(0, 1000), 100);

        assertThat(g.releaseOldest().changes())
                .as("p1 is read through 1000, the earliest interval held")
                .hasSize(1);
        assertThat(g.lagging()).as("p1 not yet read through 2000").containsExactly("p1");
        assertThat(g.releaseOldest().changes())
                .as("written ahead now, p1's rest of it would come after p0's later changes")
                .isEmpty();
        assertThat(g.held()).isEqualTo(2);

        g.add("p1", 21, change(1000, 2000), 100);
        assertThat(g.lagging()).isEmpty();
        assertThat(g.releaseOldest().changes()).hasSize(2);

        assertThat(g.lagging()).as("p1 not yet read through 3000").containsExactly("p1");
        g.mark("p1", 22, new IntervalMarker(0, 1, 3000));
        assertThat(g.lagging()).as("its markers say it is complete through 3000").isEmpty();
        assertThat(g.releaseOldest().changes()).hasSize(1);
    }
}
