package dev.cdclab.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdclab.change.NetChangeCodec;
import dev.cdclab.embedded.KafkaBroker;
import dev.cdclab.sink.warehouse.NetChanges;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sink commits its Kafka offsets once per {@code offset.commit.interval}, and always when it
 * stops or gives its partitions up, so the next reader starts where the warehouse is.
 */
@Timeout(180)
class WarehouseSinkOffsetsIT {
    private static KafkaBroker kafka;

    @TempDir Path dir;

    @BeforeAll
    static void startKafka() {
        kafka = KafkaBroker.builder().start();
    }

    @AfterAll
    static void stopKafka() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void offsetsWaitForTheIntervalAndAreCommittedWhenTheSinkStops() throws Exception {
        String topic = "net-" + UUID.randomUUID();
        String group = "sink-" + UUID.randomUUID();
        NetChangeTopics.produce(kafka, topic, change(1));

        try (WarehouseSink sink = new WarehouseSink(config(topic, group, "1h", "a"))) {
            sink.start(Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(60)).until(() -> sink.stats().netChanges() == 1);
            assertThat(NetChangeTopics.committed(kafka, group, topic))
                    .as("an hour has not passed")
                    .isEqualTo(-1);
        }
        assertThat(NetChangeTopics.committed(kafka, group, topic)).isEqualTo(2);
    }

    @Test
    void withNoIntervalEveryWarehouseTransactionCommitsItsOffsets() throws Exception {
        String topic = "net-" + UUID.randomUUID();
        String group = "sink-" + UUID.randomUUID();
        NetChangeTopics.produce(kafka, topic, change(1));

        try (WarehouseSink sink = new WarehouseSink(config(topic, group, "0", "b"))) {
            sink.start(Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> NetChangeTopics.committed(kafka, group, topic) == 2);
            assertThat(sink.stats().netChanges()).isEqualTo(1);
        }
    }

    @Test
    void aSinkThatGivesItsPartitionUpCommitsWhatItApplied() throws Exception {
        String topic = "net-" + UUID.randomUUID();
        String group = "sink-" + UUID.randomUUID();
        NetChangeTopics.produce(kafka, topic, change(1));

        try (WarehouseSink first = new WarehouseSink(config(topic, group, "1h", "c"))) {
            first.start(Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(60)).until(() -> first.stats().netChanges() == 1);
            assertThat(NetChangeTopics.committed(kafka, group, topic)).isEqualTo(-1);
            // a second member makes the group rebalance: the first revokes its partition
            try (WarehouseSink second = new WarehouseSink(config(topic, group, "1h", "d"))) {
                second.start(Duration.ofSeconds(30));
                await().atMost(Duration.ofSeconds(90))
                        .until(() -> NetChangeTopics.committed(kafka, group, topic) == 2);
                assertThat(first.isRunning()).isTrue();
                assertThat(second.isRunning()).isTrue();
            }
        }
    }

    private static byte[] change(int id) {
        return NetChangeCodec.encode(NetChanges.upsert("public.items", id, "a", "x", 100));
    }

    private SinkConfig config(String topic, String group, String interval, String file) {
        return SinkConfig.of(
                Map.of(
                        "bootstrap.servers", kafka.bootstrapServers(),
                        "group.id", group,
                        "net.changes.topic", topic,
                        "warehouse.url", "jdbc:duckdb:" + dir.resolve(file + ".duckdb"),
                        "offset.commit.interval", interval));
    }
}
