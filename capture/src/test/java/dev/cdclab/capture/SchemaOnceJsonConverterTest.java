package dev.cdclab.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SchemaOnceJsonConverterTest {
    private static final Schema ROW =
            SchemaBuilder.struct()
                    .name("cdclab.public.orders.Value")
                    .field("id", Schema.INT64_SCHEMA)
                    .field("name", Schema.OPTIONAL_STRING_SCHEMA)
                    .field("qty", SchemaBuilder.int32().defaultValue(1).build())
                    .field("price", Decimal.builder(2).optional().build())
                    .field("paid", Schema.OPTIONAL_BOOLEAN_SCHEMA)
                    .field("ratio", Schema.OPTIONAL_FLOAT64_SCHEMA)
                    .field("day", Date.builder().optional().build())
                    .field("at", Timestamp.builder().optional().build())
                    .field("time", Time.builder().optional().build())
                    .field("blob", Schema.OPTIONAL_BYTES_SCHEMA)
                    .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
                    .field(
                            "attrs",
                            SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA)
                                    .optional()
                                    .build())
                    .field("__op", Schema.OPTIONAL_STRING_SCHEMA)
                    .field("__source_ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
                    .field("__lsn", Schema.OPTIONAL_INT64_SCHEMA)
                    .optional()
                    .build();

    private static Struct row(long id) {
        return new Struct(ROW)
                .put("id", id)
                .put("name", id % 3 == 0 ? null : "name \"" + id + "\" é ✓")
                .put("qty", (int) id)
                .put("price", id % 4 == 0 ? null : new BigDecimal(id).movePointLeft(2))
                .put("paid", id % 2 == 0)
                .put("ratio", id / 7.0)
                .put("day", new java.util.Date(86_400_000L * id))
                .put("at", new java.util.Date(1_700_000_000_123L + id))
                .put("time", new java.util.Date(3_600_000L + id))
                .put("blob", new byte[] {(byte) id, 0, (byte) 255})
                .put("tags", List.of("a", "b" + id))
                .put("attrs", Map.of("k", (int) id))
                .put("__op", "u")
                .put("__source_ts_ms", 1_700_000_000_000L + id)
                .put("__lsn", 123_456L * id);
    }

    private static JsonConverter jsonConverter(Map<String, Object> config) {
        JsonConverter c = new JsonConverter();
        c.configure(config, false);
        return c;
    }

    private static SchemaOnceJsonConverter ours(Map<String, Object> config) {
        SchemaOnceJsonConverter c = new SchemaOnceJsonConverter();
        c.configure(config, false);
        return c;
    }

    @ParameterizedTest
    @ValueSource(strings = {"BASE64", "NUMERIC"})
    void writesTheSameBytesAsJsonConverter(String decimalFormat) {
        Map<String, Object> config = new HashMap<>();
        config.put("schemas.enable", "true");
        config.put("decimal.format", decimalFormat);
        JsonConverter reference = jsonConverter(config);
        SchemaOnceJsonConverter converter = ours(config);

        for (long id = 0; id < 40; id++) {
            Struct value = row(id);
            assertThat(text(converter.fromConnectData("t", ROW, value)))
                    .isEqualTo(text(reference.fromConnectData("t", ROW, value)));
        }
        // a null value of an optional schema, a schemaless map, a bare string, no record at all
        assertThat(text(converter.fromConnectData("t", ROW, null)))
                .isEqualTo(text(reference.fromConnectData("t", ROW, null)));
        Map<String, Object> schemaless = Map.of("a", 1, "b", List.of("x"));
        assertThat(text(converter.fromConnectData("t", null, schemaless)))
                .isEqualTo(text(reference.fromConnectData("t", null, schemaless)));
        assertThat(text(converter.fromConnectData("t", Schema.STRING_SCHEMA, "x")))
                .isEqualTo(text(reference.fromConnectData("t", Schema.STRING_SCHEMA, "x")));
        assertThat(converter.fromConnectData("t", null, null)).isNull();
    }

    /**
     * A row whose payload is over {@code max.row.bytes} is written as a small record in its place:
     * where it was (the added fields), its size, and none of its values.
     */
    @Test
    void aRowOverTheLimitIsWrittenAsItsPlaceAndSize() throws Exception {
        SchemaOnceJsonConverter converter = ours(Map.of("max.row.bytes", "1KiB"));
        Struct small = row(1);
        byte[] normal = converter.fromConnectData("t", ROW, small);
        assertThat(text(normal)).contains("\"name\":");

        Struct large = row(2).put("name", "x".repeat(5000));
        byte[] out = converter.fromConnectData("t", ROW, large);
        assertThat(out.length).isLessThan(1024);
        com.fasterxml.jackson.databind.JsonNode payload =
                new com.fasterxml.jackson.databind.ObjectMapper().readTree(out).get("payload");
        assertThat(payload.has("name")).isFalse();
        assertThat(payload.get("__op").asText()).isEqualTo("u");
        assertThat(payload.get("__lsn").asLong()).isEqualTo(123_456L * 2);
        assertThat(payload.get(dev.cdclab.config.RowLimit.TOO_LARGE_FIELD).asLong())
                .isGreaterThan(5000);
        // Connect reads it back as any record
        assertThat(converter.toConnectData("t", out).value()).isInstanceOf(Struct.class);
    }

    @Test
    void anEqualSchemaInANewObjectGetsTheSameBytes() {
        SchemaOnceJsonConverter converter = ours(Map.of());
        JsonConverter reference = jsonConverter(Map.of());
        SchemaBuilder b = SchemaBuilder.struct().name(ROW.name()).optional();
        ROW.fields().forEach(f -> b.field(f.name(), f.schema()));
        Schema equal = b.build();
        assertThat(equal).isEqualTo(ROW).isNotSameAs(ROW);
        Struct value = row(5);
        Struct sameValue = new Struct(equal);
        ROW.fields().forEach(f -> sameValue.put(f.name(), value.get(f)));

        byte[] first = converter.fromConnectData("t", ROW, value);
        byte[] second = converter.fromConnectData("t", equal, sameValue);
        converter.fromConnectData("t", ROW, row(6));

        assertThat(text(second)).isEqualTo(text(first));
        assertThat(text(first)).isEqualTo(text(reference.fromConnectData("t", ROW, value)));
        assertThat(converter.keptSchemaObjects()).isEqualTo(2);
    }

    @Test
    void readsWhatItWrote() {
        SchemaOnceJsonConverter converter = ours(Map.of());
        Struct value = row(7);
        SchemaAndValue back =
                converter.toConnectData("t", converter.fromConnectData("t", ROW, value));
        assertThat(back.schema().fields())
                .extracting(f -> f.name())
                .containsExactlyElementsOf(ROW.fields().stream().map(f -> f.name()).toList());
        assertThat(((Struct) back.value()).getInt64("id")).isEqualTo(7L);
        assertThat(((Struct) back.value()).getString("name")).isEqualTo(value.getString("name"));
    }

    @Test
    void aRequiredFieldWithoutAValueFailsAsJsonConverterFails() {
        SchemaOnceJsonConverter converter = ours(Map.of());
        Struct missing =
                new Struct(SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).build());
        assertThatThrownBy(() -> converter.fromConnectData("t", missing.schema(), missing))
                .isInstanceOf(DataException.class);
    }

    @Test
    void refusesToWriteWithoutSchemas() {
        SchemaOnceJsonConverter converter = new SchemaOnceJsonConverter();
        assertThatThrownBy(() -> converter.configure(Map.of("schemas.enable", "false"), false))
                .isInstanceOf(DataException.class)
                .hasMessageContaining("schemas.enable=false");
    }

    private static String text(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }
}
