package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ./cdc-lab fuzz} as a user runs it, through the launcher, on a fixed seed into DuckDB
 * without faults. It must end equal: a difference is a bug the fuzzer found, and its report holds
 * the script that shows it.
 */
@Timeout(1500)
class FuzzIT {
    private static final Path WORK = Path.of("target", "fuzz-it");

    private JsonNode fuzz(String name, String... args) throws Exception {
        Files.createDirectories(WORK);
        // a run cut off before leaves its source's data directory, where initdb refuses to start
        Path own = WORK.resolve(name);
        if (Files.exists(own)) {
            try (var paths = Files.walk(own)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
        Path json = WORK.resolve(name + ".json").toAbsolutePath();
        // without shrinking: a difference fails the test at once, naming the whole script
        String[] all = new String[args.length + 5];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--report-json";
        all[args.length + 1] = json.toString();
        all[args.length + 2] = "--work-dir";
        all[args.length + 3] = own.toAbsolutePath().toString();
        all[args.length + 4] = "--no-shrink";
        TestHelper.CliRun run =
                TestHelper.cdcLabLauncher(
                        WORK.resolve(name + ".out").toAbsolutePath(), Duration.ofMinutes(12), all);
        System.out.println(run.out());
        assertThat(json).as(run.out()).exists();
        JsonNode report = new ObjectMapper().readTree(json.toFile());
        for (JsonNode s : report.get("seeds")) {
            assertThat(s.get("equal").asBoolean()).as(s.toString()).isTrue();
            assertThat(s.get("checks").asInt()).as(s.toString()).isPositive();
            assertThat(s.get("transactions").asInt()).as(s.toString()).isGreaterThan(20);
            assertThat(s.get("rows_compared").asLong()).as(s.toString()).isPositive();
        }
        assertThat(run.code()).as(run.out()).isZero();
        return report;
    }

    @Test
    void aFixedSeedIntoDuckDbLandsEqual() throws Exception {
        JsonNode r = fuzz("duckdb", "fuzz", "--seed", "11", "--duration", "60s");
        assertThat(r.get("seeds")).hasSize(1);
    }
}
