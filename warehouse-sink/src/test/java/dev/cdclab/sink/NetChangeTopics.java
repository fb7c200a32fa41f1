package dev.cdclab.sink;

import dev.cdclab.change.IntervalMarker;
import dev.cdclab.change.NetChangeCodec;
import dev.cdclab.embedded.KafkaBroker;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A Kafka broker for the test class, and net-change topics of one partition on it: records in,
 * committed offsets out. Register it as a static {@code @RegisterExtension} field.
 */
final class NetChangeTopics implements BeforeAllCallback, AfterAllCallback {
    private KafkaBroker kafka;

    @Override
    public void beforeAll(ExtensionContext context) {
        kafka = KafkaBroker.builder().start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (kafka != null) {
            kafka.close();
        }
    }

    String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    /** Creates the topic and writes the records, then a marker closing their interval. */
    void produce(String topic, byte[]... values) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (byte[] v : values) {
                producer.send(new ProducerRecord<>(topic, 0, null, v)).get();
            }
            byte[] marker = NetChangeCodec.encode(new IntervalMarker(0, 1, Long.MAX_VALUE / 2));
            producer.send(new ProducerRecord<>(topic, 0, null, marker)).get();
        }
    }

    /** A consumer in {@code group} that commits nothing by itself. */
    KafkaConsumer<byte[], byte[]> consumer(String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        return new KafkaConsumer<>(p);
    }

    /** The group's committed offset of partition 0, or -1 when it has none. */
    long committed(String group, String topic) {
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> c = consumer(group)) {
            OffsetAndMetadata o = c.committed(java.util.Set.of(tp)).get(tp);
            return o == null ? -1 : o.offset();
        }
    }
}
