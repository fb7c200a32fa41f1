package dev.cdclab.chaos;

import dev.cdclab.config.OneLineError;
import dev.cdclab.orchestration.verify.VerificationResult;
import dev.cdclab.wait.Poll;
import java.nio.file.Path;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs one scenario on a pipeline of its own and judges it. */
public final class ChaosRunner {
    private static final Logger LOG = LoggerFactory.getLogger(ChaosRunner.class);
    private static final Duration QUIET_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration LOUD_TIMEOUT = Duration.ofSeconds(90);

    private ChaosRunner() {}

    /**
     * Runs {@code scenario} in {@code dir}; never throws for what the scenario finds.
     *
     * @param stageMain the main class that runs {@code streams} and {@code sink} as processes of
     *     their own (the command line's), so a fault can kill one
     */
    public static ScenarioResult run(Scenario scenario, Path dir, String runId, String stageMain) {
        ChaosLab lab = null;
        try {
            lab = ChaosLab.start(dir, runId, stageMain, scenario.options());
            String note = null;
            try {
                scenario.injection().inject(lab);
            } catch (Scenario.CheckFailed e) {
                note = e.getMessage();
            }
            if (scenario.expect() == Scenario.Expect.STOPS_LOUDLY) {
                return judgeLoud(scenario, lab, note);
            }
            lab.awaitRecovery();
            long recovery = lab.slowestRecovery();
            long sinceFault = lab.longestSinceFault();
            long lost = lab.quietAndCount(QUIET_TIMEOUT);
            VerificationResult v = lab.verify();
            long dups = lab.duplicatesDelivered();
            String stopped = lab.failure();
            if (note == null && !v.matches()) {
                note = v.summary();
            }
            if (note == null && lab.tornReads() > 0) {
                note = lab.tornReads() + " warehouse reads showed part of a source transaction";
            }
            if (note == null && lab.consistentReads() == 0) {
                note = "the watcher never read the accounts in the warehouse";
            }
            boolean passed = note == null && lost == 0 && lab.regressions() == 0 && stopped == null;
            return new ScenarioResult(
                    scenario.name(),
                    scenario.expect(),
                    lab.faults(),
                    lost,
                    dups,
                    lab.regressions(),
                    lab.tornReads(),
                    lab.consistentReads(),
                    sinceFault,
                    recovery,
                    v.matches(),
                    stopped,
                    passed,
                    note);
        } catch (Exception e) {
            LOG.warn("scenario {} failed", scenario.name(), e);
            return new ScenarioResult(
                    scenario.name(),
                    scenario.expect(),
                    lab == null ? 0 : lab.faults(),
                    null,
                    0,
                    lab == null ? 0 : lab.regressions(),
                    lab == null ? 0 : lab.tornReads(),
                    lab == null ? 0 : lab.consistentReads(),
                    -1,
                    -1,
                    false,
                    lab == null ? null : lab.failure(),
                    false,
                    OneLineError.of(e));
        } finally {
            if (lab != null) {
                lab.close();
            }
        }
    }

    private static ScenarioResult judgeLoud(Scenario scenario, ChaosLab lab, String note) {
        Poll poll = Poll.within(LOUD_TIMEOUT).every(Duration.ofMillis(200));
        long t0 = System.nanoTime();
        while (lab.failure() == null && !poll.expired()) {
            poll.pause();
        }
        String stopped = lab.failure();
        if (stopped == null && note == null) {
            note = "the pipeline went on for " + LOUD_TIMEOUT.toSeconds() + " s without a word";
        }
        return new ScenarioResult(
                scenario.name(),
                scenario.expect(),
                lab.faults(),
                null,
                0,
                lab.regressions(),
                lab.tornReads(),
                lab.consistentReads(),
                -1,
                stopped == null ? -1 : (System.nanoTime() - t0) / 1_000_000,
                false,
                stopped,
                stopped != null && note == null && lab.regressions() == 0 && lab.tornReads() == 0,
                note);
    }
}
