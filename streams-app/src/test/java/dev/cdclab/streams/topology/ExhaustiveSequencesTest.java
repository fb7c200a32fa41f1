package dev.cdclab.streams.topology;

import static dev.cdclab.streams.testing.DebeziumEvents.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetOperation;
import dev.cdclab.streams.testing.TopologyHarness;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every valid operation sequence of length 1 to 4 on one key inside one interval, from a row that
 * is absent and from one that exists, against {@link ReferenceModel}. Each sequence runs on its own
 * key, all in one interval.
 */
class ExhaustiveSequencesTest {
    private static final long T0 = 1_700_000_000_000L;

    record Case(boolean existedBefore, List<Character> ops) {}

    static List<Case> allSequences() {
        List<Case> out = new ArrayList<>();
        for (boolean before : new boolean[] {false, true}) {
            extend(before, before, new ArrayList<>(), out);
        }
        return out;
    }

    private static void extend(boolean start, boolean exists, List<Character> ops, List<Case> out) {
        if (!ops.isEmpty()) {
            out.add(new Case(start, List.copyOf(ops)));
        }
        if (ops.size() == 4) {
            return;
        }
        List<Character> next = exists ? List.of('U', 'D') : List.of('I');
        for (char op : next) {
            ops.add(op);
            extend(start, op != 'D', ops, out);
            ops.remove(ops.size() - 1);
        }
    }

    @Test
    void everySequenceMatchesTheReferenceModel() {
        List<Case> cases = allSequences();
        assertThat(cases)
                .as("11 sequences from an absent row, 18 from an existing one")
                .hasSize(29);
        try (TopologyHarness h =
                new TopologyHarness(
                        Map.of("interval", "1s", "grace", "100ms", "state.store", "in_memory"))) {
            long tx = 1;
            long commit = T0 + 1;
            for (int k = 0; k < cases.size(); k++) {
                int id = k + 1;
                List<Character> ops = cases.get(k).ops();
                for (int i = 0; i < ops.size(); i++) {
                    String name = "k" + id + "v" + i;
                    switch (ops.get(i)) {
                        case 'I' -> h.change('c', null, row(id, name, i), tx++, commit++);
                        case 'U' -> h.change('u', null, row(id, name, i), tx++, commit++);
                        default -> h.change('d', Map.of("id", id), null, tx++, commit++);
                    }
                }
            }
            h.heartbeat(T0 + 2000);
            Map<Integer, NetChange> byKey = new HashMap<>();
            for (NetChange c : h.changes()) {
                assertThat(byKey.put(c.key().get("id").asInt(), c))
                        .as("one change per key and interval")
                        .isNull();
            }
            for (int k = 0; k < cases.size(); k++) {
                Case c = cases.get(k);
                NetOperation expected = ReferenceModel.netOperation(c.existedBefore(), c.ops());
                NetChange actual = byKey.get(k + 1);
                String label = (c.existedBefore() ? "exists " : "absent ") + c.ops();
                if (expected == null) {
                    assertThat(actual).as(label).isNull();
                    continue;
                }
                assertThat(actual).as(label).isNotNull();
                assertThat(actual.op()).as(label).isEqualTo(expected);
                assertThat(actual.rawChanges()).as(label).isEqualTo(c.ops().size());
                int image = ReferenceModel.lastImage(c.ops());
                if (image < 0) {
                    assertThat(actual.after()).as(label).isNull();
                } else {
                    assertThat(actual.after().get("name").asText())
                            .as(label)
                            .isEqualTo("k" + (k + 1) + "v" + image);
                }
            }
        }
    }
}
