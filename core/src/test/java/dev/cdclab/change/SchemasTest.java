package dev.cdclab.change;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Column lists in JSON: array elements round-trip, and lists written without them still read. */
class SchemasTest {

    @Test
    void anArraysElementRoundTrips() {
        ColumnSpec days =
                new ColumnSpec(
                        "days",
                        "_DATE",
                        false,
                        true,
                        13,
                        0,
                        "array",
                        null,
                        null,
                        "int32",
                        "io.debezium.time.Date");
        List<ColumnSpec> back = Schemas.fromJson(Schemas.toJson(List.of(days)));
        assertThat(back).containsExactly(days);
        assertThat(back.get(0).element())
                .isEqualTo(
                        new ColumnSpec(
                                "days",
                                "DATE",
                                false,
                                true,
                                13,
                                0,
                                "int32",
                                "io.debezium.time.Date"));
    }

    @Test
    void aColumnListWithoutElementsReadsAsBefore() {
        String json =
                "[{\"name\":\"id\",\"type\":\"INT4\",\"key\":true,\"connect_type\":\"int32\"},"
                        + "{\"name\":\"tags\",\"type\":\"ARRAY\",\"optional\":true,"
                        + "\"connect_type\":\"array\"}]";
        List<ColumnSpec> cols = Schemas.fromJson(json.getBytes(StandardCharsets.UTF_8));
        assertThat(cols.get(1).elementConnectType()).isNull();
        assertThat(cols.get(1).element()).isNull();
        assertThat(new String(Schemas.toJson(cols), StandardCharsets.UTF_8)).isEqualTo(json);
    }

    @Test
    void anElementWithoutASourceTypeIsNamedByItsConnectType() {
        ColumnSpec ints =
                new ColumnSpec(
                        "ints", "ARRAY", false, true, null, null, "array", null, null, "int32",
                        null);
        assertThat(ints.element().sourceType()).isEqualTo("INT32");
        assertThat(ints.element().semanticType()).isNull();
    }
}
