package dev.cdclab.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.cdclab.embedded.ConnectWorker;
import dev.cdclab.embedded.KafkaBroker;
import dev.cdclab.embedded.PostgresServer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The connector on a real Connect worker, against a real PostgreSQL and broker. */
@Timeout(240)
class CaptureIT {
    private static final AtomicInteger IDS = new AtomicInteger();
    private static PostgresServer pg;
    private static KafkaBroker kafka;
    private static ConnectWorker connect;

    @BeforeAll
    static void start() {
        pg = PostgresServer.builder().start();
        kafka = KafkaBroker.builder().start();
        connect =
                ConnectWorker.builder()
                        .bootstrapServers(kafka.bootstrapServers())
                        .groupId("capture-it")
                        .start();
    }

    @AfterAll
    static void stop() {
        connect.close();
        kafka.close();
        pg.close();
    }

    private static CaptureConfig config(String id, int partitions) {
        return CaptureConfig.of(
                Map.of(
                        "source.port", Integer.toString(pg.port()),
                        "source.database", pg.database(),
                        "source.user", pg.user(),
                        "source.password", pg.password(),
                        "connector.name", "capture-it-" + id,
                        "topic.prefix", "it" + id,
                        "slot.name", "slot_it" + id,
                        "publication.name", "pub_it" + id,
                        "partitions", Integer.toString(partitions)));
    }

    @Test
    void everyPartitionCarriesHeartbeatsBehindTheData() throws Exception {
        String id = Integer.toString(IDS.incrementAndGet());
        int partitions = 3;
        CaptureConfig c = config(id, partitions);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            admin.createTopics(
                            List.of(
                                    new NewTopic(
                                            "it" + id + ".changes",
                                            Optional.of(partitions),
                                            Optional.empty())))
                    .all()
                    .get();
        }
        CaptureSource db = CaptureSource.of(c);
        db.prepare();
        try (Connection conn = pg.connect();
                Statement s = conn.createStatement()) {
            s.execute("CREATE TABLE t" + id + " (id int primary key, v text)");
            s.execute("INSERT INTO t" + id + " SELECT g, 'v' || g FROM generate_series(1, 50) g");
        }
        ConnectRestClient rest = new ConnectRestClient(connect.restUrl());
        Map<String, String> cfg = DebeziumConnectorConfig.of(c);
        assertThat(rest.validate("capture-it-" + id, cfg)).isEmpty();
        rest.put("capture-it-" + id, cfg);
        rest.awaitRunning("capture-it-" + id, Duration.ofSeconds(60));
        db.awaitStreaming(Duration.ofSeconds(60));
        try (Connection conn = pg.connect();
                Statement s = conn.createStatement()) {
            s.execute("UPDATE t" + id + " SET v = 'changed' WHERE id <= 10");
        }
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrapServers());
        p.put("group.id", "capture-it-reader-" + id);
        p.put("auto.offset.reset", "earliest");
        Set<Integer> heartbeatPartitions = new HashSet<>();
        AtomicInteger data = new AtomicInteger();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of("it" + id + ".changes"));
            await().atMost(Duration.ofSeconds(60))
                    .until(
                            () -> {
                                for (ConsumerRecord<byte[], byte[]> r :
                                        consumer.poll(Duration.ofMillis(200))) {
                                    String key = new String(r.key(), StandardCharsets.UTF_8);
                                    if (key.contains("cdc_lab.heartbeat")) {
                                        heartbeatPartitions.add(r.partition());
                                    } else if (key.contains("public.t" + id)) {
                                        data.incrementAndGet();
                                    }
                                }
                                return heartbeatPartitions.size() == partitions && data.get() >= 60;
                            });
        }
        assertThat(heartbeatPartitions).containsExactlyInAnyOrder(0, 1, 2);
        rest.delete("capture-it-" + id);
    }

    @Test
    void aWrongSourceIsRejectedByTheConnectorsOwnValidation() {
        Map<String, String> cfg = DebeziumConnectorConfig.of(config("bad", 1));
        cfg.put("database.port", "1");
        List<String> problems = new ConnectRestClient(connect.restUrl()).validate("bad", cfg);
        assertThat(problems).isNotEmpty();
    }

    @Test
    void anUnreachableConnectClusterIsNamedInOneLine() {
        assertThatThrownBy(() -> new ConnectRestClient("http://127.0.0.1:1").status("x"))
                .isInstanceOfSatisfying(
                        ConnectRestException.class, e -> assertThat(e.status()).isZero())
                .hasMessage("cannot reach Kafka Connect at http://127.0.0.1:1");
    }
}
