package dev.cdclab.sink;

import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetChangeCodec;
import dev.cdclab.config.RowLimit;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes unreadable net-change records to the sink's dead-letter topic, with the same headers as
 * the Streams app's dead letters ({@code cdclab.error}, {@code cdclab.source}), acknowledged before
 * it returns.
 */
final class DeadLetterWriter implements AutoCloseable {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final String topic;
    private final KafkaProducer<byte[], byte[]> producer;

    DeadLetterWriter(SinkConfig config) {
        this.topic = config.deadLetterTopic();
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.get(SinkConfig.BOOTSTRAP_SERVERS));
        config.kafkaOverrides()
                .forEach(
                        (k, v) -> {
                            // consumer-only keys would only produce warnings here
                            if (!k.startsWith("fetch.")
                                    && !k.startsWith("max.poll")
                                    && !k.equals("isolation.level")
                                    && !k.equals("auto.offset.reset")) {
                                p.put(k, v);
                            }
                        });
        long messageBytes = RowLimit.messageBytes(config.get(RowLimit.MAX_ROW_BYTES));
        createTopicIfMissing(p, messageBytes);
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, (int) messageBytes);
        p.put(
                ProducerConfig.BUFFER_MEMORY_CONFIG,
                RowLimit.producerBufferBytes(config.get(RowLimit.MAX_ROW_BYTES)));
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        this.producer = new KafkaProducer<>(p);
    }

    private void createTopicIfMissing(Properties p, long messageBytes) {
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(
                            List.of(
                                    new NewTopic(topic, Optional.of(1), Optional.empty())
                                            .configs(
                                                    java.util.Map.of(
                                                            TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
                                                            Long.toString(messageBytes)))))
                    .all()
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException(
                        "cannot create dead-letter topic " + topic + ": " + e.getCause(), e);
            }
        } catch (TimeoutException e) {
            throw new IllegalStateException(
                    "cannot create dead-letter topic " + topic + " within " + TIMEOUT, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted creating " + topic, e);
        }
    }

    /** Writes {@code r} with its reason and where it came from; returns once acknowledged. */
    void write(ConsumerRecord<byte[], byte[]> r, String reason) {
        String from = r.topic() + "-" + r.partition() + "@" + r.offset();
        send(
                new ProducerRecord<>(topic, null, r.timestamp(), r.key(), r.value()),
                reason == null ? "unreadable" : reason,
                from,
                from);
    }

    /** Writes a change the warehouse refused, with the reason; returns once acknowledged. */
    void write(NetChange c, String reason) {
        send(
                new ProducerRecord<>(topic, NetChangeCodec.key(c), NetChangeCodec.encode(c)),
                reason,
                "warehouse",
                "a refused change of " + c.table());
    }

    private void send(
            ProducerRecord<byte[], byte[]> out, String reason, String source, String what) {
        out.headers().add("cdclab.error", bytes(reason));
        out.headers().add("cdclab.source", bytes(source));
        try {
            producer.send(out).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(
                    "cannot write the dead letter for "
                            + what
                            + " to "
                            + topic
                            + ": "
                            + e.getMessage(),
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted writing a dead letter", e);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
