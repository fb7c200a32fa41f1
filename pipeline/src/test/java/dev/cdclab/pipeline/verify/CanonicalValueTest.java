package dev.cdclab.pipeline.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import org.junit.jupiter.api.Test;

/** Timestamps as PostgreSQL, DuckDB and SQL Server write them read as the same instant. */
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
        // 44 BC is year -43 in ISO; PostgreSQL writes "BC", DuckDB "(BC)"
        assertThat(CanonicalValue.parseText("0044-03-15 10:00:00 BC").getYear()).isEqualTo(-43);
        assertThat(CanonicalValue.parseText("0044-03-15 10:00:00 (BC)").getYear()).isEqualTo(-43);
    }

    @Test
    void refusesWhatIsNotATimestamp() {
        assertThatThrownBy(() -> CanonicalValue.parseText("yesterday"))
                .isInstanceOf(DateTimeParseException.class);
    }
}
