package dev.cdclab.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.cdclab.load.dialect.PostgresDialect;
import dev.cdclab.load.workload.Op;
import dev.cdclab.load.workload.PlannedStatement;
import dev.cdclab.load.workload.TxPlan;
import dev.cdclab.load.workload.Workload;
import dev.cdclab.load.workload.WorkloadOptions;
import dev.cdclab.load.workload.Workloads;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every workload plans the same statements for the same seed, and plans what it promises. */
class WorkloadPlansTest {
    private static Workload w(String name, long seed) {
        return Workloads.create(
                name,
                new PostgresDialect(),
                new WorkloadOptions(seed, 10_000, name.startsWith("T1") ? 2_000 : -1, -1, 100));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "mix",
                "hot",
                "transfer",
                "W1",
                "W2",
                "W3",
                "W4",
                "W5",
                "W6",
                "W7",
                "R1",
                "T1",
                "T1-single"
            })
    void sameSeedSameStatementsDifferentSeedOtherStatements(String name) {
        Workload a = w(name, 5);
        Workload b = w(name, 5);
        Workload c = w(name, 6);
        int differ = 0;
        for (long i = 0; i < 50; i++) {
            TxPlan pa = a.plan(i);
            assertThat(List.copyOf(pa.statements())).isEqualTo(List.copyOf(b.plan(i).statements()));
            if (!List.copyOf(pa.statements()).equals(List.copyOf(c.plan(i).statements()))) {
                differ++;
            }
        }
        assertThat(differ).as("another seed changes the statements").isGreaterThan(25);
    }

    private static int rows(PlannedStatement s) {
        return s.timestampStride() > 0 ? s.params().length / s.timestampStride() : 1;
    }

    @Test
    void smallInsertsFillThePapersColumnCountsAndW4LeavesTheTriggerColumn() {
        PlannedStatement w1 = w("W1", 1).plan(0).statements().get(0);
        PlannedStatement w2 = w("W2", 1).plan(0).statements().get(0);
        PlannedStatement w4 = w("W4", 1).plan(0).statements().get(0);
        assertThat(w1.params()).hasSize(8);
        assertThat(w2.params()).hasSize(10);
        assertThat(w4.params()).hasSize(8);
        assertThat(w1.sql()).contains("c02").contains("INSERT INTO wide");
        assertThat(w4.sql()).doesNotContain("c02");
        assertThat(w1.triggeredChanges()).isZero();
        assertThat(w4.triggeredChanges()).isEqualTo(1);
        assertThat(w2.sql()).contains("INSERT INTO narrow");
    }

    @Test
    void transferMovesAnAmountBetweenTwoAccountsLockedInKeyOrder() {
        Workload t = w("transfer", 3);
        for (long i = 0; i < 500; i++) {
            List<PlannedStatement> s = t.plan(i).statements();
            assertThat(s).hasSize(2).allMatch(p -> p.op() == Op.UPDATE);
            long first = (Long) s.get(0).params()[2];
            long second = (Long) s.get(1).params()[2];
            assertThat(first).isLessThan(second).isBetween(1L, 10_000L);
            assertThat(second).isBetween(1L, 10_000L);
            java.math.BigDecimal a = (java.math.BigDecimal) s.get(0).params()[0];
            java.math.BigDecimal b = (java.math.BigDecimal) s.get(1).params()[0];
            assertThat(a.add(b).signum()).as("the total does not change").isZero();
            assertThat(a.signum()).isNotZero();
        }
    }

    @Test
    void w3UpdatesThreeColumnsOfOneRow() {
        PlannedStatement s = w("W3", 1).plan(3).statements().get(0);
        assertThat(s.op()).isEqualTo(Op.UPDATE);
        assertThat(s.sql()).contains("c01 = ?, c03 = ?, c05 = ?").endsWith("WHERE id = ?");
    }

    @Test
    void w5MixesSelectsInsertsAndUpdates() {
        Map<String, Integer> types = new HashMap<>();
        Workload w = w("W5", 1);
        for (long i = 0; i < 10_000; i++) {
            types.merge(w.plan(i).type(), 1, Integer::sum);
        }
        assertThat(types.get("select") / 10_000.0).isCloseTo(0.40, within(0.02));
        assertThat(types.get("insert") / 10_000.0).isCloseTo(0.30, within(0.02));
        assertThat(types.get("update") / 10_000.0).isCloseTo(0.30, within(0.02));
    }

    @Test
    void w6UpdatesBetweenTenAndTwoThousandRows() {
        Workload w = w("W6", 1);
        long min = Long.MAX_VALUE;
        long max = 0;
        for (long i = 0; i < 5_000; i++) {
            Object[] p = w.plan(i).statements().get(0).params();
            long n = (Long) p[2] - (Long) p[1] + 1;
            min = Math.min(min, n);
            max = Math.max(max, n);
        }
        assertThat(min).isGreaterThanOrEqualTo(10).isLessThan(60);
        assertThat(max).isLessThanOrEqualTo(2_000).isGreaterThan(1_900);
    }

    @Test
    void w7InsertsAThousandRowsPerTransaction() {
        assertThat(w("W7", 1).plan(2).statements().stream().mapToInt(WorkloadPlansTest::rows).sum())
                .isEqualTo(1_000);
    }

    @Test
    void r1HasTheReplicationMixAndKilobyteRows() {
        Workload w = w("R1", 1);
        Map<String, Integer> types = new HashMap<>();
        for (long i = 0; i < 20_000; i++) {
            TxPlan p = w.plan(i);
            types.merge(p.type(), 1, Integer::sum);
            if (p.type().equals("insert")) {
                assertThat(((String) p.statements().get(0).params()[3]).length()).isEqualTo(960);
            }
        }
        assertThat(types.get("insert") / 20_000.0).isCloseTo(0.30, within(0.015));
        assertThat(types.get("update") / 20_000.0).isCloseTo(0.60, within(0.015));
        assertThat(types.get("delete") / 20_000.0).isCloseTo(0.10, within(0.015));
    }

    @Test
    void t1PutsTxSizeRowsInOneTransactionAndT1SingleOne() {
        TxPlan big = w("T1", 1).plan(1);
        assertThat(big.statements().stream().mapToInt(WorkloadPlansTest::rows).sum())
                .isEqualTo(2_000);
        assertThat(big.statements().get(0).params()[0]).isEqualTo(2_001L);
        TxPlan one = w("T1-single", 1).plan(7);
        assertThat(one.statements()).hasSize(1);
        assertThat(rows(one.statements().get(0))).isEqualTo(1);
        assertThat(one.statements().get(0).params()[0]).isEqualTo(8L);
    }
}
