package dev.cdclab.change;

/**
 * Says that one Streams task has emitted every net change of every interval that ends at or before
 * {@code closedThroughMs}. Markers are written to every partition of the net-changes topic, after
 * the net changes they cover, so a reader that has seen the marker of every task on a partition
 * holds those intervals complete for that partition.
 *
 * @param task the partition number of the Streams task that closed the intervals
 * @param tasks how many tasks produce net changes
 * @param closedThroughMs commit-time bound: intervals with end at or before it are complete
 */
public record IntervalMarker(int task, int tasks, long closedThroughMs)
        implements NetChangeRecord {}
