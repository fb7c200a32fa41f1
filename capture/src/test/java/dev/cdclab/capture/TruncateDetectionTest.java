package dev.cdclab.capture;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/** TRUNCATE events pass the flattening transform whole, on clusters that have the predicate. */
class TruncateDetectionTest {
    private static final Schema ENVELOPE =
            SchemaBuilder.struct().field("op", Schema.STRING_SCHEMA).build();

    private static SourceRecord record(Object value) {
        return new SourceRecord(
                Map.of(), Map.of(), "t", null, null, value == null ? null : ENVELOPE, value);
    }

    @Test
    void thePredicateIsTrueForTruncateEventsOnly() {
        TruncateEventPredicate<SourceRecord> p = new TruncateEventPredicate<>();
        assertThat(p.test(record(new Struct(ENVELOPE).put("op", "t")))).isTrue();
        assertThat(p.test(record(new Struct(ENVELOPE).put("op", "u")))).isFalse();
        assertThat(p.test(record(null))).isFalse();
        Schema flat = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build();
        assertThat(
                        p.test(
                                new SourceRecord(
                                        Map.of(),
                                        Map.of(),
                                        "t",
                                        flat,
                                        new Struct(flat).put("id", 1))))
                .isFalse();
    }

    @Test
    void flatEventsLetTruncatesPassTheUnwrapTransform() {
        Map<String, String> m =
                DebeziumConnectorConfig.of(CaptureConfig.of(Map.of("source.password", "pw")));
        assertThat(m)
                .containsEntry("skipped.operations", "none")
                .containsEntry("transforms.unwrap.predicate", "truncate")
                .containsEntry("transforms.unwrap.negate", "true")
                .containsEntry("predicates.truncate.type", TruncateEventPredicate.class.getName());
    }

    @Test
    void aClusterWithoutThePredicateGetsTheConfigWithoutIt() throws Exception {
        HttpServer server =
                HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext(
                "/connector-plugins/",
                x -> {
                    String body =
                            new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                    String reply =
                            body.contains("predicates.truncate.type")
                                    ? "{\"configs\":[{\"value\":{\"name\":"
                                            + "\"predicates.truncate.type\",\"errors\":"
                                            + "[\"Class not found\"]}}]}"
                                    : "{\"configs\":[]}";
                    byte[] b = reply.getBytes(StandardCharsets.UTF_8);
                    x.sendResponseHeaders(200, b.length);
                    try (OutputStream os = x.getResponseBody()) {
                        os.write(b);
                    }
                });
        server.start();
        try {
            ConnectRestClient rest =
                    new ConnectRestClient("http://127.0.0.1:" + server.getAddress().getPort());
            Map<String, String> m =
                    DebeziumConnectorConfig.of(CaptureConfig.of(Map.of("source.password", "pw")));
            DebeziumConnectorConfig.Fitted fitted = DebeziumConnectorConfig.fitTo(rest, "c", m);
            assertThat(fitted.problems()).isEmpty();
            assertThat(fitted.config())
                    .doesNotContainKeys(
                            "predicates",
                            "predicates.truncate.type",
                            "transforms.unwrap.predicate",
                            "transforms.unwrap.negate")
                    .containsEntry(
                            "transforms.unwrap.type",
                            "io.debezium.transforms.ExtractNewRecordState");
        } finally {
            server.stop(0);
        }
    }
}
