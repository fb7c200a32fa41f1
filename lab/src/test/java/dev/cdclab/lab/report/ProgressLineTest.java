package dev.cdclab.lab.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The progress line and the per-second rates it shows. */
class ProgressLineTest {

    @Test
    @Timeout(30)
    void withoutTerminalAsksOnlyForTheLinesItPrints() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        AtomicInteger calls = new AtomicInteger();
        try (ProgressLine line = new ProgressLine(out, () -> "line " + calls.incrementAndGet())) {
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> bytes.toString(StandardCharsets.UTF_8).contains("line 2"));
        }
        // tests run without a console: a line every 5 s, and one call per printed line
        assertThat(bytes.toString(StandardCharsets.UTF_8).lines()).startsWith("line 1", "line 2");
        assertThat(calls.get()).isEqualTo(2);
    }

    @Test
    void rateIsPerSecondOfTheTimeBetweenReadings() {
        AtomicLong nanos = new AtomicLong(0);
        RateMeter meter = new RateMeter(100, nanos::get);
        nanos.set(5_000_000_000L);
        assertThat(meter.perSecond(600)).isEqualTo(100.0);
        nanos.addAndGet(500_000_000L);
        assertThat(meter.perSecond(650)).isEqualTo(100.0);
        nanos.addAndGet(1_000_000_000L);
        assertThat(meter.perSecond(650)).isZero();
    }
}
