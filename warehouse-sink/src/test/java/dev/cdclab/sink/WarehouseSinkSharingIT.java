package dev.cdclab.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdclab.change.IntervalMarker;
import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetChangeCodec;
import dev.cdclab.embedded.KafkaBroker;
import dev.cdclab.embedded.PostgresServer;
import dev.cdclab.sink.warehouse.NetChanges;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Sinks that share a topic's partitions, and a sink whose net-change app changes its windows: the
 * committer dead-letters a row the warehouse refuses and applies the rest, a transaction larger
 * than the sinks' buffers passes through them staged ahead and lands in one warehouse transaction,
 * and bounds said in a new unit are followed.
 */
@Timeout(240)
class WarehouseSinkSharingIT {
    private static KafkaBroker kafka;
    private static PostgresServer warehouse;

    private final String db = "sharing_" + Long.toHexString(System.nanoTime());

    /**
     * The windows the changes below fall in: each change's window is {@code [10 * lsn, 10 * lsn +
     * 10)}, and its commit time is inside it, so that a sink that learns the settings late (after a
     * rebalance) and places a change staged ahead by its commit time places it where it is.
     */
    private static final String TEN_MS = "interval=10ms grace=100ms mode=all";

    private static final String PER_TRANSACTION = "interval=0 (a window per transaction) mode=all";

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

