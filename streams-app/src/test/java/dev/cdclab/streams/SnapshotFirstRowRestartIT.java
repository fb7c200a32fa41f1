package dev.cdclab.streams;

import static dev.cdclab.streams.testing.DebeziumEvents.row;
import static dev.cdclab.streams.testing.KafkaTestClients.admin;
import static dev.cdclab.streams.testing.KafkaTestClients.appSettings;
import static dev.cdclab.streams.testing.KafkaTestClients.committed;
import static dev.cdclab.streams.testing.KafkaTestClients.consumerFromStart;
import static dev.cdclab.streams.testing.KafkaTestClients.createTopics;
import static dev.cdclab.streams.testing.KafkaTestClients.producer;
import static dev.cdclab.streams.testing.KafkaTestClients.records;
import static dev.cdclab.streams.testing.KafkaTestClients.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdclab.change.IntervalMarker;
import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetChangeRecord;
import dev.cdclab.change.SourcePosition;
import dev.cdclab.change.TableEvent;
import dev.cdclab.embedded.KafkaBroker;
import dev.cdclab.streams.testing.DebeziumEvents;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
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
 * out. The snapshot also still waits for its heartbeat: no window after it closes before.
 */
@Timeout(180)
class SnapshotFirstRowRestartIT {

    @Test
    void aSnapshotsFirstRowHeldAcrossARestartStillEndsItsTable(
            @TempDir Path first, @TempDir Path second) throws Exception {
        try (KafkaBroker kafka = KafkaBroker.builder().start()) {
            String run = "first-row-" + System.nanoTime();
            Map<String, String> settings = appSettings(kafka.bootstrapServers(), run, first);
            String netChanges = settings.get("net.changes.topic");
            NetChangeConfig config = NetChangeConfig.of(settings);
            String changes = config.changeTopic();
            DebeziumEvents events = new DebeziumEvents();
            long t0 = System.currentTimeMillis() - 60_000;
            try (Admin admin = admin(kafka.bootstrapServers());
                    KafkaProducer<byte[], byte[]> producer = producer(kafka.bootstrapServers());
                    KafkaConsumer<byte[], byte[]> output =
                            consumerFromStart(kafka.bootstrapServers(), netChanges)) {
                createTopics(admin, changes, netChanges);
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
                    // two transactions the log delivers after the snapshot: the snapshot they may
                    // already be in has not settled, across the restart too
                    send(
                            producer,
                            changes,
                            events.key(2),
                            events.change('c', null, row(2, "after", 1), 4001, 9_000_001, t0 + 50));
                    send(
                            producer,
                            changes,
                            events.key(3),
                            events.change('c', null, row(3, "after", 1), 4002, 9_000_002, t0 + 60));
                    await().atMost(Duration.ofSeconds(60))
                            .until(() -> committed(admin, run, changes) >= 3);
                    List<NetChangeRecord> before = new ArrayList<>();
                    // the change of row 3 goes out as it is read: a close it made would follow it
                    await().atMost(Duration.ofSeconds(60))
                            .until(
                                    () -> {
                                        before.addAll(records(output));
                                        return before.stream()
                                                .anyMatch(
                                                        r ->
                                                                r instanceof NetChange c
                                                                        && c.key().get("id").asInt()
                                                                                == 3);
                                    });
                    before.addAll(records(output));
                    assertThat(before)
                            .filteredOn(IntervalMarker.class::isInstance)
                            .map(r -> ((IntervalMarker) r).closedThrough())
                            .as("no window past the snapshot closes before its heartbeat")
                            .allMatch(closed -> closed <= 4000);
                    send(
                            producer,
                            changes,
                            events.heartbeatKey(1),
                            events.heartbeat(1, 4003, 9_000_000, t0 + 100));
                    List<NetChangeRecord> after = new ArrayList<>(before);
                    await().atMost(Duration.ofSeconds(60))
                            .until(
                                    () -> {
                                        after.addAll(records(output));
                                        return after.stream()
                                                .anyMatch(
                                                        r ->
                                                                r instanceof IntervalMarker m
                                                                        && m.closedThrough()
                                                                                > 4001);
                                    });
                    List<TableEvent> seen =
                            after.stream()
                                    .filter(TableEvent.class::isInstance)
                                    .map(TableEvent.class::cast)
                                    .toList();
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
        return records(consumer).stream()
                .filter(TableEvent.class::isInstance)
                .map(TableEvent.class::cast)
                .toList();
    }
}
