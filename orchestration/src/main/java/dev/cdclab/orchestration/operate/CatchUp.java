package dev.cdclab.orchestration.operate;

import dev.cdclab.config.Durations;
import dev.cdclab.wait.Poll;
import java.time.Duration;
import java.time.Instant;
import java.util.function.LongSupplier;

/**
 * Waits until the warehouse holds every transaction the source committed before the wait began: the
 * sink's applied-through commit time must reach the source's clock as read at the start.
 */
public final class CatchUp {
    private CatchUp() {}

    /**
     * @param sourceNowMs reads the source's clock, epoch ms
     * @param appliedThroughMs the source commit time through which the warehouse is complete
     * @param health throws when a stage has failed
     * @param timeout how long to wait
     * @return how long it took
     * @throws CatchUpTimeoutException when the time runs out
     * @throws StageFailedException when a stage fails while waiting
     */
    public static Duration await(
            LongSupplier sourceNowMs,
            LongSupplier appliedThroughMs,
            Runnable health,
            Duration timeout) {
        long target = sourceNowMs.getAsLong();
        long t0 = System.nanoTime();
        Poll poll = Poll.within(timeout).every(Duration.ofMillis(20));
        long applied;
        while ((applied = appliedThroughMs.getAsLong()) < target) {
            health.run();
            if (poll.expired()) {
                throw new CatchUpTimeoutException(
                        "warehouse did not catch up within "
                                + Durations.format(timeout)
                                + " (complete through "
                                + describe(applied)
                                + ", source at "
                                + Instant.ofEpochMilli(target)
                                + ")",
                        timeout,
                        applied,
                        target);
            }
            poll.pause();
        }
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    private static String describe(long ms) {
        return ms == Long.MIN_VALUE ? "nothing yet" : Instant.ofEpochMilli(ms).toString();
    }
}
