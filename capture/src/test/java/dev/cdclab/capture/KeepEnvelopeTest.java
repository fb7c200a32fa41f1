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

/**
 * Truncates and changes of tables without a key pass the flattening transform whole, and events
 * without a key get one naming their table, on clusters that have cdc-lab's plugins.
 */
class KeepEnvelopeTest {
    private static final Schema SOURCE =
            SchemaBuilder.struct().field("table", Schema.STRING_SCHEMA).build();
    private static final Schema ENVELOPE =
            SchemaBuilder.struct()
                    .field("op", Schema.STRING_SCHEMA)
                    .field("source", SOURCE)
                    .build();
    private static final Schema KEY =
            SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build();

    private static Struct envelope(String op) {
        return new Struct(ENVELOPE)
                .put("op", op)
                .put("source", new Struct(SOURCE).put("table", "t"));
    }

    private static SourceRecord record(Object value) {
        return keyed(null, value);
    }

    private static SourceRecord keyed(Struct key, Object value) {
        return new SourceRecord(
                Map.of(),
                Map.of(),
                "cdclab.public.t",
                null,
                key == null ? null : KEY,
                key,
                value == null ? null : ENVELOPE,
                value);
    }

    @Test
    void thePredicateKeepsTruncatesAndKeylessChangesWhole() {
        KeepEnvelopePredicate<SourceRecord> p = new KeepEnvelopePredicate<>();
        Struct key = new Struct(KEY).put("id", 1);
        assertThat(p.test(record(envelope("t")))).isTrue();
        assertThat(p.test(record(envelope("u")))).as("no key: the old image is needed").isTrue();
        assertThat(p.test(keyed(key, envelope("u")))).isFalse();
        assertThat(p.test(keyed(key, envelope("t")))).isTrue();
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

    /**
     * A change without a key carries which of the changes at its log position it is, as Debezium
     * counts them in its offsets: sent again after a restart, it carries the same count.
     */
    @Test
    void aChangeWithoutAKeyCarriesItsPlaceAmongTheChangesAtItsPosition() {
        KeylessEventKey<SourceRecord> t = new KeylessEventKey<>();
        SourceRecord third =
                new SourceRecord(
                        Map.of("server", "cdclab"),
                        Map.of("lsn", 5000L, "lsn_events_processed", 3L),
                        "cdclab.public.t",
                        null,
                        null,
                        null,
                        ENVELOPE,
                        envelope("c"));
        SourceRecord out = t.apply(third);
        assertThat(out.headers().lastWithName(dev.cdclab.change.ChangeKeyFields.LSN_EVENT_HEADER))
                .isNotNull()
                .satisfies(h -> assertThat(h.value()).isEqualTo(3L));
        SourceRecord keyedOne = keyed(new Struct(KEY).put("id", 1), envelope("c"));
        assertThat(t.apply(keyedOne).headers().isEmpty()).isTrue();
    }

    @Test
    void eventsWithoutAKeyGetOneNamingTheirTable() {
        KeylessEventKey<SourceRecord> t = new KeylessEventKey<>();
        SourceRecord in = record(envelope("c"));
        SourceRecord out = t.apply(in);
        assertThat(out.key()).isInstanceOf(Struct.class);
        assertThat(((Struct) out.key()).getString("__cdclab_table")).isEqualTo("cdclab.public.t");
        assertThat(out.value()).isSameAs(in.value());
        SourceRecord keyed = keyed(new Struct(KEY).put("id", 1), envelope("c"));
        assertThat(t.apply(keyed)).isSameAs(keyed);
    }

    @Test
    void flatEventsLetTruncatesAndKeylessChangesPassTheUnwrapTransform() {
        Map<String, String> m =
                DebeziumConnectorConfig.of(CaptureConfig.of(Map.of("source.password", "pw")));
        assertThat(m)
                .containsEntry("skipped.operations", "none")
                .containsEntry("transforms", "emptyscans,unwrap,keyless,route")
                .containsEntry("transforms.unwrap.predicate", "envelope")
                .containsEntry("transforms.unwrap.negate", "true")
                .containsEntry("predicates.envelope.type", KeepEnvelopePredicate.class.getName())
                .containsEntry("transforms.keyless.type", KeylessEventKey.class.getName());
    }

    @Test
    void aClusterWithoutThePredicateGetsTheConfigWithoutIt() throws Exception {
        HttpServer server = clusterLacking("predicates.envelope.type", "predicates.envelope.type");
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
                            "predicates.envelope.type",
                            "transforms.keyless.type",
                            "transforms.emptyscans.type",
                            "transforms.emptyscans.topic",
                            "transforms.unwrap.predicate",
                            "transforms.unwrap.negate")
                    .containsEntry("transforms", "unwrap,route")
                    .containsEntry(
                            "transforms.unwrap.type",
                            "io.debezium.transforms.ExtractNewRecordState");
        } finally {
            server.stop(0);
        }
    }

    @Test
    void aClusterWithoutTheConverterGetsJsonConverterWhichWritesTheSameBytes() throws Exception {
        HttpServer server =
                clusterLacking(SchemaOnceJsonConverter.class.getName(), "value.converter");
        try {
            ConnectRestClient rest =
                    new ConnectRestClient("http://127.0.0.1:" + server.getAddress().getPort());
            Map<String, String> m =
                    DebeziumConnectorConfig.of(CaptureConfig.of(Map.of("source.password", "pw")));
            assertThat(m).containsEntry("value.converter", SchemaOnceJsonConverter.class.getName());
            DebeziumConnectorConfig.Fitted fitted = DebeziumConnectorConfig.fitTo(rest, "c", m);
            assertThat(fitted.problems()).isEmpty();
            assertThat(fitted.config())
                    .containsEntry("value.converter", "org.apache.kafka.connect.json.JsonConverter")
                    .containsEntry("value.converter.schemas.enable", "true")
                    .containsEntry("transforms.keyless.type", KeylessEventKey.class.getName());
        } finally {
            server.stop(0);
        }
    }

    /**
     * A stub of Kafka Connect's validation endpoint: a config that mentions {@code missingClass}
     * gets a "Class not found" error on {@code key}, any other config none.
     */
    private static HttpServer clusterLacking(String missingClass, String key) throws Exception {
        HttpServer server =
                HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext(
                "/connector-plugins/",
                x -> {
                    String body =
                            new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                    String reply =
                            body.contains(missingClass)
                                    ? "{\"configs\":[{\"value\":{\"name\":\""
                                            + key
                                            + "\",\"errors\":[\"Class not found\"]}}]}"
                                    : "{\"configs\":[]}";
                    byte[] b = reply.getBytes(StandardCharsets.UTF_8);
                    x.sendResponseHeaders(200, b.length);
                    try (OutputStream os = x.getResponseBody()) {
                        os.write(b);
                    }
                });
        server.start();
        return server;
    }
}
