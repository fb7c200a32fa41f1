package dev.cdclab.change;

/**
 * A record of the net-changes topic: a {@link NetChange} or a {@link TableEvent} to apply, or an
 * {@link IntervalMarker}.
 */
public sealed interface NetChangeRecord permits IntervalRecord, IntervalMarker {}
