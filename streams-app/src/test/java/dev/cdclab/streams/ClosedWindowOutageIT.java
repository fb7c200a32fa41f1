package dev.cdclab.streams;

import static dev.cdclab.streams.testing.DebeziumEvents.row;
import static dev.cdclab.streams.testing.KafkaTestClients.committed;
import static dev.cdclab.streams.testing.KafkaTestClients.consumerFromStart;
import static dev.cdclab.streams.testing.KafkaTestClients.netChanges;
import static dev.cdclab.streams.testing.KafkaTestClients.producer;
import static dev.cdclab.streams.testing.KafkaTestClients.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdclab.change.NetChange;
import dev.cdclab.embedded.KafkaBroker;
import dev.cdclab.streams.testing.DebeziumEvents;
import dev.cdclab.streams.topology.NetChangeTopology;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
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
 * Under {@code at_least_once}, a window that closes while the net-change topic cannot be written is
 * emitted once it can: the topic's only replica goes down just before the change that closes the
 * window arrives, and stays down past the producer's delivery timeout, while the app's changelogs
 * (three replicas) stay writable. Streams then revives the task from its changelogs and replays its
 * input from the last commit, which the window's own changes are already behind.
 */
@Timeout(240)
class ClosedWindowOutageIT {
    private static final int OUTPUT_NODE = 3;

    @Test
    void aWindowClosedWhileItsOutputIsDownIsEmittedOnceItIsBack(@TempDir Path state)
            throws Exception {
        try (KafkaBroker kafka =
                KafkaBroker.builder()
                        .nodes(3)
                        // the stopped node's other partitions move within seconds
                        .property("broker.session.timeout.ms", "3000")
                        .property("broker.heartbeat.interval.ms", "500")
                        .start()) {
            String run = "outage-" + System.nanoTime();
            String netChanges = run + ".net-changes";
            Map<String, String> settings = new HashMap<>();
            settings.put("bootstrap.servers", kafka.bootstrapServers());
            settings.put("application.id", run);
            settings.put("net.changes.topic", netChanges);
            settings.put("interval", "1s");
            settings.put("grace", "0ms");
            settings.put("marker.interval", "0ms");
            settings.put("state.dir", state.toString());
            // longer than the stopped node's other partitions take to move, short for a test
            settings.put("kafka.producer.delivery.timeout.ms", "15000");
            settings.put("kafka.producer.request.timeout.ms", "5000");
            NetChangeConfig config = NetChangeConfig.of(settings);
            String changes = config.changeTopic();
            try (Admin admin =
                    Admin.create(
                            Map.of(
                                    AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                                    kafka.bootstrapServers()))) {
                admin.createTopics(
                                List.of(
                                        new NewTopic(changes, Map.of(0, List.of(1, 2, 3))),
                                        new NewTopic(netChanges, Map.of(0, List.of(OUTPUT_NODE)))))
                        .all()
                        .get(30, TimeUnit.SECONDS);
                DebeziumEvents events = new DebeziumEvents();
                // whole seconds ten minutes ago: the first window is [t0, t0 + 1 s)
                long t0 = (System.currentTimeMillis() / 1000 - 600) * 1000;
                SimpleMeterRegistry meters = new SimpleMeterRegistry();
                try (NetChangeApp app = new NetChangeApp(config);
                        KafkaProducer<byte[], byte[]> producer =
                                producer(kafka.bootstrapServers())) {
                    app.start(Duration.ofSeconds(60));
                    app.bindTo(meters);
                    send(
                            producer,
                            changes,
                            events.key(1),
                            events.change('c', null, row(1, "a", 1), 100, 10, t0 + 100));
                    send(
                            producer,
                            changes,
                            events.key(1),
                            events.change('u', row(1, "a", 1), row(1, "a", 2), 200, 11, t0 + 200));
                    // both changes are behind the app's committed input offset: a replay starts
                    // after them
                    await().atMost(Duration.ofSeconds(30))
                            .until(() -> committed(admin, run, changes) >= 2);
                    kafka.stop(OUTPUT_NODE);
                    // closes the first window, whose net change the output cannot take
                    send(
                            producer,
                            changes,
                            events.key(2),
                            events.change('c', null, row(2, "b", 1), 300, 12, t0 + 1500));
                    // the send timed out, and Streams closed the task to revive it
                    await().atMost(Duration.ofSeconds(60))
                            .until(() -> sum(meters, "task.closed.total") >= 1);
                    kafka.resume();
                    // closes the second window
                    send(
                            producer,
                            changes,
                            events.key(3),
                            events.change('c', null, row(3, "c", 1), 400, 13, t0 + 2500));
                    List<NetChange> out = new ArrayList<>();
                    try (KafkaConsumer<byte[], byte[]> consumer =
                            consumerFromStart(kafka.bootstrapServers(), netChanges)) {
                        await().atMost(Duration.ofSeconds(90))
                                .until(
                                        () -> {
                                            out.addAll(netChanges(consumer));
                                            return out.stream().anyMatch(c -> id(c) == 2);
                                        });
                    }
                    assertThat(out)
                            .as("the first window's net change, after the second window's")
                            .anySatisfy(
                                    c -> {
                                        assertThat(id(c)).isEqualTo(1);
                                        assertThat(c.after().get("qty").asInt()).isEqualTo(2);
                                        assertThat(c.intervalStartMs()).isEqualTo(t0);
                                    });
                    // and the closed windows' state goes once their output is committed: only
                    // the open third window's key is left in the store's changelog
                    String changelog = run + "-" + NetChangeTopology.PENDING_STORE + "-changelog";
                    Map<String, Boolean> live = new HashMap<>();
                    try (KafkaConsumer<byte[], byte[]> consumer =
                            consumerFromStart(kafka.bootstrapServers(), changelog)) {
                        await().atMost(Duration.ofSeconds(30))
                                .until(
                                        () -> {
                                            for (ConsumerRecord<byte[], byte[]> r :
                                                    consumer.poll(Duration.ofMillis(200))) {
                                                live.put(
                                                        Arrays.toString(r.key()),
                                                        r.value() != null);
                                            }
                                            return live.values().stream().filter(v -> v).count()
                                                    == 1;
                                        });
                    }
                    assertThat(live).hasSize(3);
                }
            }
        }
    }

    private static int id(NetChange c) {
        return c.key().get("id").asInt();
    }

    private static double sum(SimpleMeterRegistry meters, String suffix) {
        double total = 0;
        for (Meter m : meters.getMeters()) {
            if (m.getId().getName().endsWith(suffix)) {
                for (var measure : m.measure()) {
                    total += measure.getValue();
                }
            }
        }
        return total;
    }
}
