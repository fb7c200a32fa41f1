package dev.cdclab.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdclab.change.NetChangeCodec;
import dev.cdclab.sink.warehouse.NetChanges;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sink commits its Kafka offsets once per {@code offset.commit.interval}, and always when it
 * stops or gives its partitions up, so the next reader starts where the warehouse is.
 */
@Timeout(180)
class WarehouseSinkOffsetsIT {
    @RegisterExtension static final NetChangeTopics kafka = new NetChangeTopics();

    @TempDir Path dir;

    private final String topic = "net-" + UUID.randomUUID();
    private final String group = "sink-" + UUID.randomUUID();

    @Test
    void offsetsWaitForTheIntervalAndAreCommittedWhenTheSinkStops() throws Exception {
        try (WarehouseSink sink = sinkThatApplied("1h", "a")) {
            assertThat(kafka.committed(group, topic)).as("an hour has not passed").isEqualTo(-1);
        }
        assertThat(kafka.committed(group, topic)).isEqualTo(2);
    }

    @Test
    void withNoIntervalEveryWarehouseTransactionCommitsItsOffsets() throws Exception {
        try (WarehouseSink sink = sinkThatApplied("0", "b")) {
            await().atMost(Duration.ofSeconds(60)).until(() -> kafka.committed(group, topic) == 2);
            assertThat(sink.isRunning()).isTrue();
        }
    }

    @Test
    void aSinkThatGivesItsPartitionUpCommitsWhatItApplied() throws Exception {
        try (WarehouseSink first = sinkThatApplied("1h", "c")) {
            assertThat(kafka.committed(group, topic)).isEqualTo(-1);
            // a second member makes the group rebalance: the first revokes its partition
            try (WarehouseSink second = new WarehouseSink(config("1h", "d"))) {
                second.start(Duration.ofSeconds(30));
                await().atMost(Duration.ofSeconds(90))
                        .until(() -> kafka.committed(group, topic) == 2);
                assertThat(first.isRunning()).isTrue();
                assertThat(second.isRunning()).isTrue();
            }
        }
    }

    /** A sink started on a topic of one change and its marker, once it has applied the change. */
    private WarehouseSink sinkThatApplied(String commitInterval, String file) throws Exception {
        kafka.produce(
                topic, NetChangeCodec.encode(NetChanges.upsert("public.items", 1, "a", "x", 100)));
        WarehouseSink sink = new WarehouseSink(config(commitInterval, file));
        sink.start(Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(60)).until(() -> sink.stats().netChanges() == 1);
        return sink;
    }

    private SinkConfig config(String commitInterval, String file) {
        return SinkConfig.of(
                Map.of(
                        "bootstrap.servers", kafka.bootstrapServers(),
                        "group.id", group,
                        "net.changes.topic", topic,
                        "warehouse.url", "jdbc:duckdb:" + dir.resolve(file + ".duckdb"),
                        "offset.commit.interval", commitInterval));
    }
}
