package dev.cdclab.sink.warehouse;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.cdclab.change.ColumnSpec;
import org.junit.jupiter.api.Test;

/**
 * Debezium's values (temporal, arrays, bit strings, intervals, points, types it does not know) as
 * the text both warehouses cast back to the same value.
 */
class ValueTextTest {
    private static final JsonNodeFactory J = JsonNodeFactory.instance;
    private static final ObjectMapper M = new ObjectMapper();

    private static String array(
            String sourceType, String elementConnect, String semantic, String json)
            throws Exception {
        return array(sourceType, null, null, elementConnect, semantic, json);
    }

    private static String array(
            String sourceType,
            Integer length,
            Integer scale,
            String elementConnect,
            String semantic,
            String json)
            throws Exception {
        ColumnSpec c =
                new ColumnSpec(
                        "c",
                        sourceType,
                        false,
                        true,
                        length,
                        scale,
                        "array",
                        null,
                        null,
                        elementConnect,
                        semantic);
        return ValueText.of(c, ColumnKind.of(c), M.readTree(json));
    }

    private static String bits(String sourceType, Integer length, String base64) {
        ColumnSpec c =
                new ColumnSpec(
                        "c", sourceType, false, true, length, 0, "bytes", "io.debezium.data.Bits");
        return ValueText.of(c, ColumnKind.of(c), J.textNode(base64));
    }

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

    @Test
    void arraysAreJsonArraysOfTheirElementsTexts() throws Exception {
        // epoch days, and Debezium's array spellings of the date infinities
        assertThat(
                        array(
                                "_DATE",
                                "int32",
                                "io.debezium.time.Date",
                                "[17109, 17110, -622191234, -625821272, null]"))
                .isEqualTo("[\"2016-11-04\",\"2016-11-05\",\"infinity\",\"-infinity\",null]");
        assertThat(
                        array(
                                "_TIMESTAMP",
                                "int64",
                                "io.debezium.time.MicroTimestamp",
                                "[1478253600500000, 9223372036854775807]"))
                .isEqualTo("[\"2016-11-04T10:00:00.500\",\"infinity\"]");
        assertThat(
                        array(
                                "_TIMESTAMPTZ",
                                "string",
                                "io.debezium.time.ZonedTimestamp",
                                "[\"2016-11-04T08:00:00.500000Z\", \"infinity\","
                                        + " \"+292269055-12-02T23:00:00.000000Z\"]"))
                .isEqualTo("[\"2016-11-04T08:00:00.500000Z\",\"infinity\",\"-infinity\"]");
        assertThat(array("_INT4", "int32", null, "[1, null, 3]")).isEqualTo("[\"1\",null,\"3\"]");
        assertThat(array("_FLOAT8", "float64", null, "[2.25, \"NaN\", \"-Infinity\"]"))
                .isEqualTo("[\"2.25\",\"NaN\",\"-Infinity\"]");
        assertThat(array("_NUMERIC", 12, 3, "string", null, "[\"1.500\", null]"))
                .isEqualTo("[\"1.500\",null]");
        assertThat(array("_BYTEA", "bytes", null, "[\"3q0=\", null]")).isEqualTo("[\"DEAD\",null]");
        assertThat(
                        array(
                                "_TEXT",
                                "string",
                                null,
                                "[\"a\", \"q\\\"uote\", \"back\\\\slash\", \"com,ma\", \"\"]"))
                .isEqualTo("[\"a\",\"q\\\"uote\",\"back\\\\slash\",\"com,ma\",\"\"]");
        // an array of a domain Debezium does not know: its elements' text, as bytes
        assertThat(array("_POSINT", "bytes", null, "[\"MQ==\", \"Mg==\"]"))
                .isEqualTo("[\"1\",\"2\"]");
        // a multi-dimensional array arrives as one null per sub-array
        assertThat(array("_INT4", "int32", null, "[null, null]")).isEqualTo("[null,null]");
        assertThat(array("_INT4", "int32", null, "[]")).isEqualTo("[]");
    }

