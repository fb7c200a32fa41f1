package dev.cdclab.streams.topology;

import static dev.cdclab.streams.testing.DebeziumEvents.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetOperation;
import dev.cdclab.streams.testing.TopologyHarness;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random multi-key histories, cut into random transactions and intervals: the net changes applied
 * to the state before give the state after; no key appears twice in one interval; every net change
 * covers exactly the raw changes of its key committed in its interval, so no transaction is split.
 */
class NetChangeProperties {
    private static final long T0 = 1_700_000_000_000L;
    private static final int KEYS = 6;

    /** One generated history: initial presence, transactions of (key, op-choice) steps. */
    record History(
            List<Boolean> initiallyPresent,
            List<List<int[]>> transactions,
            List<Integer> gapsMs,
            long intervalMs,
            List<Boolean> heartbeatAfter) {}

    @Provide
    Arbitrary<History> histories() {
        Arbitrary<List<Boolean>> present = Arbitraries.of(true, false).list().ofSize(KEYS);
        Arbitrary<int[]> step =
                Combinators.combine(
                                Arbitraries.integers().between(1, KEYS),
                                Arbitraries.integers().between(0, 9))
                        .as((k, choice) -> new int[] {k, choice});
        Arbitrary<List<List<int[]>>> txs =
                step.list().ofMinSize(1).ofMaxSize(4).list().ofMinSize(1).ofMaxSize(25);
        return txs.flatMap(
                t ->
                        Combinators.combine(
                                        present,
                                        Arbitraries.integers()
                                                .between(0, 700)
                                                .list()
                                                .ofSize(t.size()),
                                        Arbitraries.of(0L, 100L, 250L, 1000L),
                                        Arbitraries.of(true, false, false, false)
                                                .list()
                                                .ofSize(t.size()))
                                .as(
                                        (p, gaps, interval, hb) ->
                                                new History(p, t, gaps, interval, hb)));
    }

    /** What the model knows of one raw change. */
    record Raw(int key, long lsn, long commitMs, long txId) {}

    /** Open-interval heap budgets: all on the heap, all in the overflow store, or some of each. */
    @Provide
    Arbitrary<Long> heapBytes() {
        return Arbitraries.of(32L * 1024 * 1024, 0L, 600L);
    }

