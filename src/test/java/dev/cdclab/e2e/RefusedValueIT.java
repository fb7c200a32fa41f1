package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdclab.junit.CdcLabExtension;
import dev.cdclab.sink.SinkConfig;
import dev.cdclab.sink.SinkStats;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A row the warehouse refuses (here: a CHECK constraint of the warehouse table's own, which the
 * source does not have) is dead-lettered with its table, key and reason and counted; every other
 * row, before and after it, arrives, and the pipeline keeps running.
 */
@Timeout(300)
class RefusedValueIT {
    @RegisterExtension
    static CdcLabExtension lab = CdcLabExtension.embedded().interval(Duration.ofMillis(200));

    @Test
    void aRefusedRowIsDeadLetteredAndTheRestArrives() throws Exception {
        try (Connection w = lab.warehouse().getConnection();
                Statement s = w.createStatement()) {
            // the warehouse table exists before the pipeline writes it, with a rule of its own
            s.execute("CREATE SCHEMA IF NOT EXISTS public");
            s.execute(
                    "CREATE TABLE public.refused_t (id INTEGER, v INTEGER CHECK (v < 1000),"
                            + " _cdc_lsn VARCHAR, _cdc_commit_ms BIGINT)");
        }
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE refused_t (id int PRIMARY KEY, v int)");
            s.execute("INSERT INTO refused_t SELECT g, g FROM generate_series(1, 20) g");
        }
        lab.awaitCaughtUp(Duration.ofSeconds(60));
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement()) {
            // one transaction: the good rows share the interval with the refused one
            c.setAutoCommit(false);
            s.execute("INSERT INTO refused_t VALUES (21, 21), (22, 5000), (23, 23)");
            s.execute("UPDATE refused_t SET v = 100 WHERE id = 1");
            c.commit();
            s.execute("INSERT INTO refused_t VALUES (24, 24)");
            c.commit();
        }
        SinkStats stats = lab.pipeline().sink().stats();
        await().atMost(Duration.ofSeconds(90))
                .untilAsserted(() -> assertThat(warehouseIds()).contains(1, 21, 23, 24));
        assertThat(warehouseIds()).doesNotContain(22).hasSize(23);
        assertThat(stats.refused()).isEqualTo(1);
        try (Connection c = lab.warehouse().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT v FROM public.refused_t WHERE id = 1")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isEqualTo(100);
        }
        List<String> reasons = deadLetterReasons();
        assertThat(reasons)
                .singleElement()
                .asString()
                .contains("public.refused_t")
                .contains("\"id\":22");
        assertThat(lab.pipeline().sink().failure()).isEmpty();
    }

    private static List<String> deadLetterReasons() {
        SinkConfig sc = lab.pipeline().sinkConfig();
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, sc.get(SinkConfig.BOOTSTRAP_SERVERS));
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        List<String> reasons = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            consumer.assign(List.of(new TopicPartition(sc.deadLetterTopic(), 0)));
            consumer.seekToBeginning(consumer.assignment());
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (reasons.isEmpty() && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    Header h = r.headers().lastHeader("cdclab.error");
                    reasons.add(new String(h.value(), StandardCharsets.UTF_8));
                }
            }
            // anything more is there by now
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofSeconds(2))) {
                reasons.add(
                        new String(
                                r.headers().lastHeader("cdclab.error").value(),
                                StandardCharsets.UTF_8));
            }
        }
        return reasons;
    }

    private static List<Integer> warehouseIds() throws Exception {
        List<Integer> ids = new ArrayList<>();
        try (Connection c = lab.warehouse().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id FROM public.refused_t ORDER BY id")) {
            while (rs.next()) {
                ids.add(rs.getInt(1));
            }
        }
        return ids;
    }
}
