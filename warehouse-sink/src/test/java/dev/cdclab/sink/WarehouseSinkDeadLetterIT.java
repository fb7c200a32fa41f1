package dev.cdclab.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetChangeCodec;
import dev.cdclab.change.SourcePosition;
import dev.cdclab.change.TableEvent;
import dev.cdclab.sink.warehouse.NetChanges;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An unreadable net-change record is never skipped silently: dead-lettered with its reason while
 * the records after it are applied, or, with {@code errors.tolerance=none}, the sink stops without
 * committing past it; nor does a sink a {@code TRUNCATE} stopped.
 */
@Timeout(180)
class WarehouseSinkDeadLetterIT {
    private static final byte[] GARBAGE = "{not a net change".getBytes(StandardCharsets.UTF_8);
    @RegisterExtension static final NetChangeTopics kafka = new NetChangeTopics();

    @TempDir Path dir;

    @Test
    void anUnreadableRecordIsDeadLetteredAndTheRecordsAfterItAreApplied() throws Exception {
        String topic = "net-" + UUID.randomUUID();
        String group = "sink-" + UUID.randomUUID();
        kafka.produce(
                topic,
                GARBAGE,
                NetChangeCodec.encode(NetChanges.upsert("public.items", 1, "a", "x", 100)));

        try (WarehouseSink sink = new WarehouseSink(config(topic, group, "all"))) {
            sink.start(Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(60)).until(() -> sink.stats().netChanges() == 1);
            assertThat(sink.stats().malformed()).isEqualTo(1);
            assertThat(sink.isRunning()).isTrue();
            try (Connection c = sink.openReader();
                    Statement s = c.createStatement();
                    ResultSet rs =
                            s.executeQuery("select name from \"public\".\"items\" where id = 1")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("a");
            }
        }

        List<ConsumerRecord<byte[], byte[]>> letters = readAll(topic + "-dead-letters", 1);
        assertThat(letters).hasSize(1);
        ConsumerRecord<byte[], byte[]> letter = letters.get(0);
        assertThat(letter.value()).isEqualTo(GARBAGE);
        assertThat(header(letter, "cdclab.source")).isEqualTo(topic + "-0@0");
        assertThat(header(letter, "cdclab.error")).isNotBlank();
        assertThat(kafka.committed(group, topic)).isEqualTo(3);
    }

    @Test
    void withNoToleranceTheSinkStopsAndDoesNotCommitPastTheRecord() throws Exception {
        String topic = "net-" + UUID.randomUUID();
        String group = "sink-" + UUID.randomUUID();
        kafka.produce(
                topic,
                GARBAGE,
                NetChangeCodec.encode(NetChanges.upsert("public.items", 1, "a", "x", 100)));

        try (WarehouseSink sink = new WarehouseSink(config(topic, group, "none"))) {
            sink.start(Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(60)).until(() -> sink.failure().isPresent());
            assertThat(sink.failure().get())
                    .isInstanceOf(MalformedNetChangeException.class)
                    .hasMessageContaining(topic + "-0@0");
            assertThat(sink.stats().netChanges()).isZero();
        }
        assertThat(kafka.committed(group, topic)).isIn(-1L, 0L);
    }

    @Test
    void aSinkStoppedByATruncateDoesNotCommitPastTheIntervalItDidNotApply() throws Exception {
        String topic = "net-" + UUID.randomUUID();
        String group = "sink-" + UUID.randomUUID();
        NetChange change = NetChanges.upsert("public.items", 1, "a", "x", 100);
        TableEvent truncate =
                new TableEvent(
                        TableEvent.Kind.TRUNCATE,
                        "public.items",
                        SourcePosition.postgres(101),
                        "7",
                        change.commitMs(),
                        change.intervalStartMs(),
                        change.intervalEndMs());
        kafka.produce(topic, NetChangeCodec.encode(change), NetChangeCodec.encode(truncate));

        Map<String, String> settings = new HashMap<>(settings(topic, group, "none"));
        settings.put("truncate", "stop");
        try (WarehouseSink sink = new WarehouseSink(SinkConfig.of(settings))) {
            sink.start(Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(60)).until(() -> sink.failure().isPresent());
            assertThat(sink.failure().get()).isInstanceOf(TruncateStopException.class);
            assertThat(sink.stats().netChanges()).isZero();
        }
        assertThat(kafka.committed(group, topic))
                .as("the interval with the TRUNCATE is read again by the next sink")
                .isIn(-1L, 0L);
    }

    private SinkConfig config(String topic, String group, String tolerance) {
        return SinkConfig.of(settings(topic, group, tolerance));
    }

    private Map<String, String> settings(String topic, String group, String tolerance) {
        return Map.of(
                "bootstrap.servers", kafka.bootstrapServers(),
                "group.id", group,
                "net.changes.topic", topic,
                "warehouse.url", "jdbc:duckdb:" + dir.resolve("w.duckdb"),
                "errors.tolerance", tolerance);
    }

    private static List<ConsumerRecord<byte[], byte[]>> readAll(String topic, int expected) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = kafka.consumer("reader-" + UUID.randomUUID())) {
            c.subscribe(List.of(topic));
            await().atMost(Duration.ofSeconds(30))
                    .until(
                            () -> {
                                c.poll(Duration.ofMillis(200)).forEach(out::add);
                                return out.size() >= expected;
                            });
        }
        return out;
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
