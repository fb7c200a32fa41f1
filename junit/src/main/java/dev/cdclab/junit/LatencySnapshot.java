package dev.cdclab.junit;

/**
 * Source-commit-to-warehouse-commit latency of the changes applied so far (snapshot rows are not
 * timed: they have no commit).
 *
 * @param count changes timed
 * @param p50Ms median, ms
 * @param p99Ms 99th percentile, ms
 * @param maxMs largest, ms
 */
public record LatencySnapshot(long count, long p50Ms, long p99Ms, long maxMs) {}
