package dev.cdclab.orchestration;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CaptureRestartsTest {
    @Test
    void aFailedConnectorIsRestartedAFewTimesInAWindowThenNoMore() {
        Pipeline.CaptureRestarts r = new Pipeline.CaptureRestarts();
        long t = 1_000_000_000L;
        for (int i = 0; i < Pipeline.CaptureRestarts.MAX; i++) {
            assertThat(r.allow(t + i)).isTrue();
        }
        assertThat(r.allow(t + 10)).isFalse();
        assertThat(r.allow(t + Pipeline.CaptureRestarts.WINDOW.toNanos() + 1)).isTrue();
        assertThat(r.used()).isEqualTo(Pipeline.CaptureRestarts.MAX);
    }
}
