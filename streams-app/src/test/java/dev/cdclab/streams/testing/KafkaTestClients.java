package dev.cdclab.streams.testing;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Kafka clients for the net-change app's tests on a real broker: partition 0 of each topic. */
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
}
