package dev.cdclab.streams.testing;

import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetChangeCodec;
import dev.cdclab.change.NetChangeRecord;
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
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Kafka clients and settings for the net-change app's tests on a real broker: partition 0 of each
 * topic.
 */
public final class KafkaTestClients {
    private KafkaTestClients() {}

    /** A producer whose sends wait for every in-sync replica. */
    public static KafkaProducer<byte[], byte[]> producer(String bootstrapServers) {
        return new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrapServers,
                        ProducerConfig.ACKS_CONFIG,
                        "all"),
                new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    /** Sends one record to partition 0 of {@code topic} and waits for it to be written. */
    public static void send(
            KafkaProducer<byte[], byte[]> producer, String topic, byte[] key, byte[] value)
            throws Exception {
        producer.send(new ProducerRecord<>(topic, 0, key, value)).get(30, TimeUnit.SECONDS);
    }

    /** A consumer of partition 0 of {@code topic} from its start, committed records only. */
    public static KafkaConsumer<byte[], byte[]> consumerFromStart(
            String bootstrapServers, String topic) {
        KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(
                        Map.of(
                                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                                bootstrapServers,
                                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                                "earliest",
                                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                                "read_committed"),
                        new ByteArrayDeserializer(),
                        new ByteArrayDeserializer());
        TopicPartition p = new TopicPartition(topic, 0);
        c.assign(List.of(p));
        c.seekToBeginning(List.of(p));
        return c;
    }

    /** The offset {@code group} committed on partition 0 of {@code topic}; -1 when none. */
    public static long committed(Admin admin, String group, String topic) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets =
                admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata()
                        .get(10, TimeUnit.SECONDS);
        OffsetAndMetadata o = offsets.get(new TopicPartition(topic, 0));
        return o == null ? -1 : o.offset();
    }

    /**
     * The net-change app's settings for one test: its application id is {@code run}, its output
     * topic {@code <run>.net-changes}, a marker after every close, state in {@code stateDir}.
     */
    public static Map<String, String> appSettings(
            String bootstrapServers, String run, Path stateDir) {
        Map<String, String> settings = new HashMap<>();
        settings.put("bootstrap.servers", bootstrapServers);
        settings.put("application.id", run);
        settings.put("net.changes.topic", run + ".net-changes");
        settings.put("marker.interval", "0ms");
        settings.put("state.dir", stateDir.toString());
        return settings;
    }

    public static Admin admin(String bootstrapServers) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
    }

    /** Creates the topics, one partition and one replica each. */
    public static void createTopics(Admin admin, String... topics) throws Exception {
        List<NewTopic> created = new ArrayList<>();
        for (String t : topics) {
            created.add(new NewTopic(t, 1, (short) 1));
        }
        admin.createTopics(created).all().get(30, TimeUnit.SECONDS);
    }

    /** The net-change records one poll returns. */
    public static List<NetChangeRecord> records(KafkaConsumer<byte[], byte[]> consumer) {
        List<NetChangeRecord> records = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
            records.add(NetChangeCodec.decode(r.value()));
        }
        return records;
    }

    /** The net changes one poll returns, without markers and table events. */
    public static List<NetChange> netChanges(KafkaConsumer<byte[], byte[]> consumer) {
        List<NetChange> changes = new ArrayList<>();
        for (NetChangeRecord r : records(consumer)) {
            if (r instanceof NetChange c) {
                changes.add(c);
            }
        }
        return changes;
    }
}
