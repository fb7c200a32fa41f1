package dev.cdclab.orchestration.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdclab.sink.warehouse.ColumnKind;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import org.junit.jupiter.api.Test;

/**
 * Values as PostgreSQL, DuckDB and SQL Server write them read alike: dates, timestamps, timetz,
 * array elements, intervals, JSON, ranges, points, bit strings and money.
 */
class CanonicalValueTest {

    @Test
    void readsEachDatabasesTimestampText() {
        assertThat(CanonicalValue.parseText("2026-11-22 01:02:03.456789+05"))
                .isEqualTo(OffsetDateTime.parse("2026-11-22T01:02:03.456789+05:00"));
        assertThat(CanonicalValue.parseText("2026-11-21 20:02:03.456789+00"))
                .isEqualTo(OffsetDateTime.parse("2026-11-21T20:02:03.456789Z"));
        // SQL Server: seven fraction digits, a space before the offset
        assertThat(CanonicalValue.parseText("2026-11-22 01:02:03.4567890 +05:30").toInstant())
                .isEqualTo(OffsetDateTime.parse("2026-11-21T19:32:03.456789Z").toInstant());
        assertThat(CanonicalValue.parseText("2026-11-22 01:02:03"))
                .isEqualTo(OffsetDateTime.parse("2026-11-22T01:02:03Z"));
    }

    @Test
    void readsYearsPast9999AndBeforeChrist() {
        assertThat(CanonicalValue.parseText("21016-11-04 10:00:00").getYear()).isEqualTo(21016);
        // 44 BC is year -43 in ISO; PostgreSQL writes "BC" last, DuckDB "(BC)" after the date
        assertThat(CanonicalValue.parseText("0044-03-15 10:00:00 BC").getYear()).isEqualTo(-43);
        assertThat(CanonicalValue.parseText("0044-03-15 10:00:00 (BC)").getYear()).isEqualTo(-43);
        assertThat(CanonicalValue.parseText("0044-03-15 (BC) 12:34:56.789012"))
                .isEqualTo(CanonicalValue.parseText("0044-03-15 12:34:56.789012 BC"))
                .isEqualTo(OffsetDateTime.parse("-0043-03-15T12:34:56.789012Z"));
        assertThat(CanonicalValue.parseText("0001-01-01 (BC) 00:00:00+00"))
                .isEqualTo(CanonicalValue.parseText("0001-01-01 00:00:00+00 BC"))
                .isEqualTo(OffsetDateTime.parse("0000-01-01T00:00:00Z"));
        assertThat(CanonicalValue.parseText("4714-11-24 00:53:28+00:53:28 BC").toInstant())
                .isEqualTo(OffsetDateTime.parse("-4713-11-24T00:00:00Z").toInstant());
    }

    @Test
    void readsDatesBeforeChristTheSameFromEitherDatabase() {
        assertThat(CanonicalValue.date("0044-03-15 BC")).isEqualTo("-0043-03-15");
        assertThat(CanonicalValue.date("0044-03-15 (BC)")).isEqualTo("-0043-03-15");
        assertThat(CanonicalValue.date("0001-01-01 BC")).isEqualTo("0000-01-01");
        assertThat(CanonicalValue.date("4714-11-24 (BC)")).isEqualTo("-4713-11-24");
        assertThat(CanonicalValue.date("2026-11-22")).isEqualTo("2026-11-22");
        assertThat(CanonicalValue.date("21016-11-04")).isEqualTo("21016-11-04");
        assertThat(CanonicalValue.date("-infinity")).isEqualTo("-infinity");
    }

    @Test
    void readsTimetzAtUtcIncluding2400() {
        // the source's text on the left, what Debezium 3.7 sends (and the warehouse holds) right
        assertThat(CanonicalValue.timeAtUtc("13:51:30.123789+02"))
                .isEqualTo(CanonicalValue.timeAtUtc("11:51:30.123789Z"))
                .isEqualTo("11:51:30.123789Z");
        assertThat(CanonicalValue.timeAtUtc("24:00:00+02"))
                .isEqualTo(CanonicalValue.timeAtUtc("22:00:00Z"))
                .isEqualTo("22:00Z");
        assertThat(CanonicalValue.timeAtUtc("24:00:00-05"))
                .isEqualTo(CanonicalValue.timeAtUtc("05:00:00Z"))
                .isEqualTo("05:00Z");
        assertThat(CanonicalValue.timeAtUtc("24:00:00+05:30"))
                .isEqualTo(CanonicalValue.timeAtUtc("18:30:00Z"));
        assertThat(CanonicalValue.timeAtUtc("24:00:00+00"))
                .isEqualTo(CanonicalValue.timeAtUtc("24:00:00Z"))
                .isEqualTo("24:00Z");
        assertThat(CanonicalValue.timeAtUtc("00:00:00+00")).isEqualTo("00:00Z");
        assertThat(CanonicalValue.timeAtUtc("23:59:59-07")).isEqualTo("06:59:59Z");
    }

    @Test
    void refusesWhatIsNotATimestamp() {
        assertThatThrownBy(() -> CanonicalValue.parseText("yesterday"))
                .isInstanceOf(DateTimeParseException.class);
    }

    private static TableColumn column(ColumnKind kind, String type) {
        return new TableColumn("c", kind, false, type);
    }

    private static String array(ColumnKind element, String type, Object value) throws Exception {
        return CanonicalValue.array(value, column(element, type));
    }

