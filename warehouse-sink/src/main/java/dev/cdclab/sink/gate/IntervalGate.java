package dev.cdclab.sink.gate;

import dev.cdclab.change.IntervalMarker;
import dev.cdclab.change.NetChange;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Holds net changes until every Streams task has closed their interval on every partition this sink
 * reads, so the warehouse moves from one interval boundary to the next in one transaction and never
 * shows part of a source transaction.
 *
 * @param <P> partition identifier
 */
public final class IntervalGate<P> {
    private final Map<P, PartitionState> partitions = new LinkedHashMap<>();

    private static final class PartitionState {
        final List<Held> held = new ArrayList<>();
        final Map<Integer, Long> closedThrough = new HashMap<>();
        int tasks = -1;
        long nextOffset = -1;
    }

    private record Held(long offset, NetChange change) {}

    /** Starts tracking newly assigned partitions. */
    public void assign(Collection<P> assigned) {
        for (P p : assigned) {
            partitions.putIfAbsent(p, new PartitionState());
        }
    }

    /** Forgets revoked partitions; their records will be read again by their next owner. */
    public void revoke(Collection<P> revoked) {
        for (P p : revoked) {
            partitions.remove(p);
        }
    }

    /** Adds a net change read at {@code offset}. */
    public void add(P partition, long offset, NetChange change) {
        PartitionState s = partitions.computeIfAbsent(partition, k -> new PartitionState());
        s.held.add(new Held(offset, change));
        s.nextOffset = Math.max(s.nextOffset, offset + 1);
    }

    /** Passes over a record read at {@code offset} that carries nothing to apply. */
    public void skip(P partition, long offset) {
        PartitionState s = partitions.computeIfAbsent(partition, k -> new PartitionState());
        s.nextOffset = Math.max(s.nextOffset, offset + 1);
    }

    /** Records a marker read at {@code offset}. */
    public void mark(P partition, long offset, IntervalMarker marker) {
        PartitionState s = partitions.computeIfAbsent(partition, k -> new PartitionState());
        if (marker.tasks() != s.tasks) {
            // the Streams app was rescaled: markers of tasks that no longer exist do not count
            s.tasks = marker.tasks();
            s.closedThrough.keySet().removeIf(t -> t >= marker.tasks());
        }
        s.closedThrough.merge(marker.task(), marker.closedThroughMs(), Math::max);
        s.nextOffset = Math.max(s.nextOffset, offset + 1);
    }

    /**
     * Commit-time bound through which every assigned partition is complete; {@link Long#MIN_VALUE}
     * until every task has marked every partition.
     */
    public long bound() {
        if (partitions.isEmpty()) {
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

    /** Removes and returns the held changes whose interval ends at or before {@code bound}. */
    public List<NetChange> release(long bound) {
        List<NetChange> out = new ArrayList<>();
        for (PartitionState s : partitions.values()) {
            for (Iterator<Held> it = s.held.iterator(); it.hasNext(); ) {
                Held h = it.next();
                if (h.change().intervalEndMs() <= bound) {
                    out.add(h.change());
                    it.remove();
                }
            }
        }
        return out;
    }

    /**
     * Per partition, the offset to commit: the first change still held, or past everything read.
     * Partitions with nothing read yet are absent.
     */
    public Map<P, Long> committableOffsets() {
        Map<P, Long> out = new LinkedHashMap<>();
        partitions.forEach(
                (p, s) -> {
                    if (!s.held.isEmpty()) {
                        out.put(p, s.held.get(0).offset());
                    } else if (s.nextOffset >= 0) {
                        out.put(p, s.nextOffset);
                    }
                });
        return out;
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
