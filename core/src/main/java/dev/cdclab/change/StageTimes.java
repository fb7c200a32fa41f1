package dev.cdclab.change;

/**
 * Wall-clock instants (epoch milliseconds) of the last raw change folded into a net change, one per
 * pipeline stage.
 *
 * @param sourceCommitMs commit time at the source ({@code source.ts_ms})
 * @param capturedMs when Debezium built the event (envelope {@code ts_ms})
 * @param kafkaAppendMs the Kafka record timestamp of the raw event (append time on the embedded
 *     broker)
 * @param emittedMs when the net change left the Streams app
 */
public record StageTimes(
        long sourceCommitMs, long capturedMs, long kafkaAppendMs, long emittedMs) {}
