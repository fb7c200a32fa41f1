package dev.cdclab.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class ComparisonTest {

    private static RateLadder.Step step(double target, double changesPerSecond, boolean keptUp) {
        return step(target, target, changesPerSecond, keptUp);
    }

    private static RateLadder.Step step(
            double target, double txPerSecond, double changesPerSecond, boolean keptUp) {
        Histogram h = new Histogram(3);
        h.recordValue(80);
        h.recordValue(150);
        return new RateLadder.Step(
                false,
                target,
                txPerSecond,
                changesPerSecond,
                (long) (changesPerSecond * 10),
                h,
                h,
                1.5,
                keptUp,
                new CpuMeter.Usage(10, 6, 4, 10, Map.of(), 3),
                10,
                -1);
    }

    private static Comparison.ArmResult arm(String key, double... sustainedChangesPerSecond) {
        List<RateLadder.Step> steps =
                java.util.Arrays.stream(sustainedChangesPerSecond)
                        .mapToObj(c -> step(c / 3.5, c, true))
                        .toList();
        return new Comparison.ArmResult(
                new Comparison.Arm(key, key + " pipeline", key),
                new RateLadder.Result(step(100, 350, true), steps),
                true,
                null,
                5,
                null,
                Map.of());
    }

    @Test
    void theRatioIsOfTheHighestSustainedRates() {
        Comparison.Result r =
                new Comparison.Result(
                        List.of(
                                arm("baseline", 700, 1400),
                                arm("ours", 2100),
                                arm("ours_duckdb", 700)));
        assertThat(r.ratio()).isEqualTo(1.5);
        assertThat(r.ratioDuckDb()).isEqualTo(0.5);
        assertThat(r.ok()).isTrue();
        assertThat(r.asMap())
                .containsEntry("ratio", 1.5)
                .containsKeys("baseline", "ours", "ours_duckdb");
    }

    @Test
    void printsTheShareOfTheProcessesThatEndedInTheFixedStepAndTheRestPerArm() {
        Comparison.Result r =
                new Comparison.Result(
                        List.of(arm("baseline", 700), arm("ours", 1400), arm("ours_duckdb", 700)));

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        r.print(100, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String table = bytes.toString(StandardCharsets.UTF_8);

        // the fixed step: 3,500 changes, 10 s of CPU of which 3 s in processes that ended
        assertThat(table)
                .contains("2857 (JVM 1714, PG 1143)")
                .contains(
                        "processes that ended in the step (mostly the load's source sessions), in"
                                + " the order above: 857 / 857 / 857; the rest: 2000 / 2000 /"
                                + " 2000");
    }

    @Test
    void aStepTheWarehouseKeptUpWithButTheSourceFellShortOfCountsAtTheRateTheSourceReached() {
        RateLadder.Step reached = step(800, 800, 2_900, true);
        RateLadder.Step sourceShort = step(1_600, 1_260, 4_550, true);
        RateLadder.Step behind = step(1_200, 1_200, 4_350, false);
        assertThat(reached.sustained()).isTrue();
        assertThat(reached.sourceLimited()).isFalse();
        assertThat(sourceShort.sustained()).isFalse();
        assertThat(sourceShort.sourceLimited()).isTrue();
        assertThat(behind.sustained()).isFalse();
        assertThat(behind.sourceLimited()).isFalse();
        assertThat(StepTable.verdict(sourceShort)).isEqualTo("source-limited");
        assertThat(StepTable.verdict(behind)).isEqualTo("no");
        assertThat(new RateLadder.Result(null, List.of(reached, sourceShort)).best())
                .contains(sourceShort);
        assertThat(new RateLadder.Result(null, List.of(reached, behind)).best()).contains(reached);
        assertThat(new RateLadder.Result(null, List.of(reached, behind)).lowerBound()).isFalse();
        // the warehouse kept up at the last step too: the higher rate it sustained is a bound
        RateLadder.Result endedShort =
                new RateLadder.Result(null, List.of(reached, step(1_600, 700, 2_540, true)));
        assertThat(endedShort.best()).contains(reached);
        assertThat(endedShort.lowerBound()).isTrue();

        Comparison.ArmResult limited =
                new Comparison.ArmResult(
                        new Comparison.Arm("ours", "ours", "ours"),
                        new RateLadder.Result(step(100, 350, true), List.of(reached, sourceShort)),
                        true,
                        null,
                        5,
                        null,
                        Map.of());
        Comparison.Result r =
                new Comparison.Result(
                        List.of(arm("baseline", 2_900), limited, arm("ours_duckdb", 2_900)));
        assertThat(r.ratio()).isEqualTo(1.569);
        assertThat(r.asMap().get("ours").toString()).contains("sustained_source_limited=true");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        r.print(100, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertThat(bytes.toString(StandardCharsets.UTF_8))
                .contains(">= 4,550")
                .contains(">= 1.57x into PostgreSQL, 1.00x into DuckDB")
                .contains("the source, sharing the machine, fell short");
        assertThat(r.asMap())
                .containsEntry("ratio_bound", "at_least")
                .containsEntry("ratio_duckdb_bound", "exact");
    }

    @Test
    void aRatioAgainstASourceLimitedStandardPipelineIsABoundOrNothing() {
        RateLadder.Step sourceShort = step(1_600, 1_240, 4_490, true);
        RateLadder.Step pipelineLimit = step(800, 800, 2_900, true);
        Comparison.Result r =
                new Comparison.Result(
                        List.of(
                                ladder("baseline", sourceShort),
                                ladder("ours", step(1_200, 1_125, 4_085, true)),
                                ladder("ours_duckdb", pipelineLimit)));

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        r.print(100, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertThat(bytes.toString(StandardCharsets.UTF_8))
                .contains(
                        "not measured (both source-limited) into PostgreSQL, <= 0.65x into"
                                + " DuckDB");
        assertThat(r.asMap())
                .containsEntry("ratio_bound", "undetermined")
                .containsEntry("ratio_duckdb_bound", "at_most");
    }

    private static Comparison.ArmResult ladder(String key, RateLadder.Step last) {
        return new Comparison.ArmResult(
                new Comparison.Arm(key, key, key),
                new RateLadder.Result(step(100, 350, true), List.of(last)),
                true,
                null,
                5,
                null,
                Map.of());
    }

    private static Comparison.ArmResult loaded(String key, double loadSeconds) {
        Comparison.ArmResult a = arm(key, 700);
        return new Comparison.ArmResult(
                a.arm(),
                a.ladder(),
                a.verified(),
                a.error(),
                a.startSeconds(),
                new Comparison.InitialLoad(5_000_000, loadSeconds),
                a.settings());
    }

    @Test
    void theInitialLoadSpeedupIsTheStandardPipelinesSecondsOverOurs() {
        Comparison.Result r =
                new Comparison.Result(
                        List.of(
                                loaded("baseline", 200),
                                loaded("ours", 25),
                                loaded("ours_duckdb", 40)));
        assertThat(r.initialLoadSpeedup()).isEqualTo(8.0);
        assertThat(r.initialLoadSpeedupDuckDb()).isEqualTo(5.0);
        assertThat(r.asMap())
                .containsEntry("initial_load_speedup", 8.0)
                .containsEntry("initial_load_speedup_duckdb", 5.0);
        assertThat(r.asMap().get("ours").toString())
                .contains("initial_load_s=25.0")
                .contains("initial_load_rows_per_s=200000");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        r.print(100, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertThat(bytes.toString(StandardCharsets.UTF_8))
                .contains(
                        "initial load cdc-lab/standard, times faster: 8.00 into PostgreSQL, 5.00"
                                + " into DuckDB");
        // an arm without a load has no speedup
        assertThat(
                        new Comparison.Result(
                                        List.of(
                                                arm("baseline", 700),
                                                loaded("ours", 25),
                                                arm("d", 700)))
                                .initialLoadSpeedup())
                .isNull();
    }

    private static Comparison.ArmResult drained(String key, double drainSeconds) {
        Comparison.ArmResult a = arm(key, 700);
        return new Comparison.ArmResult(
                a.arm(),
                a.ladder(),
                a.verified(),
                a.error(),
                a.startSeconds(),
                null,
                a.settings(),
                new BacklogDrain.Drain(
                        1_000_000,
                        120,
                        drainSeconds,
                        new CpuMeter.Usage(drainSeconds * 2, drainSeconds, drainSeconds / 2)));
    }

    @Test
    void theDrainRatioIsOfTheRatesTheSameBacklogDrainedAt() {
        Comparison.Result r =
                new Comparison.Result(
                        List.of(
                                drained("baseline", 200),
                                drained("ours", 80),
                                drained("ours_duckdb", 50)));
        assertThat(r.drainRatio()).isEqualTo(2.5);
        assertThat(r.drainRatioDuckDb()).isEqualTo(4.0);
        assertThat(r.asMap())
                .containsEntry("drain_ratio", 2.5)
                .containsEntry("drain_ratio_duckdb", 4.0);
        assertThat(r.asMap().get("ours").toString())
                .contains("drain_s=80.0")
                .contains("drain_changes_per_s=12500")
                .contains("cpu_s_per_million_changes_machine=160.0");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        r.print(100, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertThat(bytes.toString(StandardCharsets.UTF_8))
                .contains("ours 1,000,000 changes in 80.00 s (12,500 changes/s")
                .contains("drain rate cdc-lab/standard: 2.50x into PostgreSQL, 4.00x into DuckDB");
        // without the phase: no ratio, and no line
        Comparison.Result none =
                new Comparison.Result(
                        List.of(arm("baseline", 700), drained("ours", 80), arm("d", 700)));
        assertThat(none.drainRatio()).isNull();
        assertThat(none.asMap()).containsEntry("drain_ratio", null);
    }

    @Test
    void anArmThatFailedHasNoRatioAndFailsTheComparison() {
        Comparison.ArmResult failed =
                new Comparison.ArmResult(
                        new Comparison.Arm("ours", "ours", "ours"),
                        null,
                        null,
                        "port in use",
                        1,
                        null,
                        Map.of());
        Comparison.Result r =
                new Comparison.Result(
                        List.of(arm("baseline", 700), failed, arm("ours_duckdb", 700)));
        assertThat(r.ratio()).isNull();
        assertThat(r.ratioDuckDb()).isEqualTo(1.0);
        assertThat(r.ok()).isFalse();

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        r.print(100, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String table = bytes.toString(StandardCharsets.UTF_8);
        assertThat(table)
                .contains("failed")
                .contains("80 / 150")
                .contains("n/a into PostgreSQL, 1.00x into DuckDB");
    }
}