    @Test
    void arrayElementsReadAlikeFromPostgresTextAndDuckDbText() throws Exception {
        // PostgreSQL's text[] of the source on the left, DuckDB's list elements as text right
        assertThat(
                        array(
                                ColumnKind.DATE,
                                "date",
                                new Object[] {"2016-11-04", "infinity", "0044-03-15 BC", null}))
                .isEqualTo(
                        array(
                                ColumnKind.DATE,
                                "date",
                                new Object[] {"2016-11-04", "infinity", "0044-03-15 (BC)", null}))
                .isEqualTo("[\"2016-11-04\",\"infinity\",\"-0043-03-15\",null]");
        assertThat(
                        array(
                                ColumnKind.TIMESTAMPTZ,
                                "timestamptz",
                                new Object[] {"2016-11-04 09:00:00.5+01"}))
                .isEqualTo(
                        array(
                                ColumnKind.TIMESTAMPTZ,
                                "timestamptz",
                                new Object[] {"2016-11-04 08:00:00.5"}));
        assertThat(
                        array(
                                ColumnKind.FLOAT64,
                                "float8",
                                new Object[] {"NaN", "Infinity", "-Infinity", "1e+308"}))
                .isEqualTo(
                        array(
                                ColumnKind.FLOAT64,
                                "float8",
                                new Object[] {"nan", "inf", "-inf", "1e+308"}));
        assertThat(array(ColumnKind.BOOLEAN, "bool", new Object[] {"t", "f"}))
                .isEqualTo(array(ColumnKind.BOOLEAN, "bool", new Object[] {"true", "false"}));
        assertThat(array(ColumnKind.BYTES, "bytea", new Object[] {"\\xdead"}))
                .isEqualTo(array(ColumnKind.BYTES, "bytea", new Object[] {"DEAD"}));
        assertThat(array(ColumnKind.DECIMAL, "numeric", new Object[] {"1.500"}))
                .isEqualTo(array(ColumnKind.DECIMAL, "numeric", new Object[] {"1.5"}));
        assertThat(array(ColumnKind.TIME, "time", new Object[] {"24:00:00", "10:00:00.5"}))
                .isEqualTo("[\"24:00\",\"10:00:00.500\"]");
    }

    @Test
    void anArrayStoredAsJsonTextComparesElementByElement() throws Exception {
        assertThat(array(ColumnKind.INT32, "int4", "[1,null,3]"))
                .isEqualTo(array(ColumnKind.INT32, "int4", new Object[] {"1", null, "3"}));
        // the epoch days of an earlier mapping are not dates: verify reports them
        assertThat(array(ColumnKind.DATE, "date", "[17109]"))
                .isNotEqualTo(array(ColumnKind.DATE, "date", new Object[] {"2016-11-04"}));
        // Debezium sends a multi-dimensional array as one null per sub-array
        assertThat(
                        array(
                                ColumnKind.INT32,
                                "int4",
                                new Object[] {new Object[] {"1", "2"}, new Object[] {"3", "4"}}))
                .isEqualTo("[[\"1\",\"2\"],[\"3\",\"4\"]]")
                .isNotEqualTo(array(ColumnKind.INT32, "int4", new Object[] {null, null}));
    }

    private static String text(ColumnKind kind, String type, String value) {
        return CanonicalValue.text(value, column(kind, type));
    }

    @Test
    void intervalsJsonRangesPointsBitsAndMoneyReadAlike() {
        assertThat(text(ColumnKind.INTERVAL, "interval", "1 year 2 mons 3 days 04:05:06.789"))
                .isEqualTo(
                        text(
                                ColumnKind.INTERVAL,
                                "interval",
                                "1 year 2 months 3 days 04:05:06.789"))
                .isEqualTo("14 months 3 days 14706789000 us");
        assertThat(text(ColumnKind.INTERVAL, "interval", "-1 years -2 mons +3 days -04:05:06.789"))
                .isEqualTo(
                        text(
                                ColumnKind.INTERVAL,
                                "interval",
                                "-1 year -2 months 3 days -04:05:06.789"));
        assertThat(text(ColumnKind.INTERVAL, "interval", "00:00:00"))
                .isEqualTo("0 months 0 days 0 us");
        assertThat(text(ColumnKind.JSON, "jsonb", "{\"b\": {\"c\": null}, \"a\": 1.50}"))
                .isEqualTo(text(ColumnKind.JSON, "json", "{\"a\":1.5,\"b\":{\"c\":null}}"));
        assertThat(
                        text(
                                ColumnKind.RANGE,
                                "tstzrange",
                                "[\"2016-01-01 11:00:00+01\",\"2016-01-01 12:00:00+01\")"))
                .isEqualTo(
                        text(
                                ColumnKind.RANGE,
                                "tstzrange",
                                "[\"2016-01-01 10:00:00+00\",\"2016-01-01 11:00:00+00\")"));
        assertThat(text(ColumnKind.RANGE, "numrange", "(1.50,2.5]"))
                .isEqualTo(text(ColumnKind.RANGE, "numrange", "(1.5,2.50]"));
        assertThat(text(ColumnKind.RANGE, "int4range", "[1,)")).isEqualTo("[1,)");
        assertThat(text(ColumnKind.RANGE, "int4range", "empty")).isEqualTo("empty");
        assertThat(text(ColumnKind.POINT, "point", "(1.5,2.5)"))
                .isEqualTo(text(ColumnKind.POINT, "point", "{\"x\":1.5,\"y\":2.5}"));
        assertThat(text(ColumnKind.BITS, "varbit", "0011"))
                .isEqualTo(text(ColumnKind.BITS, "varbit", "11"));
        assertThat(text(ColumnKind.MONEY, "money", "$1,234.56"))
                .isEqualTo(text(ColumnKind.MONEY, "money", "1234.56"))
                .isEqualTo("1234.56");
        assertThat(text(ColumnKind.MONEY, "money", "-$0.50")).isEqualTo("-0.5");
    }
}