    private String topic(int partitions) throws Exception {
        String topic = "net-" + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
        }
        return topic;
    }

    private Map<String, String> settings(String topic, String group) {
        Map<String, String> settings = new HashMap<>();
        settings.put("bootstrap.servers", kafka.bootstrapServers());
        settings.put("group.id", group);
        settings.put("net.changes.topic", topic);
        settings.put("warehouse.url", warehouse.jdbcUrl(db));
        settings.put("warehouse.user", warehouse.user());
        settings.put("warehouse.password", warehouse.password());
        settings.put("session.timeout", "6s");
        return settings;
    }

    /** Changes of {@code ids} in partition {@code partition}, then every task's marker. */
    private static void interval(
            KafkaProducer<byte[], byte[]> producer,
            String topic,
            int partition,
            List<NetChange> changes,
            long closedThrough,
            int partitions,
            String windows)
            throws Exception {
        for (NetChange c : changes) {
            producer.send(new ProducerRecord<>(topic, partition, null, NetChangeCodec.encode(c)));
        }
        for (int task = 0; task < partitions; task++) {
            producer.send(
                    new ProducerRecord<>(
                            topic,
                            partition,
                            null,
                            NetChangeCodec.encode(
                                    new IntervalMarker(
                                            task,
                                            partitions,
                                            closedThrough,
                                            closedThrough,
                                            windows))));
        }
        producer.flush();
    }

    /** Upserts of {@code from..to} in one interval, all at positions past {@code lsn}. */
    private static List<NetChange> upserts(int from, int to, long lsn, String name) {
        List<NetChange> out = new ArrayList<>();
        for (int id = from; id <= to; id++) {
            NetChange c = NetChanges.upsert("public.items", id, name, null, lsn);
            out.add(
                    new NetChange(
                            c.table(),
                            c.op(),
                            c.key(),
                            c.after(),
                            c.before(),
                            c.unchanged(),
                            c.schema(),
                            c.intervalStartMs(),
                            c.intervalEndMs(),
                            c.firstPosition(),
                            c.lastPosition(),
                            c.transaction(),
                            c.intervalStartMs() + 5,
                            c.rawChanges(),
                            c.snapshot(),
                            c.mode(),
                            c.stages(),
                            c.generatorCommitMicros()));
        }
        return out;
    }

    @Test
    void theCommitterDeadLettersARefusedRowAndAppliesTheRest() throws Exception {
        String topic = topic(2);
        warehouse.createDatabase(db);
        String group = "sink-" + UUID.randomUUID();
        try (KafkaProducer<byte[], byte[]> producer = producer();
                WarehouseSink a = new WarehouseSink(SinkConfig.of(settings(topic, group)));
                WarehouseSink b = new WarehouseSink(SinkConfig.of(settings(topic, group)))) {
            a.start(Duration.ofSeconds(60));
            b.start(Duration.ofSeconds(60));
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> a.assignedPartitions() == 1 && b.assignedPartitions() == 1);
            interval(producer, topic, 0, upserts(1, 2, 10, "ok"), 110, 2, TEN_MS);
            interval(producer, topic, 1, upserts(3, 4, 10, "ok"), 110, 2, TEN_MS);
            await().atMost(Duration.ofSeconds(90)).until(() -> rows("id > 0") == 4);
            try (Connection c = connect();
                    Statement s = c.createStatement()) {
                s.execute("ALTER TABLE public.items ADD CONSTRAINT no_bad CHECK (name <> 'bad')");
            }
            List<NetChange> p0 = new ArrayList<>(upserts(5, 6, 20, "fine"));
            p0.add(NetChanges.upsert("public.items", 7, "bad", null, 20));
            interval(producer, topic, 0, p0, 210, 2, TEN_MS);
            interval(producer, topic, 1, upserts(8, 9, 20, "fine"), 210, 2, TEN_MS);
            await().atMost(Duration.ofSeconds(90)).until(() -> rows("name = 'fine'") == 4);
            assertThat(rows("id = 7")).isZero();
            assertThat(a.failure()).isEmpty();
            assertThat(b.failure()).isEmpty();
            assertThat(deadLetters(topic + "-dead-letters")).isEqualTo(1);
            // and they go on
            interval(producer, topic, 0, upserts(10, 10, 30, "later"), 310, 2, TEN_MS);
            interval(producer, topic, 1, upserts(11, 11, 30, "later"), 310, 2, TEN_MS);
            await().atMost(Duration.ofSeconds(90)).until(() -> rows("name = 'later'") == 2);
        }
    }

    @Test
    void aTransactionLargerThanTheBuffersLandsWholeThroughSharingSinks() throws Exception {
        String topic = topic(2);
        warehouse.createDatabase(db);
        String group = "sink-" + UUID.randomUUID();
        Map<String, String> small = settings(topic, group);
        small.put("interval.buffer.bytes", "65536");
        try (KafkaProducer<byte[], byte[]> producer = producer();
                WarehouseSink a = new WarehouseSink(SinkConfig.of(small));
                WarehouseSink b = new WarehouseSink(SinkConfig.of(small))) {
            a.start(Duration.ofSeconds(60));
            b.start(Duration.ofSeconds(60));
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> a.assignedPartitions() == 1 && b.assignedPartitions() == 1);
            interval(producer, topic, 0, upserts(1, 1, 10, "warm"), 110, 2, TEN_MS);
            interval(producer, topic, 1, upserts(2, 2, 10, "warm"), 110, 2, TEN_MS);
            await().atMost(Duration.ofSeconds(90)).until(() -> rows("id > 0") == 2);

            // one interval of 24,000 rows, its markers only after all of them
            AtomicInteger mostHeld = new AtomicInteger();
            Thread watch =
                    new Thread(
                            () -> {
                                while (!Thread.currentThread().isInterrupted()) {
                                    mostHeld.accumulateAndGet(
                                            (int) (a.stats().held() + b.stats().held()), Math::max);
                                    try {
                                        Thread.sleep(5);
                                    } catch (InterruptedException e) {
                                        return;
                                    }
                                }
                            });
            watch.start();
            try {
                interval(producer, topic, 0, upserts(1_000, 12_999, 20, "big"), 110, 2, TEN_MS);
                interval(producer, topic, 1, upserts(13_000, 24_999, 20, "big"), 110, 2, TEN_MS);
                for (int p = 0; p < 2; p++) {
                    interval(producer, topic, p, List.of(), 210, 2, TEN_MS);
                }
                await().atMost(Duration.ofSeconds(120)).until(() -> rows("name = 'big'") == 24_000);
            } finally {
                watch.interrupt();
                watch.join();
            }
            try (Connection c = connect();
                    Statement s = c.createStatement();
                    ResultSet rs =
                            s.executeQuery(
                                    "SELECT count(DISTINCT xmin::text) FROM public.items WHERE"
                                            + " name = 'big'")) {
                rs.next();
                assertThat(rs.getInt(1)).as("one warehouse transaction").isEqualTo(1);
            }
            assertThat(mostHeld.get())
                    .as("the sinks staged it ahead instead of holding it")
                    .isLessThan(12_000);
            assertThat(a.failure()).isEmpty();
            assertThat(b.failure()).isEmpty();
        }
    }

    /**
     * A sink that read every partition alone had written part of a large transaction ahead into its
     * open warehouse transaction when a second sink joined: it rolls that back, and the offsets it
     * commits for the partition it hands over are where the rolled-back changes begin, so that the
     * new owner reads them again. Committed past them, as they once were, the rows were lost.
     */
    @Test
    void aSinkJoiningWhileAnotherWritesALargeTransactionAheadLosesNothing() throws Exception {
        String topic = topic(2);
        warehouse.createDatabase(db);
        String group = "sink-" + UUID.randomUUID();
        Map<String, String> small = settings(topic, group);
        small.put("interval.buffer.bytes", "65536");
        try (KafkaProducer<byte[], byte[]> producer = producer();
                WarehouseSink a = new WarehouseSink(SinkConfig.of(small));
                WarehouseSink b = new WarehouseSink(SinkConfig.of(small))) {
            a.start(Duration.ofSeconds(60));
            await().atMost(Duration.ofSeconds(60)).until(() -> a.assignedPartitions() == 2);
            interval(producer, topic, 0, upserts(1, 1, 10, "warm"), 110, 2, TEN_MS);
            interval(producer, topic, 1, upserts(2, 2, 10, "warm"), 110, 2, TEN_MS);
            await().atMost(Duration.ofSeconds(90)).until(() -> rows("id > 0") == 2);

            interval(producer, topic, 0, upserts(1_000, 12_999, 20, "big"), 110, 2, TEN_MS);
            // a first part on the other partition too: until each partition has been read into
            // the interval, none of it is written ahead
            interval(producer, topic, 1, upserts(13_000, 13_999, 20, "big"), 110, 2, TEN_MS);
            await("the first sink writes the transaction ahead")
                    .atMost(Duration.ofSeconds(60))
                    .until(this::openWriteTransactions, n -> n > 0);
            b.start(Duration.ofSeconds(60));
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> a.assignedPartitions() == 1 && b.assignedPartitions() == 1);
            interval(producer, topic, 1, upserts(14_000, 24_999, 20, "big"), 110, 2, TEN_MS);
            for (int p = 0; p < 2; p++) {
                interval(producer, topic, p, List.of(), 210, 2, TEN_MS);
            }
            await().atMost(Duration.ofSeconds(120))
                    .until(() -> rows("name = 'big'"), n -> n == 24_000);
            assertThat(distinctTransactions("name = 'big'"))
                    .as("one warehouse transaction")
                    .isOne();
            assertThat(a.failure()).isEmpty();
            assertThat(b.failure()).isEmpty();
        }
    }

    /** Warehouse transactions other than this query's that have written and not yet committed. */
    private long openWriteTransactions() throws Exception {
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT count(*) FROM pg_stat_activity WHERE datname ="
                                        + " current_database() AND pid <> pg_backend_pid() AND"
                                        + " backend_xid IS NOT NULL")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private long distinctTransactions(String where) throws Exception {
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT count(DISTINCT xmin::text) FROM public.items WHERE "
                                        + where)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * The net-change app restarted from one-second windows to a window per transaction: the bound
     * goes from commit times (about 1.7e12) to places in the commit order (much smaller). The sink
     * follows it instead of waiting for a bound past the last commit time it applied.
     */
    @Test
    void aSinkFollowsTheNetChangeAppRestartedWithOtherWindows() throws Exception {
        String topic = topic(1);
        warehouse.createDatabase(db);
        try (KafkaProducer<byte[], byte[]> producer = producer();
                WarehouseSink sink =
                        new WarehouseSink(
                                SinkConfig.of(settings(topic, "sink-" + UUID.randomUUID())))) {
            sink.start(Duration.ofSeconds(60));
            NetChange first = NetChanges.upsert("public.items", 1, "before", null, 10);
            interval(producer, topic, 0, List.of(first), 1_700_000_001_000L, 1, TEN_MS);
            await().atMost(Duration.ofSeconds(60)).until(() -> rows("name = 'before'") == 1);
            NetChange second = NetChanges.upsert("public.items", 2, "after", null, 20);
            interval(producer, topic, 0, List.of(second), 300, 1, PER_TRANSACTION);
            await().atMost(Duration.ofSeconds(60)).until(() -> rows("name = 'after'") == 1);
            assertThat(sink.failure()).isEmpty();
        }
    }

    private long rows(String where) throws Exception {
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet exists =
                        s.executeQuery(
                                "SELECT count(*) FROM information_schema.tables WHERE table_name"
                                        + " = 'items'")) {
            exists.next();
            if (exists.getInt(1) == 0) {
                return 0;
            }
        }
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM public.items WHERE " + where)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private int deadLetters(String topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "dl-" + UUID.randomUUID());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            c.subscribe(List.of(topic));
            int n = 0;
            long until = System.currentTimeMillis() + 10_000;
            while (System.currentTimeMillis() < until) {
                n += c.poll(Duration.ofMillis(500)).count();
                if (n > 0) {
                    n += c.poll(Duration.ofMillis(1_000)).count();
                    return n;
                }
            }
            return n;
        }
    }

    private Connection connect() throws Exception {
        return DriverManager.getConnection(
                warehouse.jdbcUrl(db), warehouse.user(), warehouse.password());
    }

    private static KafkaProducer<byte[], byte[]> producer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        return new KafkaProducer<>(p);
    }
}
