package dev.cdclab.e2e;

import dev.cdclab.pipeline.EmbeddedPipeline;
import dev.cdclab.pipeline.verify.VerificationResult;
import dev.cdclab.pipeline.verify.WarehouseVerifier;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/** Fixtures for end-to-end tests (after Debezium's TestHelper): unique names, SQL helpers. */
final class TestPipelines {
    private static final AtomicInteger COUNTER = new AtomicInteger();

    private TestPipelines() {}

    /** Starts an embedded pipeline with names unique to this test. */
    static EmbeddedPipeline start(String test, Consumer<EmbeddedPipeline.Builder> customize) {
        String id =
                (test
                                + COUNTER.incrementAndGet()
                                + Long.toString(System.nanoTime() % 1_000_000, 36))
                        .toLowerCase()
                        .replaceAll("[^a-z0-9]", "");
        Path work;
        try {
            work = Files.createDirectories(Path.of("target", "e2e-runs", id));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        EmbeddedPipeline.Builder b =
                EmbeddedPipeline.builder().workDir(work).runId(id).interval(Duration.ofMillis(500));
        customize.accept(b);
        return b.start();
    }

    /** Runs statements in one source transaction. */
    static void tx(EmbeddedPipeline p, String... statements) throws SQLException {
        try (Connection c = p.sourceConnection()) {
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
    static void script(EmbeddedPipeline p, String resource) throws Exception {
        String text;
        try (InputStream in = TestPipelines.class.getResourceAsStream(resource)) {
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
        tx(p, sql.toString().split(";\\s*\n"));
    }

    /** Every net change written so far (markers left out), read from the net-change topic. */
    static java.util.List<dev.cdclab.change.NetChange> netChanges(EmbeddedPipeline p) {
        java.util.Properties props = new java.util.Properties();
        props.put("bootstrap.servers", p.kafka().bootstrapServers());
        props.put("group.id", "test-reader-" + System.nanoTime());
        props.put("auto.offset.reset", "earliest");
        props.put("enable.auto.commit", "false");
        java.util.List<dev.cdclab.change.NetChange> out = new java.util.ArrayList<>();
        try (var consumer =
                new org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]>(
                        props,
                        new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
                        new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            String topic =
                    p.netChangeConfig().get(dev.cdclab.streams.NetChangeConfig.NET_CHANGES_TOPIC);
            var parts =
                    consumer.partitionsFor(topic).stream()
                            .map(
                                    i ->
                                            new org.apache.kafka.common.TopicPartition(
                                                    topic, i.partition()))
                            .toList();
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            var end = consumer.endOffsets(parts);
            while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    var rec = dev.cdclab.change.NetChangeCodec.decode(r.value());
                    if (rec instanceof dev.cdclab.change.NetChange c) {
                        out.add(c);
                    }
                }
            }
        }
        return out;
    }

    /** Waits for the warehouse to have every committed change, then compares it with the source. */
    static VerificationResult caughtUpAndVerified(EmbeddedPipeline p) throws SQLException {
        p.awaitCaughtUp(Duration.ofSeconds(90));
        return new WarehouseVerifier(p::sourceConnection, p::warehouseConnection)
                .verify(List.of("public"));
    }
}
