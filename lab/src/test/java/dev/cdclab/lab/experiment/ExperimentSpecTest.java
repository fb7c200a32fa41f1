package dev.cdclab.lab.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdclab.config.ConfigException;
import dev.cdclab.lab.experiment.ExperimentSpec.Scale;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ExperimentSpecTest {
    private static final Path FIXTURE = Path.of("src/test/resources/experiments/two-factors.yaml");

    @Test
    void cellsAreTheCartesianProductTimesRepetitions() {
        ExperimentSpec spec = ExperimentSpec.read(FIXTURE, Scale.FILE);
        List<ExperimentCell> cells = spec.cells();
        assertThat(cells).hasSize(2 * 3 * 2);
        assertThat(new HashSet<>(cells.stream().map(ExperimentCell::id).toList())).hasSize(12);
        ExperimentCell first = cells.get(0);
        assertThat(first.levels())
                .containsEntry("streams.interval", "250ms")
                .containsEntry("capture.max.batch.size", "256");
        assertThat(first.settings())
                .containsEntry("workload.rate", "300")
                .containsEntry("capture.max.queue.size", "65536");
        assertThat(cells.get(1).repetition()).isEqualTo(2);
        assertThat(cells.get(11).levels())
                .containsEntry("streams.interval", "1s")
                .containsEntry("capture.max.batch.size", "16384");
        assertThat(spec.phases().measure()).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void quickScaleShrinksPhasesThreadsAndPrefillAndTakesTheFilesOverrides() {
        ExperimentSpec spec = ExperimentSpec.read(FIXTURE, Scale.QUICK);
        assertThat(spec.phases().measure()).isEqualTo(ExperimentSpec.QUICK_MEASURE);
        assertThat(spec.phases().warmup()).isEqualTo(ExperimentSpec.QUICK_WARMUP);
        assertThat(spec.phases().drain()).isEqualTo(Duration.ofMinutes(2));
        assertThat(spec.base())
                .containsEntry("workload.threads", "8")
                .containsEntry("workload.prefill", "10000");
        assertThat(spec.factors().get("capture.max.batch.size")).containsExactly("256", "16384");
        assertThat(spec.cells()).hasSize(2 * 2 * 2);
    }

    @Test
    void paperScaleUsesThePapersSizes() {
        ExperimentSpec spec = ExperimentSpec.read(FIXTURE, Scale.PAPER);
        assertThat(spec.phases().measure()).isEqualTo(Duration.ofSeconds(500));
        assertThat(spec.base())
                .containsEntry("workload.threads", "100")
                .containsEntry("workload.prefill", "390000");
    }

    @Test
    void unknownTopLevelKeyIsRejectedWithASuggestion() {
        assertThatThrownBy(() -> parse("name: x\nfacters: {}\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'facters'")
                .hasMessageContaining("did you mean 'factors'");
    }

    @Test
    void unknownSettingIsRejectedWithASuggestion() {
        assertThatThrownBy(() -> parse("name: x\nfactors:\n  capture.max.batch.sise: [1, 2]\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("capture.max.batch.sise")
                .hasMessageContaining("did you mean 'max.batch.size'");
        assertThatThrownBy(() -> parse("name: x\nworkload: {nme: mix}\n"))
                .hasMessageContaining("workload.nme")
                .hasMessageContaining("did you mean 'name'");
        assertThatThrownBy(() -> parse("name: x\nconstants: {stream.interval: 1s}\n"))
                .hasMessageContaining("stream.interval")
                .hasMessageContaining("starts with workload.");
        assertThatThrownBy(() -> parse("name: x\nconstants: {source.wal_level: minimal}\n"))
                .hasMessageContaining("source.wal_level");
    }

    @Test
    void badValuesNameTheirKeyBeforeAnythingRuns() {
        assertThatThrownBy(
                        () -> parse("name: x\nfactors:\n  capture.max.batch.size: [256, lots]\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("capture.max.batch.size")
                .hasMessageContaining("lots");
        assertThatThrownBy(() -> parse("name: x\nfactors:\n  warehouse: [duckdb, oracle]\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("warehouse")
                .hasMessageContaining("'oracle' is not duckdb or postgresql");
        assertThatThrownBy(() -> parse("name: x\nworkload: {name: W9}\n"))
                .hasMessageContaining("unknown workload 'W9'");
        assertThatThrownBy(() -> parse("name: x\nworkload: {nice: 20}\n"))
                .hasMessageContaining("workload.nice")
                .hasMessageContaining("must be 0..19");
        assertThatThrownBy(() -> parse("name: x\nphases: {measure: 0s}\n"))
                .hasMessageContaining("phases.measure");
        assertThatThrownBy(() -> parse("name: x\nfactors: {streams.interval: [1s, 1s]}\n"))
                .hasMessageContaining("listed twice");
        assertThatThrownBy(() -> parse("name: bad name\n")).hasMessageContaining("'name'");
        assertThatThrownBy(() -> parse("name: x\n  - : [")).hasMessageContaining("not valid YAML");
    }

    @Test
    void conclusionsMustNameFactorsLevelsAndMetrics() {
        String head = "name: x\nfactors: {streams.interval: [250ms, 1s]}\nconclusions:\n";
        assertThatThrownBy(
                        () ->
                                parse(
                                        head
                                                + "  - {metric: latency_p99, expect: lower, when:"
                                                + " {streams.interval: 250ms}, than: {streams.interval: 1s}}\n"))
                .hasMessageContaining("did you mean 'latency_p99_ms'");
        assertThatThrownBy(
                        () ->
                                parse(
                                        head
                                                + "  - {metric: tx_per_s, expect: lower, when:"
                                                + " {streams.interval: 2s}, than: {streams.interval: 1s}}\n"))
                .hasMessageContaining("'2s' is not one of its levels");
        assertThatThrownBy(
                        () ->
                                parse(
                                        head
                                                + "  - {metric: tx_per_s, expect: faster, when:"
                                                + " {streams.interval: 250ms}, than: {streams.interval: 1s}}\n"))
                .hasMessageContaining("lower, higher or similar");
    }

    @Test
    void aMissingFileIsOneLine() {
        assertThatThrownBy(() -> ExperimentSpec.read(Path.of("nope.yaml"), Scale.FILE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("experiment file nope.yaml does not exist");
    }

    static Stream<Path> shippedFiles() throws IOException {
        return Files.list(Path.of("../experiments"))
                .filter(p -> p.toString().endsWith(".yaml"))
                .sorted();
    }

    @ParameterizedTest
    @MethodSource("shippedFiles")
    void everyShippedFileReadsAtEveryScale(Path file) {
        for (Scale s : Scale.values()) {
            ExperimentSpec spec = ExperimentSpec.read(file, s);
            assertThat(spec.cells()).isNotEmpty();
            assertThat(spec.reproduces()).isNotBlank();
            assertThat(spec.conclusions()).as(file + " checks a seed's conclusion").isNotEmpty();
        }
    }

    private static ExperimentSpec parse(String yaml) {
        return ExperimentSpec.parse(yaml, "test.yaml", Scale.FILE);
    }
}
