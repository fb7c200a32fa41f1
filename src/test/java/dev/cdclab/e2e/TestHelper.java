package dev.cdclab.e2e;

import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetChangeCodec;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.streams.NetChangeConfig;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Fixtures for end-to-end tests (after Debezium's TestHelper): SQL in one transaction, topics. */
final class TestHelper {
    private TestHelper() {}

    /** Runs statements in one source transaction. */
    /** What a command line printed to standard output, and its exit code. */
    record CliRun(int code, String out) {}

    /** Runs {@code cdc-lab ARGS} in this JVM, capturing what it prints. */
    static CliRun cdcLab(String... args) {
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        java.io.PrintStream original = System.out;
        int code;
        try {
            System.setOut(new java.io.PrintStream(captured, true, StandardCharsets.UTF_8));
            code = dev.cdclab.cli.CdcLab.execute(args);
        } finally {
            System.setOut(original);
        }
        return new CliRun(code, captured.toString(StandardCharsets.UTF_8));
    }

    static void tx(DataSource source, String... statements) throws SQLException {
        try (Connection c = source.getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                for (String sql : statements) {
                    s.execute(sql);
                }
            }
            c.commit();
        }
    }

    /** Runs a SQL file from the test resources, statement by statement, in one transaction. */
    static void script(DataSource source, String resource) throws Exception {
        String text;
        try (InputStream in = TestHelper.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no resource " + resource);
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        StringBuilder sql = new StringBuilder();
        for (String line : text.split("\n")) {
            if (!line.strip().startsWith("--")) {
                sql.append(line).append('\n');
            }
        }
        tx(source, sql.toString().split(";\\s*\n"));
    }

    /** Every net change written so far (markers left out), read from the net-change topic. */
    static List<NetChange> netChanges(Pipeline p) {
        Properties props = new Properties();
        props.put("bootstrap.servers", p.infrastructure().kafkaBootstrapServers());
        props.put("group.id", "test-reader-" + System.nanoTime());
        props.put("auto.offset.reset", "earliest");
        props.put("enable.auto.commit", "false");
        List<NetChange> out = new ArrayList<>();
        try (var consumer =
                new KafkaConsumer<byte[], byte[]>(
                        props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            String topic = p.netChangeConfig().get(NetChangeConfig.NET_CHANGES_TOPIC);
            var parts =
                    consumer.partitionsFor(topic).stream()
                            .map(i -> new TopicPartition(topic, i.partition()))
                            .toList();
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            var end = consumer.endOffsets(parts);
            while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    if (NetChangeCodec.decode(r.value()) instanceof NetChange c) {
                        out.add(c);
                    }
                }
            }
        }
        return out;
    }
}
