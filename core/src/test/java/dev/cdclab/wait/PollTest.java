package dev.cdclab.wait;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PollTest {
    /** A clock that moves only when the poll pauses. */
    private final long[] now = {0};

    private final List<Long> pauses = new ArrayList<>();

    private Poll poll(Duration timeout) {
        return Poll.within(
                timeout,
                () -> now[0],
                nanos -> {
                    pauses.add(nanos / 1_000_000);
                    now[0] += nanos;
                });
    }

    @Test
    void pausesDoubleUpToTheCapAndNeverPassTheDeadline() {
        Poll p =
                poll(Duration.ofMillis(1_000))
                        .backoff(Duration.ofMillis(100), Duration.ofMillis(300));
        assertThat(p.until(() -> false)).isFalse();
        assertThat(pauses).containsExactly(100L, 200L, 300L, 300L, 100L);
        assertThat(p.expired()).isTrue();
        assertThat(p.remaining()).isZero();
    }

    @Test
    void aConditionThatHoldsEndsTheWaitWithItsAnswer() {
        AtomicInteger calls = new AtomicInteger();
        Poll p = poll(Duration.ofSeconds(10)).every(Duration.ofMillis(200));
        assertThat(
                        p.until(
                                () ->
                                        calls.incrementAndGet() == 3
                                                ? Optional.of("ok")
                                                : Optional.empty()))
                .contains("ok");
        assertThat(pauses).containsExactly(200L, 200L);
        assertThat(p.expired()).isFalse();
    }

    @Test
    void resetStartsTheIntervalsOver() {
        Poll p = poll(Duration.ofSeconds(10)).backoff(Duration.ofMillis(10), Duration.ofSeconds(1));
        p.pause();
        p.pause();
        p.reset();
        p.pause();
        assertThat(pauses).containsExactly(10L, 20L, 10L);
    }

    @Test
    void anInterruptedPauseStopsTheWaitAndKeepsTheFlag() {
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> Poll.within(Duration.ofSeconds(5)).pause())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("interrupted");
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void aZeroTimeoutChecksOnceAndANegativeOneIsRefused() {
        AtomicInteger calls = new AtomicInteger();
        assertThat(poll(Duration.ZERO).until(() -> calls.incrementAndGet() > 1)).isFalse();
        assertThat(calls).hasValue(1);
        assertThat(pauses).isEmpty();
        assertThatThrownBy(() -> Poll.within(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Poll.within(Duration.ofSeconds(1)).every(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
