package dev.cdclab.sink.warehouse;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.cdclab.change.ColumnSpec;
import org.junit.jupiter.api.Test;

/** Debezium's temporal values as the text both warehouses cast back to the same value. */
class ValueTextTest {
    private static final JsonNodeFactory J = JsonNodeFactory.instance;

    private static String text(String sourceType, String connectType, String semantic, JsonNode v) {
        ColumnSpec c =
                new ColumnSpec("c", sourceType, false, true, null, null, connectType, semantic);
        return ValueText.of(c, ColumnKind.of(c), v);
    }

    private static String date(long epochDay) {
        return text("DATE", "int32", "io.debezium.time.Date", J.numberNode(epochDay));
    }

    private static String micros(String sourceType, long micros) {
        return text(sourceType, "int64", "io.debezium.time.MicroTimestamp", J.numberNode(micros));
    }

    private static String zoned(String iso) {
        return text("TIMESTAMPTZ", "string", "io.debezium.time.ZonedTimestamp", J.textNode(iso));
    }

    @Test
    void datesBeforeChristCarryTheirEraAfterTheDate() {
        assertThat(date(-735160)).isEqualTo("0044-03-15 (BC)");
        assertThat(date(-719528)).as("ISO's year 0").isEqualTo("0001-01-01 (BC)");
        assertThat(date(-2440588)).isEqualTo("4714-11-24 (BC)");
        assertThat(date(-719162)).isEqualTo("0001-01-01");
        assertThat(date(6956716)).isEqualTo("21016-11-04");
        assertThat(date(-2147472691)).isEqualTo("-infinity");
    }

    @Test
    void timestampsBeforeChristCarryTheirEraAfterTheDate() {
        assertThat(micros("TIMESTAMP", -63517778703210988L))
                .isEqualTo("0044-03-15 (BC) 12:34:56.789012");
        assertThat(micros("TIMESTAMP", -62135596800000001L))
                .isEqualTo("0001-12-31 (BC) 23:59:59.999999");
        assertThat(micros("TIMESTAMP", -62135596800000000L)).isEqualTo("0001-01-01T00:00");
        assertThat(
                        text(
                                "TIMESTAMP",
                                "int64",
                                "io.debezium.time.Timestamp",
                                J.numberNode(-62167219199877L)))
                .isEqualTo("0001-01-01 (BC) 00:00:00.123000");
        assertThat(zoned("-0043-03-15T10:34:56.789012Z"))
                .isEqualTo("0044-03-15 (BC) 10:34:56.789012Z");
        assertThat(zoned("0000-01-01T00:00:00.000000Z"))
                .isEqualTo("0001-01-01 (BC) 00:00:00.000000Z");
        assertThat(zoned("+21016-11-04T10:00:00.000000Z"))
                .isEqualTo("21016-11-04T10:00:00.000000Z");
        assertThat(zoned("-infinity")).isEqualTo("-infinity");
        assertThat(zoned("2026-11-21T05:56:45.123456Z")).isEqualTo("2026-11-21T05:56:45.123456Z");
    }
}
