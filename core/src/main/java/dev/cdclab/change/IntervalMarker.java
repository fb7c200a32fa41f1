package dev.cdclab.change;

/**
 * Says that one Streams task has emitted every net change of every window that ends at or before
 * {@code closedThrough}. Markers are written to every partition of the net-changes topic, after the
 * net changes they cover, so a reader that has seen the marker of every task on a partition holds
 * those windows complete for that partition.
 *
 * @param task the partition number of the Streams task that closed the windows
 * @param tasks how many tasks produce net changes
 * @param closedThrough window bound: windows with end at or before it are complete (source commit
 *     time in ms for fixed intervals; a position in the source's commit order for windows cut at
 *     transaction boundaries)
 * @param sourceMs the source commit time the closed windows reach: every transaction the source
 *     acknowledged as committed before its clock read this time is in them
 * @param windows the settings the task cuts windows with ({@code interval=... grace=... mode=...}):
 *     tasks whose markers say different things cannot be read together; empty when not said
 */
public record IntervalMarker(int task, int tasks, long closedThrough, long sourceMs, String windows)
        implements NetChangeRecord {

    public IntervalMarker {
        windows = windows == null ? "" : windows;
    }

    /** A marker that does not say how its task cuts windows. */
    public IntervalMarker(int task, int tasks, long closedThrough, long sourceMs) {
        this(task, tasks, closedThrough, sourceMs, "");
    }

    /** A marker of fixed commit-time intervals, whose bound is itself a commit time. */
    public IntervalMarker(int task, int tasks, long closedThroughMs) {
        this(task, tasks, closedThroughMs, closedThroughMs);
    }
}
