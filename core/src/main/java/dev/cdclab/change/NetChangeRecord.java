package dev.cdclab.change;

/** A record of the net-changes topic: a {@link NetChange} or an {@link IntervalMarker}. */
public sealed interface NetChangeRecord permits NetChange, IntervalMarker {}
