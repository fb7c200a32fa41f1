package dev.cdclab.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.cdclab.load.dialect.PostgresDialect;
import dev.cdclab.load.workload.TxPlan;
import dev.cdclab.load.workload.Workload;
import dev.cdclab.load.workload.WorkloadOptions;
import dev.cdclab.load.workload.Workloads;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The default workload is deterministic per seed and has its promised transaction mix. */
class MixWorkloadTest {
    private static Workload mix(long seed) {
        return Workloads.create(
                "mix", new PostgresDialect(), new WorkloadOptions(seed, 1000, -1, -1, 100));
    }

    @Test
    void sameSeedSameStatementsWhateverTheOrder() {
        Workload a = mix(7);
        Workload b = mix(7);
        for (long i = 0; i < 2000; i++) {
            assertThat(a.plan(i)).isEqualTo(b.plan(i));
        }
        // backwards: plans do not depend on what was planned before
        for (long i = 1999; i >= 0; i--) {
            assertThat(b.plan(i)).isEqualTo(a.plan(i));
        }
    }

    @Test
    void differentSeedsDiffer() {
        Workload a = mix(1);
        Workload b = mix(2);
        int same = 0;
        for (long i = 0; i < 200; i++) {
            if (a.plan(i).equals(b.plan(i))) {
                same++;
            }
        }
        assertThat(same).isLessThan(20);
    }

    @Test
    void transactionMixHasThePromisedShape() {
        Workload w = mix(42);
        Map<String, Integer> types = new HashMap<>();
        int n = 20_000;
        for (long i = 0; i < n; i++) {
            TxPlan p = w.plan(i);
            types.merge(p.type(), 1, Integer::sum);
            if (p.type().equals("new_order")) {
                assertThat(p.statements()).hasSize(3);
                int lines = p.statements().get(1).params().length / 6;
                assertThat(lines).isBetween(1, 4);
            }
        }
        assertThat(types.get("new_order") / (double) n).isCloseTo(0.40, within(0.02));
        assertThat(types.get("payment") / (double) n).isCloseTo(0.30, within(0.02));
        assertThat(types.get("delivery") / (double) n).isCloseTo(0.15, within(0.02));
        assertThat(types.get("cancel") / (double) n).isCloseTo(0.15, within(0.02));
    }

    @Test
    void unknownWorkloadNamesTheChoices() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () ->
                                Workloads.create(
                                        "nope",
                                        new PostgresDialect(),
                                        new WorkloadOptions(1, 1, 1, 1, 1)))
                .hasMessageStartingWith("unknown workload 'nope'; choose one of mix");
    }
}