    @Test
    void anArrayWithoutItsElementTypeStaysItsJson() throws Exception {
        ColumnSpec c = new ColumnSpec("c", "ARRAY", false, true, null, null, "array", null);
        assertThat(ColumnKind.of(c)).isEqualTo(ColumnKind.TEXT);
        assertThat(ValueText.of(c, ColumnKind.TEXT, M.readTree("[17109,17110]")))
                .isEqualTo("[17109,17110]");
    }

    @Test
    void bitStringsAreTheirDigits() {
        // bit(3) B'101', bit(8) B'00000101': Debezium's little-endian bytes of the value
        assertThat(bits("BIT", 3, "BQ==")).isEqualTo("101");
        assertThat(bits("BIT", 8, "BQ==")).isEqualTo("00000101");
        assertThat(bits("BIT", 10, "AQI=")).isEqualTo("1000000001");
        // varbit loses its leading zeros in the event: B'0011' arrives as 3
        assertThat(bits("VARBIT", 8, "Aw==")).isEqualTo("11");
        assertThat(bits("VARBIT", 8, "")).isEqualTo("0");
    }

    @Test
    void intervalsAreTextBothWarehousesRead() {
        ColumnSpec c =
                new ColumnSpec(
                        "c", "INTERVAL", false, true, 49, 6, "string", "io.debezium.time.Interval");
        assertThat(ValueText.of(c, ColumnKind.of(c), J.textNode("P1Y2M3DT4H5M6.789S")))
                .isEqualTo("1 years 2 months 3 days 4 hours 5 minutes 6.789 seconds");
        assertThat(ValueText.of(c, ColumnKind.of(c), J.textNode("P-1Y-2M3DT-4H-5M-6.789S")))
                .isEqualTo("-1 years -2 months 3 days -4 hours -5 minutes -6.789 seconds");
        // a warehouse column made for Debezium's microseconds gets them, counted as Debezium does
        ColumnSpec micros =
                new ColumnSpec(
                        "c",
                        "INTERVAL",
                        false,
                        true,
                        null,
                        null,
                        "string",
                        "io.debezium.time.MicroDuration");
        assertThat(ValueText.of(micros, ColumnKind.of(micros), J.textNode("P1Y2M3DT4H5M6.789S")))
                .isEqualTo("37091106789000");
    }

    @Test
    void pointsTypesDebeziumDoesNotKnowAndMoney() throws Exception {
        ColumnSpec pt =
                new ColumnSpec(
                        "c",
                        "POINT",
                        false,
                        true,
                        null,
                        null,
                        "struct",
                        "io.debezium.data.geometry.Point");
        assertThat(
                        ValueText.of(
                                pt,
                                ColumnKind.of(pt),
                                M.readTree(
                                        "{\"x\":1.5,\"y\":-2.5,\"wkb\":\"AQEAAAAAAAAAAAD4PwAAAAAAAARA\","
                                                + "\"srid\":null}")))
                .isEqualTo("{\"x\":1.5,\"y\":-2.5}");
        ColumnSpec composite =
                new ColumnSpec("c", "ADDRESS", false, true, null, null, "bytes", null);
        assertThat(ColumnKind.of(composite)).isEqualTo(ColumnKind.TEXT);
        assertThat(
                        ValueText.of(
                                composite,
                                ColumnKind.TEXT,
                                J.textNode("KCJNYWluICIiU3QiIiwgMSIsMTIzNDUp")))
                .isEqualTo("(\"Main \"\"St\"\", 1\",12345)");
        ColumnSpec bytea = new ColumnSpec("c", "BYTEA", false, true, null, null, "bytes", null);
        assertThat(ColumnKind.of(bytea)).isEqualTo(ColumnKind.BYTES);
        ColumnSpec money = new ColumnSpec("c", "MONEY", false, true, 2147483647, 0, "string", null);
        assertThat(ColumnKind.of(money)).isEqualTo(ColumnKind.MONEY);
        assertThat(ColumnKind.moneyScale(money)).isEqualTo(2);
        assertThat(ValueText.of(money, ColumnKind.MONEY, J.textNode("-0.50"))).isEqualTo("-0.50");
    }
}
