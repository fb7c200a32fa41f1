package dev.cdclab.streams.fold;

/**
 * A window of source commit time, {@code [startMs, endMs)}. With a zero interval length each
 * transaction is its own interval and {@code discriminator} is its transaction number.
 */
public record Interval(long startMs, long endMs, long discriminator) {}
