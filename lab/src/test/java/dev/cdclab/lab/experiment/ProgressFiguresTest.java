package dev.cdclab.lab.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The figures the progress lines of {@code run} and {@code experiment} show in every phase. */
class ProgressFiguresTest {
    @Test
    void loadProgressNamesRateChangesAndBacklog() {
        PhaseEngine.LoadProgress lp = new PhaseEngine.LoadProgress(998.4, 3630.6, 1234, 1000);
        assertThat(lp.describe()).isEqualTo("source 998.4 tx/s, 3,631 ch/s | backlog 1,234");
        assertThat(lp.shortfall()).isEmpty();
    }

    @Test
    void aSourceShortOfItsTargetIsNamedWithTheRateItReached() {
        PhaseEngine.LoadProgress lp = new PhaseEngine.LoadProgress(1500, 5400, 0, 2750);
        assertThat(lp.belowTarget()).isTrue();
        assertThat(lp.shortfall())
                .isEqualTo(" | target 2,750.0 tx/s not reached: the source takes 1,500.0 tx/s");
        assertThat(new PhaseEngine.LoadProgress(1500, 5400, 0, 0).shortfall())
                .as("as fast as it goes: no target")
                .isEmpty();
    }

    @Test
    void etaReadsAsMinutesAndSeconds() {
        assertThat(ExperimentRunner.eta(0)).isEqualTo("0 s");
        assertThat(ExperimentRunner.eta(59)).isEqualTo("59 s");
        assertThat(ExperimentRunner.eta(780)).isEqualTo("13 min 0 s");
        assertThat(ExperimentRunner.eta(795)).isEqualTo("13 min 15 s");
    }
}