    @Property(tries = 150)
    void netChangesReproduceTheHistory(
            @ForAll("histories") History history, @ForAll("heapBytes") long heapBytes) {
        Map<String, String> cfg =
                Map.of(
                        "interval",
                        history.intervalMs() + "ms",
                        "grace",
                        "50ms",
                        "state.store",
                        "in_memory",
                        "state.heap.bytes",
                        Long.toString(heapBytes));
        try (TopologyHarness h = new TopologyHarness(cfg)) {
            Map<Integer, String> before = new HashMap<>();
            for (int k = 1; k <= KEYS; k++) {
                if (history.initiallyPresent().get(k - 1)) {
                    before.put(k, "initial");
                }
            }
            Map<Integer, String> state = new HashMap<>(before);
            List<Raw> raws = new ArrayList<>();
            long commit = T0 + 10;
            long tx = 100;
            int value = 0;
            for (int t = 0; t < history.transactions().size(); t++) {
                commit += history.gapsMs().get(t);
                tx++;
                for (int[] step : history.transactions().get(t)) {
                    int k = step[0];
                    long lsn;
                    if (!state.containsKey(k)) {
                        String name = "v" + (++value);
                        lsn = h.change('c', null, row(k, name, value), tx, commit);
                        state.put(k, name);
                    } else if (step[1] < 6) {
                        String name = "v" + (++value);
                        lsn = h.change('u', null, row(k, name, value), tx, commit);
                        state.put(k, name);
                    } else {
                        lsn = h.change('d', Map.of("id", k), null, tx, commit);
                        state.remove(k);
                    }
                    raws.add(new Raw(k, lsn, commit, tx));
                }
                if (history.heartbeatAfter().get(t)) {
                    h.heartbeat(commit + 1);
                }
            }
            h.heartbeat(commit + 5000);
            List<NetChange> out = h.changes();

            if (history.intervalMs() == 0) {
                // a window per transaction: every raw change passed on, in order, in its
                // transaction's window (the sink folds them); applied in order they give the state
                assertThat(out).hasSize(raws.size());
                Map<Integer, String> applied = new HashMap<>(before);
                Map<Long, Long> windowOfTx = new HashMap<>();
                for (int i = 0; i < out.size(); i++) {
                    NetChange c = out.get(i);
                    Raw r = raws.get(i);
                    assertThat(c.lastPosition()).isEqualTo(h.position(r.txId(), r.lsn()));
                    assertThat(c.transaction()).isEqualTo(Long.toString(r.txId()));
                    Long w = windowOfTx.putIfAbsent(r.txId(), c.intervalStartMs());
                    assertThat(w == null || w == c.intervalStartMs())
                            .as("one window per transaction")
                            .isTrue();
                    if (i > 0) {
                        assertThat(c.intervalStartMs())
                                .isGreaterThanOrEqualTo(out.get(i - 1).intervalStartMs());
                    }
                    int k = c.key().get("id").asInt();
                    if (c.op() == NetOperation.DELETE) {
                        applied.remove(k);
                    } else {
                        applied.put(k, c.after().get("name").asText());
                    }
                }
                assertThat(applied).isEqualTo(state);
                assertThat(h.stats().late()).isZero();
                return;
            }

            // no key twice in one interval
            Set<String> seen = new HashSet<>();
            for (NetChange c : out) {
                String interval =
                        history.intervalMs() == 0
                                ? c.intervalStartMs() + "/" + c.transaction()
                                : Long.toString(c.intervalStartMs());
                assertThat(seen.add(interval + "/" + c.key().get("id").asInt()))
                        .as("key %s twice in interval %s", c.key(), interval)
                        .isTrue();
            }

            // each net change covers exactly its key's raw changes inside its interval
            for (NetChange c : out) {
                int k = c.key().get("id").asInt();
                for (Raw r : raws) {
                    if (r.key() != k) {
                        continue;
                    }
                    String pos = h.position(r.txId(), r.lsn());
                    boolean inLsnRange =
                            pos.compareTo(c.firstPosition()) >= 0
                                    && pos.compareTo(c.lastPosition()) <= 0;
                    // a zero interval: a window per transaction
                    boolean inInterval =
                            history.intervalMs() == 0
                                    ? Long.toString(r.txId()).equals(c.transaction())
                                    : r.commitMs() >= c.intervalStartMs()
                                            && r.commitMs() < c.intervalEndMs();
                    assertThat(inLsnRange)
                            .as(
                                    "raw %s vs net change %s..%s [%s,%s)",
                                    r,
                                    c.firstPosition(),
                                    c.lastPosition(),
                                    c.intervalStartMs(),
                                    c.intervalEndMs())
                            .isEqualTo(inInterval);
                }
            }

            // applying the net changes in interval order to the state before gives the state after
            TreeMap<Long, List<NetChange>> byInterval = new TreeMap<>();
            for (NetChange c : out) {
                long order = c.intervalStartMs();
                byInterval.computeIfAbsent(order, x -> new ArrayList<>()).add(c);
            }
            Map<Integer, String> applied = new HashMap<>(before);
            for (List<NetChange> interval : byInterval.values()) {
                for (NetChange c : interval) {
                    int k = c.key().get("id").asInt();
                    if (c.op() == NetOperation.INSERT) {
                        assertThat(applied).as("insert of present key %s", k).doesNotContainKey(k);
                        applied.put(k, c.after().get("name").asText());
                    } else if (c.op() == NetOperation.UPDATE) {
                        assertThat(applied).as("update of absent key %s", k).containsKey(k);
                        applied.put(k, c.after().get("name").asText());
                    } else {
                        assertThat(applied).as("delete of absent key %s", k).containsKey(k);
                        applied.remove(k);
                    }
                }
            }
            assertThat(applied).isEqualTo(state);
            assertThat(h.stats().late()).isZero();
            assertThat(Objects.requireNonNull(h.stats().rawChanges())).isEqualTo(raws.size());
        }
    }
}
