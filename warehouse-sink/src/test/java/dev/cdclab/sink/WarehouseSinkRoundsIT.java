package dev.cdclab.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdclab.change.IntervalMarker;
import dev.cdclab.change.NetChangeCodec;
import dev.cdclab.embedded.KafkaBroker;
import dev.cdclab.embedded.PostgresServer;
import dev.cdclab.sink.warehouse.NetChanges;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A sink's round takes every closed interval the net-change log holds when the round begins, not
 * only what the fetch sent as the previous round's poll returned.
 */
@Timeout(180)
class WarehouseSinkRoundsIT {
    private static KafkaBroker kafka;
    private static PostgresServer warehouse;

    private final String db = "rounds_" + Long.toHexString(System.nanoTime());

    @BeforeAll
    static void start() {
        kafka = KafkaBroker.builder().start();
        warehouse = PostgresServer.builder().durable(false).start();
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.close();
        }
        if (warehouse != null) {
            warehouse.close();
        }
    }

    /**
     * While a warehouse transaction waits on a lock, two closed intervals arrive: the first answers
     * the fetch the consumer sent ahead as the round's poll returned, the second waits in the log
     * for a later fetch. The next round applies both in one warehouse transaction.
     */
    @Test
    void whatArrivesDuringAWarehouseTransactionIsTakenWholeByTheNextRound() throws Exception {
        String topic = "net-" + UUID.randomUUID();
        warehouse.createDatabase(db);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        Map<String, String> settings = new HashMap<>();
        settings.put("bootstrap.servers", kafka.bootstrapServers());
        settings.put("group.id", "sink-" + UUID.randomUUID());
        settings.put("net.changes.topic", topic);
        settings.put("warehouse.url", warehouse.jdbcUrl(db));
        settings.put("warehouse.user", warehouse.user());
        settings.put("warehouse.password", warehouse.password());
        // the sink's 64 KiB fetch.min.bytes holds a fetch for a small interval this long, within
        // the 100 ms the sink's round waits for a fetch while the log holds more
        settings.put("kafka.fetch.max.wait.ms", "80");

        try (KafkaProducer<byte[], byte[]> producer = producer();
                WarehouseSink sink = new WarehouseSink(SinkConfig.of(settings))) {
            sink.start(Duration.ofSeconds(60));
            closedInterval(producer, topic, 1, null);
            await().atMost(Duration.ofSeconds(60)).until(() -> sink.stats().netChanges() == 1);

            // pg_stat_activity holds still within a transaction: the watcher reads it outside one
            try (Connection lock = connect();
                    Connection watcher = connect()) {
                lock.setAutoCommit(false);
                try (Statement s = lock.createStatement()) {
                    s.execute("LOCK TABLE cdc_lab.progress IN EXCLUSIVE MODE");
                }
                closedInterval(producer, topic, 2, null);
                await().atMost(Duration.ofSeconds(60))
                        .pollDelay(Duration.ZERO)
                        .pollInterval(Duration.ofMillis(1))
                        .until(() -> waitingOnALock(watcher));
                // larger than fetch.min.bytes: answers at once the fetch the consumer sent as the
                // poll that returned interval 2 returned
                closedInterval(producer, topic, 3, "x".repeat(70_000));
                // smaller: waits in the log, for the next fetch
                closedInterval(producer, topic, 4, null);
                lock.commit();
            }

            await().atMost(Duration.ofSeconds(60)).until(() -> sink.stats().netChanges() == 4);
            try (Connection c = connect()) {
                assertThat(writtenBy(c, 3))
                        .as("the intervals that arrived during one warehouse transaction")
                        .isEqualTo(writtenBy(c, 4))
                        .isNotEqualTo(writtenBy(c, 2));
            }
        }
    }

    private Connection connect() throws Exception {
        return DriverManager.getConnection(
                warehouse.jdbcUrl(db), warehouse.user(), warehouse.password());
    }

    /** The transaction that wrote row {@code id} of the table. */
    private static long writtenBy(Connection c, int id) throws Exception {
        try (Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT xmin::text::bigint FROM \"public\".\"items\" WHERE id = "
                                        + id)) {
            assertThat(rs.next()).as("row %d", id).isTrue();
            return rs.getLong(1);
        }
    }

    /** Whether another session of the database waits on a lock: the sink, at its commit. */
    private boolean waitingOnALock(Connection c) throws Exception {
        try (Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT count(*) FROM pg_stat_activity WHERE datname = '"
                                        + db
                                        + "' AND wait_event_type = 'Lock'")) {
            rs.next();
            return rs.getLong(1) > 0;
        }
    }

    /** Row {@code id} and the marker that closes its interval, appended together. */
    private static void closedInterval(
            KafkaProducer<byte[], byte[]> producer, String topic, int id, String note)
            throws Exception {
        long lsn = id * 100L;
        producer.send(
                new ProducerRecord<>(
                        topic,
                        0,
                        null,
                        NetChangeCodec.encode(
                                NetChanges.upsert("public.items", id, "r", note, lsn))));
        producer.send(
                new ProducerRecord<>(
                        topic,
                        0,
                        null,
                        NetChangeCodec.encode(new IntervalMarker(0, 1, lsn * 10 + 10))));
        producer.flush();
    }

    private static KafkaProducer<byte[], byte[]> producer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        // both records of an interval leave in one batch, at flush()
        p.put(ProducerConfig.LINGER_MS_CONFIG, 60_000);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 1 << 20);
        return new KafkaProducer<>(p);
    }
}
