package dev.cdclab.pipeline.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import org.junit.jupiter.api.Test;

/** Dates, timestamps and timetz as PostgreSQL, DuckDB and SQL Server write them read alike. */
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
}
