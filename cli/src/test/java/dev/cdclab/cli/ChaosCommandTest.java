package dev.cdclab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.chaos.Scenario;
import dev.cdclab.chaos.ScenarioResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code cdc-lab chaos}'s table: the time since each scenario's first fault beside its recovery.
 */
class ChaosCommandTest {
    @Test
    void theTableShowsTheTimeSinceTheFirstFaultBesideTheRecovery() {
        ScenarioResult restart =
                new ScenarioResult(
                        "scale-out-restart",
                        Scenario.Expect.NO_LOSS,
                        2,
                        0L,
                        1,
                        0,
                        0,
                        1432,
                        8_870,
                        7_859,
                        true,
                        null,
                        true,
                        null);
        ScenarioResult unmeasured =
                new ScenarioResult(
                        "crash",
                        Scenario.Expect.NO_LOSS,
                        0,
                        null,
                        0,
                        0,
                        0,
                        0,
                        -1,
                        -1,
                        false,
                        null,
                        false,
                        "did not start");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            ChaosCommand.printTable(out, List.of(restart, unmeasured));
        }
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();

        assertThat(lines.get(0).split("\\s{2,}")).contains("since fault", "recovery");
        assertThat(lines.get(0).indexOf("since fault"))
                .isLessThan(lines.get(0).indexOf("recovery"));
        assertThat(lines.get(1)).contains("0 of 1432        8.9 s     7.9 s       yes pass");
        assertThat(lines.get(2))
                .contains("0 of 0            -         -        NO FAIL: did not start");
    }
}
