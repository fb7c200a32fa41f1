package dev.cdclab.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three embedded Kafka nodes are a replicated cluster: topics get three replicas by default, a
 * write needs two in sync, and with the leader stopped the others elect a new one and keep every
 * acknowledged record.
 */
@Timeout(180)
class KafkaClusterIT {

    @Test
    void aTopicSurvivesItsLeaderStoppingAndComesBackWhole() throws Exception {
        try (KafkaBroker kafka = KafkaBroker.builder().nodes(3).start()) {
            assertThat(kafka.bootstrapServers().split(",")).hasSize(3);
            String topic = "replicated-" + System.nanoTime();
            Properties admin = new Properties();
            admin.put("bootstrap.servers", kafka.bootstrapServers());
            try (Admin a = Admin.create(admin)) {
                a.createTopics(List.of(new NewTopic(topic, Optional.of(1), Optional.empty())))
                        .all()
                        .get(30, TimeUnit.SECONDS);
                // created on the controller; every broker learns of it a moment later
                TopicDescription d =
                        await().atMost(Duration.ofSeconds(30))
                                .ignoreExceptions()
                                .until(
                                        () ->
                                                a.describeTopics(List.of(topic))
                                                        .allTopicNames()
                                                        .get()
                                                        .get(topic),
                                        t -> t != null);
                assertThat(d.partitions().get(0).replicas()).hasSize(3);
                ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, topic);
                assertThat(
                                a.describeConfigs(List.of(res))
                                        .all()
                                        .get()
                                        .get(res)
                                        .get("min.insync.replicas")
                                        .value())
                        .isEqualTo("2");
            }
            send(kafka, topic, "before");
            int leader = kafka.leaderOf(topic, 0);
            kafka.stop(leader);
            send(kafka, topic, "while-stopped");
            assertThat(kafka.leaderOf(topic, 0)).isNotEqualTo(leader);
            kafka.resume();
            send(kafka, topic, "after");
            assertThat(readAll(kafka, topic)).containsExactly("before", "while-stopped", "after");
        }
    }

    private static void send(KafkaBroker kafka, String topic, String value) throws Exception {
        Map<String, Object> p =
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        kafka.bootstrapServers(),
                        ProducerConfig.ACKS_CONFIG,
                        "all");
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, value)).get(60, TimeUnit.SECONDS);
        }
    }

    private static List<String> readAll(KafkaBroker kafka, String topic) {
        Map<String, Object> p = Map.of("bootstrap.servers", kafka.bootstrapServers());
        try (KafkaConsumer<String, String> c =
                new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            List<String> out = new java.util.ArrayList<>();
            long end = c.endOffsets(List.of(tp)).get(tp);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (c.position(tp) < end && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(r -> out.add(r.value()));
            }
            return out;
        }
    }
}
