package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The measuring commands, small: {@code bench} prints its steps, {@code overhead} its comparison.
 */
@Timeout(600)
class LabCommandsIT {
    @TempDir Path dir;

    @Test
    void benchStepsAndReportsTheHighestSustainedRate() throws Exception {
        Path json = dir.resolve("bench.json");
        TestHelper.CliRun run =
                TestHelper.cdcLab(
                        "bench",
                        "--rates",
                        "40,80",
                        "--step",
                        "4s",
                        "--warmup",
                        "0",
                        "--prefill",
                        "500",
                        "--threads",
                        "4",
                        "--max-p99",
                        "30s",
                        "--work-dir",
                        dir.resolve("bench").toString(),
                        "--report-json",
                        json.toString());
        String out = run.out();
        assertThat(run.code()).as(out).isZero();
        assertThat(out)
                .contains("highest sustained")
                .contains("verified: warehouse matches source")
                .contains("pipeline source=postgres interval=transaction net_changes=all")
                .contains("fsync=on");
        JsonNode r = new ObjectMapper().readTree(json.toFile());
        assertThat(r.get("steps")).hasSize(2);
        assertThat(r.get("pipeline").get("interval").asText()).isEqualTo("transaction");
        assertThat(r.get("highest_sustained_changes_per_s").asDouble()).isPositive();
        // each rising step starts right after a checkpoint of the source
        assertThat(out).doesNotContain("without a checkpoint");
        try (var lines = Files.lines(dir.resolve("bench/logs/postgres.log"))) {
            assertThat(lines.filter(l -> l.contains("checkpoint starting: immediate")).count())
                    .isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void overheadComparesCaptureOffAndOn() throws Exception {
        Path json = dir.resolve("overhead.json");
        TestHelper.CliRun run =
                TestHelper.cdcLab(
                        "overhead",
                        "--workloads",
                        "W4",
                        "--duration",
                        "4s",
                        "--warmup",
                        "0",
                        "--prefill",
                        "1000",
                        "--threads",
                        "4",
                        "--rate",
                        "50",
                        "--work-dir",
                        dir.resolve("overhead").toString(),
                        "--report-json",
                        json.toString());
        String out = run.out();
        assertThat(run.code()).as(out).isZero();
        JsonNode row = new ObjectMapper().readTree(json.toFile()).get("results").get(0);
        assertThat(row.get("workload").asText()).isEqualTo("W4");
        assertThat(row.get("tx_per_s_capture_off").asDouble()).isPositive();
        assertThat(row.get("tx_per_s_capture_on").asDouble()).isPositive();
        assertThat(row.get("verified").asBoolean()).isTrue();
        // the two runs are an experiment's two cells, with its results and report
        Path cells = Path.of(new ObjectMapper().readTree(json.toFile()).get("experiment").asText());
        assertThat(Files.readAllLines(cells.resolve("results.csv"))).hasSize(3);
        assertThat(cells.resolve("report.html")).exists();
        assertThat(out)
                .contains("fsync=on")
                .contains("pipeline source=postgres interval=transaction net_changes=all");
        assertThat(
                        new ObjectMapper()
                                .readTree(json.toFile())
                                .get("pipeline")
                                .get("partitions")
                                .asInt())
                .isEqualTo(1);
    }
}
