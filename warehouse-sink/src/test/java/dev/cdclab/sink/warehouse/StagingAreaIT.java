package dev.cdclab.sink.warehouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdclab.change.IntervalRecord;
import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetChangeCodec;
import dev.cdclab.embedded.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The staging area of sinks sharing a topic, on the embedded PostgreSQL: one committer at a time, a
 * bound only once every partition is staged, and staged changes that leave only with the
 * transaction that applies them.
 */
@Timeout(120)
class StagingAreaIT {
    private static PostgresServer server;

    @BeforeAll
    static void start() {
        server = PostgresServer.builder().durable(false).start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static String freshDatabase() throws Exception {
        String db = "stage_" + Long.toHexString(System.nanoTime());
        server.createDatabase(db);
        return server.jdbcUrl(db);
    }

    private static WarehouseWriter writer(String url) throws Exception {
        return new WarehouseWriter(url, server.user(), server.password());
    }

    private static StagingArea.Entry entry(int partition, long offset, long end, int id) {
        NetChange c = NetChanges.upsert("public.accounts", id, "account " + id, null, id);
        return new StagingArea.Entry(partition, offset, end, NetChangeCodec.encode(c));
    }

    @Test
    void oneCommitterAtATimeAndItsSuccessorTakesOverWhenItsConnectionCloses() throws Exception {
        String url = freshDatabase();
        String topic = "t-" + System.nanoTime();
        WarehouseWriter first = writer(url);
        try (WarehouseWriter second = writer(url)) {
            assertThat(first.stagingArea(topic).committer()).isTrue();
            StagingArea waiting = second.stagingArea(topic);
            assertThat(waiting.committer()).isFalse();
            assertThat(second.stagingArea("other-" + topic).committer())
                    .as("the lock is per topic")
                    .isTrue();
            first.close();
            await().atMost(Duration.ofSeconds(10)).until(waiting::committer);
        }
    }

    @Test
    void theBoundIsTheLowestStagedEndOnceEveryPartitionIsStaged() throws Exception {
        String topic = "t-" + System.nanoTime();
        try (WarehouseWriter w = writer(freshDatabase())) {
            StagingArea area = w.stagingArea(topic);
            area.stage(List.of(entry(0, 0, 100, 1)), Map.of(0, 100L), 1_000, W, false);
            assertThat(area.bound(2)).as("partition 1 not staged yet").isNull();
            area.stage(List.of(entry(1, 0, 100, 2)), Map.of(1, 300L), 3_000, W, false);
            assertThat(area.bound(2)).isEqualTo(new StagingArea.Bound(100, 1_000, W));
            area.stage(List.of(), Map.of(0, 50L), 500, W, false);
            assertThat(area.bound(2).throughMs()).as("a bound never goes back").isEqualTo(100);
            // the net-change app restarted with transaction windows: partition 0 first
            area.stage(List.of(), Map.of(0, 7L), 4_000, PER_TRANSACTION, false);
            assertThat(area.bound(2)).as("the partitions' bounds are in two units").isNull();
            area.stage(List.of(), Map.of(1, 5L), 4_000, PER_TRANSACTION, false);
            assertThat(area.bound(2))
                    .as("a bound in the new unit replaces the old one")
                    .isEqualTo(new StagingArea.Bound(5, 4_000, PER_TRANSACTION));
        }
    }

    /**
     * The committer writes what it takes a page at a time, so pages come in source order across
     * partitions: an earlier interval's changes on one partition before a later interval's on
     * another (a keyless table's changes, which share a partition, after the rows they change), and
     * within an interval by source position. In partition order, the later interval's page came
     * first.
     */
    @Test
    void takenChangesComeByIntervalAndPositionAcrossPartitions() throws Exception {
        String url = freshDatabase();
        String topic = "t-" + System.nanoTime();
        try (WarehouseWriter w = writer(url)) {
            StagingArea area = w.stagingArea(topic);
            area.stage(
                    List.of(
                            entry(0, 1, 200, "0000000000000030", 1),
                            entry(0, 2, 200, "0000000000000040", 2),
                            entry(1, 1, 100, "0000000000000010", 3),
                            entry(1, 2, 200, "0000000000000035", 4),
                            entry(1, 3, 100, "0000000000000020", 5)),
                    Map.of(0, 200L, 1, 200L),
                    1_000,
                    W,
                    false);
            assertThat(area.take(new StagingArea.Bound(200, 1_000, W))).isEqualTo(5);
            List<String> order = new java.util.ArrayList<>();
            StagingArea.Entry after = null;
            List<StagingArea.Entry> page;
            while (!(page = area.page(after, 2)).isEmpty()) {
                page.forEach(e -> order.add(e.partition() + "@" + e.offset()));
                after = page.get(page.size() - 1);
            }
            assertThat(order).containsExactly("1@1", "1@3", "0@1", "1@2", "0@2");
            w.rollback();
        }
    }

    private static StagingArea.Entry entry(
            int partition, long offset, long end, String position, int id) {
        NetChange c = NetChanges.upsert("public.accounts", id, "account " + id, null, id);
        return new StagingArea.Entry(partition, offset, end, position, NetChangeCodec.encode(c));
    }

    @Test
    void stagedChangesLeaveWithTheTransactionThatAppliesThem() throws Exception {
        String url = freshDatabase();
        String topic = "t-" + System.nanoTime();
        try (WarehouseWriter w = writer(url)) {
            StagingArea area = w.stagingArea(topic);
            area.stage(
                    List.of(entry(1, 7, 100, 2), entry(0, 3, 100, 1), entry(0, 4, 200, 3)),
                    Map.of(0, 200L, 1, 100L),
                    1_000,
                    W,
                    false);
            // read again after a rebalance: staged once
            area.stage(List.of(entry(0, 3, 100, 1)), Map.of(0, 200L), 1_000, W, false);

            StagingArea.Bound through100 = new StagingArea.Bound(100, 1_000, W);
            assertThat(area.take(through100)).isEqualTo(2);
            List<StagingArea.Entry> first = area.page(null, 1);
            assertThat(first)
                    .extracting(e -> e.partition() + "@" + e.offset())
                    .containsExactly("0@3");
            assertThat(area.page(first.get(0), 10))
                    .extracting(e -> e.partition() + "@" + e.offset())
                    .containsExactly("1@7");
            w.rollback();
            assertThat(staged(url, topic)).as("rolled back: still staged").isEqualTo(3);

            area.take(through100);
            List<StagingArea.Entry> taken = area.page(null, 100);
            List<IntervalRecord> records =
                    taken.stream()
                            .map(e -> (IntervalRecord) NetChangeCodec.decode(e.record()))
                            .toList();
            w.apply(records, 1_000);
            assertThat(staged(url, topic)).isEqualTo(1);
            assertThat(area.empty()).isFalse();
            assertThat(count(url, "SELECT count(*) FROM public.accounts")).isEqualTo(2);
        }
    }

    private static final String W = "partitions=2 interval=1000ms grace=100ms mode=all";
    private static final String PER_TRANSACTION =
            "partitions=2 interval=0 (a window per transaction) mode=all";

    private static long staged(String url, String topic) throws Exception {
        return count(
                url, "SELECT count(*) FROM cdc_lab.staged_changes WHERE topic = '" + topic + "'");
    }

    private static long count(String url, String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(url, server.user(), server.password());
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
