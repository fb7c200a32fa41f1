package dev.cdclab.capture;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.debezium.transforms.ExtractNewRecordState;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/**
 * A NULL written into a column that has a {@code DEFAULT} stays NULL through the connector config's
 * own flattening transform and converter: both replace a null by the schema's default unless told
 * not to (Debezium's {@code replace.null.with.default}, Kafka's KIP-581), so with either left at
 * its default the warehouse got the column's default.
 */
class NullWithDefaultTest {
    private static final Schema ROW =
            SchemaBuilder.struct()
                    .name("cdclab.public.nd.Value")
                    .optional()
                    .field("id", Schema.INT32_SCHEMA)
                    .field("n", SchemaBuilder.int32().optional().defaultValue(7).build())
                    .field("t", SchemaBuilder.string().optional().defaultValue("x").build())
                    .field("b", SchemaBuilder.bool().optional().defaultValue(true).build())
                    .build();

    private static final Schema SOURCE =
            SchemaBuilder.struct()
                    .name("io.debezium.connector.postgresql.Source")
                    .field("ts_ms", Schema.INT64_SCHEMA)
                    .field("schema", Schema.STRING_SCHEMA)
                    .field("table", Schema.STRING_SCHEMA)
                    .field("snapshot", Schema.OPTIONAL_STRING_SCHEMA)
                    .field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
                    .field("txId", Schema.OPTIONAL_INT64_SCHEMA)
                    .field("sequence", Schema.OPTIONAL_STRING_SCHEMA)
                    .build();

    private static final Schema ENVELOPE =
            SchemaBuilder.struct()
                    .name("cdclab.public.nd.Envelope")
                    .field("before", ROW)
                    .field("after", ROW)
                    .field("source", SOURCE)
                    .field("op", Schema.STRING_SCHEMA)
                    .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
                    .build();

    /** The keys under {@code prefix}, without it. */
    private static Map<String, String> under(Map<String, String> config, String prefix) {
        Map<String, String> out = new HashMap<>();
        config.forEach(
                (k, v) -> {
                    if (k.startsWith(prefix)) {
                        out.put(k.substring(prefix.length()), v);
                    }
                });
        return out;
    }

    @Test
    void aNullInAColumnWithADefaultArrivesAsNull() throws Exception {
        Map<String, String> config =
                DebeziumConnectorConfig.of(CaptureConfig.of(Map.of("source.password", "pw")));
        Struct after = new Struct(ROW).put("id", 2).put("n", null).put("t", null).put("b", null);
        Struct source =
                new Struct(SOURCE)
                        .put("ts_ms", 1L)
                        .put("schema", "public")
                        .put("table", "nd")
                        .put("lsn", 100L)
                        .put("txId", 5L)
                        .put("sequence", "[\"90\",\"100\"]");
        Struct envelope =
                new Struct(ENVELOPE)
                        .put("after", after)
                        .put("source", source)
                        .put("op", "u")
                        .put("ts_ms", 2L);
        SourceRecord record =
                new SourceRecord(
                        Map.of(),
                        Map.of(),
                        "cdclab.public.nd",
                        null,
                        null,
                        null,
                        ENVELOPE,
                        envelope);

        Map<String, String> unwrapConfig = under(config, "transforms.unwrap.");
        unwrapConfig
                .keySet()
                .removeIf(k -> k.equals("type") || k.equals("predicate") || k.equals("negate"));
        SourceRecord flat;
        try (ExtractNewRecordState<SourceRecord> unwrap = new ExtractNewRecordState<>()) {
            unwrap.configure(unwrapConfig);
            flat = unwrap.apply(record);
        }

        SchemaOnceJsonConverter converter = new SchemaOnceJsonConverter();
        Map<String, String> converterConfig = under(config, "value.converter.");
        converter.configure(converterConfig, false);
        byte[] bytes = converter.fromConnectData(flat.topic(), flat.valueSchema(), flat.value());
        JsonNode payload = new ObjectMapper().readTree(bytes).get("payload");

        assertThat(payload.get("id").asInt()).isEqualTo(2);
        assertThat(payload.get("n").isNull()).as("n: %s", payload.get("n")).isTrue();
        assertThat(payload.get("t").isNull()).as("t: %s", payload.get("t")).isTrue();
        assertThat(payload.get("b").isNull()).as("b: %s", payload.get("b")).isTrue();
        assertThat(payload.get("__op").asText()).isEqualTo("u");
    }
}
