package dev.cdclab.streams;

import static dev.cdclab.streams.testing.DebeziumEvents.row;
import static dev.cdclab.streams.testing.KafkaTestClients.committed;
import static dev.cdclab.streams.testing.KafkaTestClients.consumerFromStart;
import static dev.cdclab.streams.testing.KafkaTestClients.producer;
import static dev.cdclab.streams.testing.KafkaTestClients.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdclab.change.NetChangeCodec;
import dev.cdclab.change.NetChangeRecord;
import dev.cdclab.change.SourcePosition;
import dev.cdclab.change.TableEvent;
import dev.cdclab.embedded.KafkaBroker;
import dev.cdclab.streams.testing.DebeziumEvents;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first row of a snapshot may be all of its table, so the table's reading only ends with the
 * next record of anything else. When the app stops in between, with the offset past that row
 * committed, the app started again (on another state directory, restored from the changelog) still
 * ends it: the table event that removes the warehouse's rows the snapshot did not read again comes
 * out.
 */
@Timeout(180)
class SnapshotFirstRowRestartIT {

    @Test
    void aSnapshotsFirstRowHeldAcrossARestartStillEndsItsTable(
            @TempDir Path first, @TempDir Path second) throws Exception {
        try (KafkaBroker kafka = KafkaBroker.builder().start()) {
            String run = "first-row-" + System.nanoTime();
            String netChanges = run + ".net-changes";
            Map<String, String> settings = new HashMap<>();
            settings.put("bootstrap.servers", kafka.bootstrapServers());
            settings.put("application.id", run);
            settings.put("net.changes.topic", netChanges);
            settings.put("marker.interval", "0ms");
            settings.put("state.dir", first.toString());
            NetChangeConfig config = NetChangeConfig.of(settings);
            String changes = config.changeTopic();
            DebeziumEvents events = new DebeziumEvents();
            long t0 = System.currentTimeMillis() - 60_000;
            try (Admin admin =
                            Admin.create(
                                    Map.of(
                                            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                                            kafka.bootstrapServers()));
                    KafkaProducer<byte[], byte[]> producer = producer(kafka.bootstrapServers());
                    KafkaConsumer<byte[], byte[]> output =
                            consumerFromStart(kafka.bootstrapServers(), netChanges)) {
                admin.createTopics(
                                List.of(
                                        new NewTopic(changes, 1, (short) 1),
                                        new NewTopic(netChanges, 1, (short) 1)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
                try (NetChangeApp app = new NetChangeApp(config)) {
                    app.start(Duration.ofSeconds(60));
                    send(
                            producer,
                            changes,
                            events.key(1),
                            events.snapshotRead(row(1, "only", 1), 4000, t0, "first"));
                    await().atMost(Duration.ofSeconds(60))
                            .until(() -> committed(admin, run, changes) >= 1);
                }
                assertThat(tableEvents(output)).as("nothing has ended the reading yet").isEmpty();

                settings.put("state.dir", second.toString());
                try (NetChangeApp app = new NetChangeApp(NetChangeConfig.of(settings))) {
                    app.start(Duration.ofSeconds(60));
                    send(
                            producer,
                            changes,
                            events.heartbeatKey(1),
                            events.heartbeat(1, 4001, 9_000_000, t0 + 100));
                    List<TableEvent> seen = new ArrayList<>();
                    await().atMost(Duration.ofSeconds(60))
                            .until(
                                    () -> {
                                        seen.addAll(tableEvents(output));
                                        return !seen.isEmpty();
                                    });
                    assertThat(seen)
                            .singleElement()
                            .satisfies(
                                    e -> {
                                        assertThat(e.kind()).isEqualTo(TableEvent.Kind.SNAPSHOT);
                                        assertThat(e.table()).isEqualTo("public.items");
                                        assertThat(e.position())
                                                .isEqualTo(
                                                        SourcePosition.commitStart(
                                                                SourcePosition.postgres(4000)));
                                    });
                }
            }
        }
    }

    private static List<TableEvent> tableEvents(KafkaConsumer<byte[], byte[]> consumer) {
        List<TableEvent> events = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
            NetChangeRecord rec = NetChangeCodec.decode(r.value());
            if (rec instanceof TableEvent e) {
                events.add(e);
            }
        }
        return events;
    }
}
