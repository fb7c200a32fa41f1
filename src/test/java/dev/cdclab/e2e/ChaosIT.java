package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cdclab.chaos.Scenario;
import dev.cdclab.chaos.Scenarios;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ./cdc-lab chaos} as a user runs it, through the launcher: each fault is injected into a
 * real pipeline (processes killed, slots dropped or invalidated, garbage on topics), and each
 * scenario must end with the warehouse equal to the source, or with the pipeline stopped and saying
 * why, and a pipeline that lost a Streams or sink process (killed and restarted, or killed with
 * another instance left) flows again within seconds. Every scenario runs a transfer workload while
 * a watcher reads the warehouse continuously: no read may show part of a source transaction. CI
 * runs every scenario but one ({@link #NOT_IN_CI}); {@code cdc-lab chaos} runs them all.
 */
@Tag("chaos")
@Timeout(2400)
class ChaosIT {
    /** The scenarios that kill a Streams or sink process, restarted or not. */
    static final Set<String> CONSUMER_KILLS =
            Set.of(
                    "streams-kill-alos",
                    "streams-kill-eos",
                    "sink-halt-after-commit",
                    "truncate",
                    "scale-out-takeover",
                    "scale-out-restart");

    /**
     * The longest stall admitted after a killed Streams or sink process, from the kill until a row
     * written after the restart is in the warehouse: 6–12 s measured here, and up to 24 s (two sink
     * halts in one round, each restart a JVM of its own) on a machine that ran everything about
     * half as fast; a killed member that held its partitions for Kafka's default session timeout
     * (45 s) would exceed it.
     */
    static final long MAX_CONSUMER_STALL_MS = 40_000;

    /**
     * Left to {@code cdc-lab chaos}, to keep CI under 30 minutes: a controlled stop of the node
     * leading a topic, the longest scenario (about two minutes), whose leader changes {@code
     * cluster-leader-kill} also makes, harder (killed {@code -9}, fenced, restarted with its logs
     * recovered).
     */
    static final Set<String> NOT_IN_CI = Set.of("cluster-leader-stop");

    /** The scenarios CI runs: every one {@code cdc-lab chaos} has but {@link #NOT_IN_CI}. */
    static final List<String> IN_CI =
            Scenarios.all().stream()
                    .map(Scenario::name)
                    .filter(n -> !NOT_IN_CI.contains(n))
                    .toList();

    /**
     * The scenarios' data and logs, under the module's build directory rather than a temporary one:
     * a failed scenario's logs stay there for whoever reads the build (deleted when all pass).
     */
    private static final Path WORK = Path.of("target", "chaos-it");

    @Test
    void everyScenarioLosesNothingOrStopsLoudly() throws Exception {
        // a renamed scenario must not slip into CI unnoticed, nor this list go stale
        assertThat(Scenarios.all().stream().map(Scenario::name)).containsAll(NOT_IN_CI);
        deleteTree(WORK);
        Files.createDirectories(WORK);
        Path json = WORK.resolve("chaos.json");
        TestHelper.CliRun run =
                TestHelper.cdcLabLauncher(
                        WORK.resolve("chaos.out").toAbsolutePath(),
                        Duration.ofMinutes(38),
                        "chaos",
                        "--scenarios",
                        String.join(",", IN_CI),
                        "--work-dir",
                        WORK.resolve("work").toAbsolutePath().toString(),
                        "--report-json",
                        json.toAbsolutePath().toString());
        int code = run.code();
        String out = run.out();
        System.out.println(out);
        assertThat(json).as(out).exists();
        JsonNode report = new ObjectMapper().readTree(json.toFile());
        List<String> names = new ArrayList<>();
        for (JsonNode s : report.get("scenarios")) {
            names.add(s.get("name").asText());
            assertThat(s.get("passed").asBoolean()).as(s.toString()).isTrue();
            if (s.get("expect").asText().equals("no_loss")) {
                assertThat(s.get("rows_lost").asLong()).as(s.toString()).isZero();
                assertThat(s.get("verified").asBoolean()).as(s.toString()).isTrue();
                assertThat(s.get("regressions").asLong()).as(s.toString()).isZero();
                assertThat(s.get("consistent_reads").asLong()).as(s.toString()).isPositive();
                if (CONSUMER_KILLS.contains(s.get("name").asText())) {
                    // each of these waits at least 1 s between its first fault and the marker
                    assertThat(s.get("since_fault_ms").asLong())
                            .as(s.toString())
                            .isBetween(s.get("recovery_ms").asLong() + 1000, MAX_CONSUMER_STALL_MS);
                    assertThat(s.get("recovery_ms").asLong()).as(s.toString()).isPositive();
                }
            } else {
                assertThat(s.get("stopped_with").asText()).as(s.toString()).isNotBlank();
                if (s.get("name").asText().equals("slot-recreated")) {
                    // dropped and recreated in one statement: told by its statistics, or, when
                    // a health check falls between the two (a slot's drop is not transactional,
                    // so the check sees no slot), by its absence
                    assertThat(s.get("stopped_with").asText())
                            .containsAnyOf("dropped and recreated", "is gone");
                }
            }
            assertThat(s.get("torn_reads").asLong()).as(s.toString()).isZero();
            assertThat(s.get("faults_injected").asInt()).as(s.toString()).isPositive();
        }
        assertThat(names)
                .containsExactlyElementsOf(IN_CI)
                .containsAll(CONSUMER_KILLS)
                .contains("cluster-leader-kill");
        assertThat(code).as(out).isZero();
        assertThat(out).contains("scenarios passed");
        deleteTree(WORK);
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
