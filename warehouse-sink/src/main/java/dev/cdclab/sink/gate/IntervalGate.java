package dev.cdclab.sink.gate;

import dev.cdclab.change.IntervalMarker;
import dev.cdclab.change.IntervalRecord;
import dev.cdclab.change.NetChange;
import dev.cdclab.change.WindowSettings;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Holds net changes (and table events) until every Streams task has closed their interval on every
 * partition this sink reads, so the warehouse moves from one interval boundary to the next in one
 * transaction and never shows part of a source transaction.
 *
 * <p>An interval too big to hold (a huge transaction, an initial snapshot) is streamed instead:
 * {@link #releaseOldest()} hands out the held changes of the earliest interval for an open
 * warehouse transaction, and their offsets stay uncommittable until {@link #committed()} says that
 * transaction committed.
 *
 * @param <P> partition identifier
 */
public final class IntervalGate<P> {
    private final Map<P, PartitionState> partitions = new LinkedHashMap<>();

    private static final class PartitionState {
        final List<Held> held = new ArrayList<>();
        final Map<Integer, Long> closedThrough = new HashMap<>();
        final Map<Integer, Long> sourceMs = new HashMap<>();
        int tasks = -1;
        long nextOffset = -1;

        /** The settings the tasks' markers say they cut windows with, and the ones before. */
        String settings;

        String previousSettings;

        /** Tasks that have marked under {@link #settings} since they changed. */
        final Set<Integer> settled = new HashSet<>();

        /** Lowest offset of a change released into the open warehouse transaction, or -1. */
        long streamedFrom = -1;

        /**
         * Latest interval end of the net changes read: those of the partition's task come in the
         * order their intervals close, so none of an earlier interval follows.
         */
        long changesThrough = Long.MIN_VALUE;

        /** Through where the partition has been read, as its changes and its markers say. */
        long readThrough() {
            long marked = Long.MIN_VALUE;
            if (tasks >= 0 && closedThrough.size() >= tasks) {
                marked = Long.MAX_VALUE;
                for (long t : closedThrough.values()) {
                    marked = Math.min(marked, t);
                }
            }
            return Math.max(changesThrough, marked);
        }
    }

    private record Held(long offset, IntervalRecord change, int bytes) {}

    /** Changes of one interval released early, and that interval's end. */
    public record Oldest(List<IntervalRecord> changes, long intervalEndMs) {}

    private long heldBytes;

    /** Starts tracking newly assigned partitions. */
    public void assign(Collection<P> assigned) {
        for (P p : assigned) {
            partitions.putIfAbsent(p, new PartitionState());
        }
    }

    /** Forgets revoked partitions; their records will be read again by their next owner. */
    public void revoke(Collection<P> revoked) {
        for (P p : revoked) {
            PartitionState s = partitions.remove(p);
            if (s != null) {
                s.held.forEach(h -> heldBytes -= h.bytes());
            }
        }
    }

    /**
     * Forgets everything read from the partition after a rollback of what was written ahead from
     * it, and records {@code offset} as where it is to be read again: the offset committed for it
     * (at a revocation, for its next owner) is then that one, not past the changes rolled back.
     */
    public void rewind(P partition, long offset) {
        PartitionState s = partitions.get(partition);
        if (s != null) {
            s.held.forEach(h -> heldBytes -= h.bytes());
            PartitionState fresh = new PartitionState();
            fresh.nextOffset = offset;
            partitions.put(partition, fresh);
        }
    }

    /** Adds a net change read at {@code offset}. */
    public void add(P partition, long offset, IntervalRecord change) {
        add(partition, offset, change, 0);
    }

    /** Adds a net change read at {@code offset} from a record of {@code bytes} bytes. */
    public void add(P partition, long offset, IntervalRecord change, int bytes) {
        PartitionState s = partitions.computeIfAbsent(partition, k -> new PartitionState());
        s.held.add(new Held(offset, change, bytes));
        if (change instanceof NetChange) {
            s.changesThrough = Math.max(s.changesThrough, change.intervalEndMs());
        }
        s.nextOffset = Math.max(s.nextOffset, offset + 1);
        heldBytes += bytes;
    }

    /** Passes over a record read at {@code offset} that carries nothing to apply. */
    public void skip(P partition, long offset) {
        PartitionState s = partitions.computeIfAbsent(partition, k -> new PartitionState());
        s.nextOffset = Math.max(s.nextOffset, offset + 1);
    }

    /**
     * Records a marker read at {@code offset}.
     *
     * @throws InconsistentTasksException when the partition's markers go back to settings other
     *     tasks already left: instances of the Streams app run with different settings
     */
    public void mark(P partition, long offset, IntervalMarker marker) {
        PartitionState s = partitions.computeIfAbsent(partition, k -> new PartitionState());
        if (!marker.windows().isEmpty()) {
            follow(partition, s, marker);
        }
        if (marker.tasks() != s.tasks) {
            // the Streams app was rescaled: markers of tasks that no longer exist do not count
            s.tasks = marker.tasks();
            s.closedThrough.keySet().removeIf(t -> t >= marker.tasks());
            s.sourceMs.keySet().removeIf(t -> t >= marker.tasks());
        }
        s.closedThrough.merge(marker.task(), marker.closedThrough(), Math::max);
        s.sourceMs.merge(marker.task(), marker.sourceMs(), Math::max);
        s.nextOffset = Math.max(s.nextOffset, offset + 1);
    }

    /**
     * Follows the settings the markers carry. Instances restarted with new settings change them
     * once, and every task then marks under the new ones; markers that go back to the settings
     * before, while some task has not yet marked under the new ones, come from instances running
     * with both at once, whose windows cannot be gated together.
     */
    private void follow(P partition, PartitionState s, IntervalMarker marker) {
        String settings = "partitions=" + marker.tasks() + " " + marker.windows();
        if (!settings.equals(s.settings)) {
            if (settings.equals(s.previousSettings)) {
                throw new InconsistentTasksException(
                        "Streams tasks disagree: the markers on "
                                + partition
                                + " alternate between '"
                                + s.previousSettings
                                + "' and '"
                                + s.settings
                                + "'; run every instance of the net-change app with the same"
                                + " partitions, interval, grace and mode");
            }
            if (s.settings != null) {
                // bounds said under other settings are not comparable: every task marks again,
                // and the changes held are placed in the windows they fall in under the new
                // settings (those emitted before the restart whose windows no marker closed: the
                // rest of their transactions come under the new ones)
                s.closedThrough.clear();
                s.sourceMs.clear();
                WindowSettings now = WindowSettings.of(marker.windows());
                if (now != null) {
                    s.held.replaceAll(h -> new Held(h.offset(), now.place(h.change()), h.bytes()));
                }
                settingsChanges++;
            }
            s.previousSettings = s.settings;
            s.settings = settings;
            s.settled.clear();
        }
        if (s.previousSettings != null) {
            s.settled.add(marker.task());
            if (s.settled.size() >= marker.tasks()) {
                s.previousSettings = null;
            }
        }
    }

    private int settingsChanges;

    /**
     * How many times a partition's markers changed settings: a bound said before a change is in
     * another unit (commit time, or a place in the commit order) than one said after it.
     */
    public int settingsChanges() {
        return settingsChanges;
    }

    /**
     * The settings every assigned partition's markers say, or null while they differ (the
     * net-change app restarting with new ones): no bound holds across them. The empty string when
     * the markers say none.
     */
    public String settings() {
        String common = null;
        for (PartitionState s : partitions.values()) {
            String here = s.settings == null ? "" : s.settings;
            if (common == null) {
                common = here;
            } else if (!common.equals(here)) {
                return null;
            }
        }
        return common == null ? "" : common;
    }

    /** Markers of tasks running with different settings. */
    public static final class InconsistentTasksException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        InconsistentTasksException(String message) {
            super(message);
        }
    }

    /**
     * Commit-time bound through which every assigned partition is complete; {@link Long#MIN_VALUE}
     * until every task has marked every partition.
     */
    public long bound() {
        if (partitions.isEmpty() || settings() == null) {
            return Long.MIN_VALUE;
        }
        long bound = Long.MAX_VALUE;
        for (PartitionState s : partitions.values()) {
            if (s.tasks < 0 || s.closedThrough.size() < s.tasks) {
                return Long.MIN_VALUE;
            }
            for (long t : s.closedThrough.values()) {
                bound = Math.min(bound, t);
            }
        }
        return bound;
    }

    /**
     * The source commit time through which every assigned partition is complete, as the markers
     * behind {@link #bound()} say; {@link Long#MIN_VALUE} until every task has marked every
     * partition.
     */
    public long sourceTime() {
        if (partitions.isEmpty()) {
            return Long.MIN_VALUE;
        }
        long time = Long.MAX_VALUE;
        for (PartitionState s : partitions.values()) {
            if (s.tasks < 0 || s.sourceMs.size() < s.tasks) {
                return Long.MIN_VALUE;
            }
            for (long t : s.sourceMs.values()) {
                time = Math.min(time, t);
            }
        }
        return time;
    }

    /**
     * Removes and returns the held changes whose interval ends at or before {@code bound}; their
     * offsets are not committable until {@link #committed()}.
     */
    public List<IntervalRecord> release(long bound) {
        List<IntervalRecord> out = new ArrayList<>();
        release(bound, (p, h) -> out.add(h.change()));
        return out;
    }

    /** A released change and where it was read. */
    public record Released<P>(P partition, long offset, IntervalRecord change) {}

    /** As {@link #release}, with the partition and offset each change was read at. */
    public List<Released<P>> releaseRead(long bound) {
        List<Released<P>> out = new ArrayList<>();
        release(bound, (p, h) -> out.add(new Released<>(p, h.offset(), h.change())));
        return out;
    }

    private void release(long bound, java.util.function.BiConsumer<P, Held> to) {
        for (var e : partitions.entrySet()) {
            PartitionState s = e.getValue();
            for (Iterator<Held> it = s.held.iterator(); it.hasNext(); ) {
                Held h = it.next();
                if (h.change().intervalEndMs() <= bound) {
                    to.accept(e.getKey(), h);
                    heldBytes -= h.bytes();
                    uncommitted(s, h);
                    it.remove();
                }
            }
        }
    }

    private static void uncommitted(PartitionState s, Held h) {
        if (s.streamedFrom < 0 || h.offset() < s.streamedFrom) {
            s.streamedFrom = h.offset();
        }
    }

    /**
     * Removes and returns the held changes of the earliest interval held, for a warehouse
     * transaction that commits once the bound reaches that interval's end; their offsets are not
     * committable until {@link #committed()}. Empty when nothing is held.
     */
    public Oldest releaseOldest() {
        OldestRead<P> read = releaseOldestRead();
        List<IntervalRecord> out = new ArrayList<>(read.released().size());
        read.released().forEach(r -> out.add(r.change()));
        return new Oldest(out, read.intervalEndMs());
    }

    /** Changes of one interval released early, with where each was read, and its end. */
    public record OldestRead<P>(List<Released<P>> released, long intervalEndMs) {}

    /**
     * As {@link #releaseOldest}, with the partition and offset each change was read at. Empty too
     * while a partition {@link #lagging() lags}: what it has not yet been read of that interval or
     * an earlier one would be written after the later changes of the others.
     */
    public OldestRead<P> releaseOldestRead() {
        long end = oldestEnd();
        List<Released<P>> out = new ArrayList<>();
        if (end == Long.MAX_VALUE || !lagging(end).isEmpty()) {
            return new OldestRead<>(out, end);
        }
        for (var e : partitions.entrySet()) {
            PartitionState s = e.getValue();
            for (Iterator<Held> it = s.held.iterator(); it.hasNext(); ) {
                Held h = it.next();
                if (h.change().intervalEndMs() == end) {
                    out.add(new Released<>(e.getKey(), h.offset(), h.change()));
                    heldBytes -= h.bytes();
                    uncommitted(s, h);
                    it.remove();
                }
            }
        }
        return new OldestRead<>(out, end);
    }

    private long oldestEnd() {
        long end = Long.MAX_VALUE;
        for (PartitionState s : partitions.values()) {
            for (Held h : s.held) {
                end = Math.min(end, h.change().intervalEndMs());
            }
        }
        return end;
    }

    /**
     * The partitions not yet read through the earliest interval held: until they are, it cannot be
     * released early (read them on, the others paused). Empty when nothing is held.
     */
    public Set<P> lagging() {
        long end = oldestEnd();
        return end == Long.MAX_VALUE ? Set.of() : lagging(end);
    }

    private Set<P> lagging(long end) {
        Set<P> out = new HashSet<>();
        partitions.forEach(
                (p, s) -> {
                    if (s.readThrough() < end) {
                        out.add(p);
                    }
                });
        return out;
    }

    /** The warehouse transaction holding the released changes committed. */
    public void committed() {
        for (PartitionState s : partitions.values()) {
            s.streamedFrom = -1;
        }
    }

    /**
     * Per partition, the offset to commit: the first change still held, or past everything read.
     * Partitions with nothing read yet are absent.
     */
    public Map<P, Long> committableOffsets() {
        Map<P, Long> out = new LinkedHashMap<>();
        partitions.forEach(
                (p, s) -> {
                    long o = -1;
                    if (!s.held.isEmpty()) {
                        o = s.held.get(0).offset();
                    } else if (s.nextOffset >= 0) {
                        o = s.nextOffset;
                    }
                    if (s.streamedFrom >= 0 && (o < 0 || s.streamedFrom < o)) {
                        o = s.streamedFrom;
                    }
                    if (o >= 0) {
                        out.put(p, o);
                    }
                });
        return out;
    }

    /** Bytes of the records whose changes are held. */
    public long heldBytes() {
        return heldBytes;
    }

    /** How many changes are held. */
    public int held() {
        int n = 0;
        for (PartitionState s : partitions.values()) {
            n += s.held.size();
        }
        return n;
    }
}
