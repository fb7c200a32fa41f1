package dev.cdclab.wait;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Waits for something with a deadline: check, pause, check again, with pauses that grow from a
 * first interval to a cap (Debezium's {@code Metronome} and {@code Threads.Timer} in one).
 *
 * <pre>{@code
 * Poll poll = Poll.within(Duration.ofSeconds(60)).every(Duration.ofMillis(200));
 * while (!poll.expired()) {
 *     if (ready()) return;
 *     poll.pause();
 * }
 * throw new IllegalStateException("not ready within 60 s");
 * }</pre>
 *
 * <p>An interrupted pause restores the thread's interrupt flag and throws {@link
 * IllegalStateException}, so no loop goes on waiting after it was told to stop.
 */
public final class Poll {
    private static final Duration FIRST = Duration.ofMillis(50);
    private static final Duration CAP = Duration.ofSeconds(1);

    private final Duration timeout;
    private final LongSupplier nanoTime;
    private final Sleeper sleeper;
    private final long deadline;
    private long firstNanos;
    private long capNanos;
    private long nextNanos;

    /** What pauses; a test gives one that only moves its clock. */
    interface Sleeper {
        void sleep(long nanos) throws InterruptedException;
    }

    private Poll(Duration timeout, long first, long cap, LongSupplier nanoTime, Sleeper sleeper) {
        this.timeout = timeout;
        this.nanoTime = nanoTime;
        this.sleeper = sleeper;
        this.deadline = nanoTime.getAsLong() + timeout.toNanos();
        this.firstNanos = first;
        this.capNanos = Math.max(first, cap);
        this.nextNanos = first;
    }

    /**
     * A poll that gives up {@code timeout} from now (zero: check once), pausing 50 ms at first and
     * doubling up to 1 s.
     */
    public static Poll within(Duration timeout) {
        return new Poll(
                requireNotNegative(timeout),
                FIRST.toNanos(),
                CAP.toNanos(),
                System::nanoTime,
                Poll::sleepNanos);
    }

    static Poll within(Duration timeout, LongSupplier nanoTime, Sleeper sleeper) {
        return new Poll(
                requireNotNegative(timeout), FIRST.toNanos(), CAP.toNanos(), nanoTime, sleeper);
    }

    /** Pauses {@code interval} every time; returns this poll. */
    public Poll every(Duration interval) {
        return backoff(interval, interval);
    }

    /** Pauses {@code first} at first, doubling up to {@code cap}; returns this poll. */
    public Poll backoff(Duration first, Duration cap) {
        firstNanos = requirePositive(first).toNanos();
        capNanos = Math.max(firstNanos, requirePositive(cap).toNanos());
        nextNanos = firstNanos;
        return this;
    }

    /** The timeout this poll was made with, for messages. */
    public Duration timeout() {
        return timeout;
    }

    /** Whether the deadline has passed. */
    public boolean expired() {
        return nanoTime.getAsLong() - deadline >= 0;
    }

    /** Time left until the deadline, zero once it passed. */
    public Duration remaining() {
        return Duration.ofNanos(Math.max(0, deadline - nanoTime.getAsLong()));
    }

    /**
     * Pauses for the next interval (never past the deadline), then doubles the interval up to its
     * cap.
     */
    public void pause() {
        long left = deadline - nanoTime.getAsLong();
        long nanos = Math.min(nextNanos, Math.max(0, left));
        nextNanos = Math.min(capNanos, nextNanos * 2);
        if (nanos > 0) {
            try {
                sleeper.sleep(nanos);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting", e);
            }
        }
    }

    /** Starts the intervals over from the first (after progress, say). */
    public void reset() {
        nextNanos = firstNanos;
    }

    /** Checks {@code condition} until it holds (true) or the deadline passes (false). */
    public boolean until(BooleanSupplier condition) {
        while (true) {
            if (condition.getAsBoolean()) {
                return true;
            }
            if (expired()) {
                return false;
            }
            pause();
        }
    }

    /** Checks {@code probe} until it answers (that answer) or the deadline passes (empty). */
    public <T> Optional<T> until(Supplier<Optional<T>> probe) {
        while (true) {
            Optional<T> v = Objects.requireNonNull(probe.get(), "probe answered null");
            if (v.isPresent()) {
                return v;
            }
            if (expired()) {
                return Optional.empty();
            }
            pause();
        }
    }

    /**
     * Sleeps {@code duration}; an interrupt restores the flag and throws {@link
     * IllegalStateException}.
     */
    public static void sleep(Duration duration) {
        try {
            sleepNanos(duration.toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting", e);
        }
    }

    private static void sleepNanos(long nanos) throws InterruptedException {
        Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
    }

    private static Duration requirePositive(Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("a poll needs a positive interval, not " + d);
        }
        return d;
    }

    private static Duration requireNotNegative(Duration d) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException("a poll needs a timeout of zero or more, not " + d);
        }
        return d;
    }
}
