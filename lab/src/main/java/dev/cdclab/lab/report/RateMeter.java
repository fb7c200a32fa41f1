package dev.cdclab.lab.report;

import java.util.function.LongSupplier;

/** Turns a growing counter into a per-second rate between successive readings. */
public final class RateMeter {
    private final LongSupplier nanoTime;
    private long lastValue;
    private long lastNanos;

    /** Starts from {@code value} now. */
    public RateMeter(long value) {
        this(value, System::nanoTime);
    }

    RateMeter(long value, LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.lastValue = value;
        this.lastNanos = nanoTime.getAsLong();
    }

    /** The counter's rate per second since the previous reading (or since construction). */
    public synchronized double perSecond(long value) {
        long now = nanoTime.getAsLong();
        double seconds = Math.max(1e-3, (now - lastNanos) / 1e9);
        double rate = (value - lastValue) / seconds;
        lastValue = value;
        lastNanos = now;
        return rate;
    }
}
