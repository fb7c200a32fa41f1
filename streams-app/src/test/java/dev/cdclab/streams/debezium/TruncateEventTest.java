package dev.cdclab.streams.debezium;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdclab.streams.testing.DebeziumEvents;
import org.junit.jupiter.api.Test;

/** A TRUNCATE in the change stream stops the app with its table named; it is never skipped. */
class TruncateEventTest {
    @Test
    void truncateIsNotSkippedSilently() {
        DebeziumEvents events = new DebeziumEvents();
        byte[] truncate = events.change('t', null, null, 100, 7, 1_000);
        DebeziumEventReader reader =
                new DebeziumEventReader(DebeziumEventReader.DEFAULT_PLACEHOLDER, null);
        assertThatThrownBy(() -> reader.read(null, truncate, 1_000))
                .isInstanceOf(TruncateNotPropagatedException.class)
                .hasMessageContaining("TRUNCATE of public.items is not propagated");
    }
}
