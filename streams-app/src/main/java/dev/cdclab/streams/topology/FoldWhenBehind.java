package dev.cdclab.streams.topology;

import java.time.Duration;

/**
 * When the net-change app folds several transactions into one window: only while it reads changes
 * {@code lagMs} or more after Kafka appended them, and for at most {@code windowMs} of source
 * commit time per window. {@code lagMs} 0 means never.
 */
record FoldWhenBehind(long lagMs, long windowMs) {
    static final FoldWhenBehind NEVER = new FoldWhenBehind(0, 1);

    static FoldWhenBehind of(Duration lag, Duration window) {
        return new FoldWhenBehind(lag.toMillis(), window.toMillis());
    }

    boolean enabled() {
        return lagMs > 0;
    }

    /** True when a change read {@code lagMs} after its append says the app is behind. */
    boolean behind(long lagMs) {
        return enabled() && lagMs >= this.lagMs;
    }
}
