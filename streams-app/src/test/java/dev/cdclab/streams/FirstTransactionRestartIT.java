package dev.cdclab.streams;

import static dev.cdclab.streams.testing.DebeziumEvents.row;
import static dev.cdclab.streams.testing.KafkaTestClients.admin;
import static dev.cdclab.streams.testing.KafkaTestClients.appSettings;
import static dev.cdclab.streams.testing.KafkaTestClients.committed;
import static dev.cdclab.streams.testing.KafkaTestClients.consumerFromStart;
import static dev.cdclab.streams.testing.KafkaTestClients.createTopics;
import static dev.cdclab.streams.testing.KafkaTestClients.netChanges;
import static dev.cdclab.streams.testing.KafkaTestClients.producer;
import static dev.cdclab.streams.testing.KafkaTestClients.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdclab.change.NetChange;
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
 * The first transaction a connector streams without a snapshot names no commit before it, so its
 * changes carry their own log positions and the app gives them all the window of the first. When
 * the app stops in the middle of that transaction, with the offset past its first change committed,
 * the app started again (on another state directory, restored from the changelog) still gives the
 * rest of it that window: the transaction reaches the warehouse in one window.
 */
@Timeout(180)
class FirstTransactionRestartIT {

    @Test
    void theFirstTransactionsWindowSurvivesARestartInItsMiddle(
            @TempDir Path first, @TempDir Path second) throws Exception {
        try (KafkaBroker kafka = KafkaBroker.builder().start()) {
            String run = "first-tx-" + System.nanoTime();
            Map<String, String> settings = appSettings(kafka.bootstrapServers(), run, first);
            String netChanges = settings.get("net.changes.topic");
            NetChangeConfig config = NetChangeConfig.of(settings);
            String changes = config.changeTopic();
            DebeziumEvents events = new DebeziumEvents();
            long t0 = System.currentTimeMillis() - 60_000;
            events.followingNoCommit(700);
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
                            events.change('c', null, row(1, "a", 1), 5000, 700, t0));
                    await().atMost(Duration.ofSeconds(60))
                            .until(() -> committed(admin, run, changes) >= 1);
                }

                settings.put("state.dir", second.toString());
                try (NetChangeApp app = new NetChangeApp(NetChangeConfig.of(settings))) {
                    app.start(Duration.ofSeconds(60));
                    // the rest of transaction 700, then the next one, which ends it
                    send(
                            producer,
                            changes,
                            events.key(2),
                            events.change('c', null, row(2, "b", 1), 5001, 700, t0));
                    send(
                            producer,
                            changes,
                            events.key(3),
                            events.change('c', null, row(3, "c", 1), 5010, 701, t0 + 10));
                    send(
                            producer,
                            changes,
                            events.key(4),
                            events.change('c', null, row(4, "d", 1), 5020, 702, t0 + 20));
                    List<NetChange> out = new ArrayList<>();
                    await().atMost(Duration.ofSeconds(60))
                            .until(
                                    () -> {
                                        out.addAll(netChanges(output));
                                        return out.stream()
                                                .anyMatch(c -> c.key().get("id").asInt() == 3);
                                    });
                    assertThat(out)
                            .filteredOn(c -> c.transaction().equals("700"))
                            .as("transaction 700, begun before the restart, in one window")
                            .hasSize(2)
                            .extracting(NetChange::intervalStartMs)
                            .containsOnly(
                                    out.stream()
                                            .filter(c -> c.key().get("id").asInt() == 1)
                                            .findFirst()
                                            .orElseThrow()
                                            .intervalStartMs());
                }
            }
        }
    }
}
