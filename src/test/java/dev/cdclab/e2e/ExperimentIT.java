package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cdc-lab experiment} end to end: two cells (capture off, capture on) on embedded
 * infrastructure, the result files, and {@code --resume}.
 */
@Timeout(600)
class ExperimentIT {
    @TempDir Path dir;

    @Test
    void runsEveryCellWritesTheResultsAndResumes() throws Exception {
        Path file = Path.of("../src/test/resources/experiments/capture-off-on.yaml");
        Path out = dir.resolve("out");
        TestHelper.CliRun run =
                TestHelper.cdcLab("experiment", file.toString(), "--out", out.toString());
        assertThat(run.code()).as(run.out()).isZero();
        assertThat(run.out())
                .contains("2 cells, 2 to run")
                .contains("c01-enabled=false")
                .contains("capture off")
                .contains("verified")
                .contains("Conclusion holds on this stack: **");

        JsonNode manifest = new ObjectMapper().readTree(out.resolve("manifest.json").toFile());
        assertThat(manifest.get("cells")).hasSize(2);
        manifest.get("cells").forEach(c -> assertThat(c.get("state").asText()).isEqualTo("done"));

        List<String> csv = Files.readAllLines(out.resolve("results.csv"));
        assertThat(csv).hasSize(3);
        JsonNode on =
                new ObjectMapper()
                        .readTree(out.resolve("cells/c02-enabled=true/summary.json").toFile());
        JsonNode m = on.get("metrics");
        assertThat(m.get("verified").asBoolean()).isTrue();
        assertThat(m.get("transactions").asLong()).isPositive();
        assertThat(m.get("latency_p99_ms").asDouble()).isPositive();
        assertThat(m.get("wal_written_bytes").asLong()).isPositive();
        assertThat(on.get("source_settings").get("fsync").asText()).isEqualTo("on");
        assertThat(on.get("load_nice").asInt()).isEqualTo(5);
        List<String> samples =
                Files.readAllLines(out.resolve("cells/c02-enabled=true/samples.csv"));
        assertThat(samples.size()).isGreaterThan(3);
        assertThat(Files.size(out.resolve("cells/c02-enabled=true/latency.hlog"))).isPositive();
        assertThat(out.resolve("charts/latency-c02-enabled=true.png")).isNotEmptyFile();
        assertThat(Files.readString(out.resolve("report.html")))
                .contains("charts/workload-overhead.png");
        assertThat(Files.readString(out.resolve("summary.md")))
                .contains("| false |")
                .contains("| true |");
        assertThat(out.resolve("cells/c02-enabled=true/work")).doesNotExist();

        TestHelper.CliRun again =
                TestHelper.cdcLab("experiment", file.toString(), "--out", out.toString());
        assertThat(again.code()).isEqualTo(2);

        TestHelper.CliRun resumed =
                TestHelper.cdcLab(
                        "experiment", file.toString(), "--out", out.toString(), "--resume");
        assertThat(resumed.code()).as(resumed.out()).isZero();
        assertThat(resumed.out()).contains("2 cells, 0 to run");
    }
}
