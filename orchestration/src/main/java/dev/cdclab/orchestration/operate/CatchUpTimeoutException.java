package dev.cdclab.orchestration.operate;

import java.time.Duration;

/**
 * The warehouse did not reach the source's position within the time allowed; the pipeline itself is
 * still running (a failed stage is a {@link StageFailedException} instead).
 */
public final class CatchUpTimeoutException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final Duration timeout;
    private final long appliedThroughMs;
    private final long targetMs;

    public CatchUpTimeoutException(
            String message, Duration timeout, long appliedThroughMs, long targetMs) {
        super(message);
        this.timeout = timeout;
        this.appliedThroughMs = appliedThroughMs;
        this.targetMs = targetMs;
    }

    public Duration timeout() {
        return timeout;
    }

    /** Source commit time through which the warehouse was complete when time ran out. */
    public long appliedThroughMs() {
        return appliedThroughMs;
    }

    /** The source's clock when the wait began. */
    public long targetMs() {
        return targetMs;
    }
}
