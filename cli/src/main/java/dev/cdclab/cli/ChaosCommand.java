package dev.cdclab.cli;

import dev.cdclab.chaos.ChaosRunner;
import dev.cdclab.chaos.Scenario;
import dev.cdclab.chaos.ScenarioResult;
import dev.cdclab.chaos.Scenarios;
import dev.cdclab.format.JsonText;
import dev.cdclab.lab.report.Machine;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cdc-lab chaos}: faults injected into a running pipeline, and what survived them. */
@Command(
        name = "chaos",
        mixinStandardHelpOptions = true,
        description = {
            "Run fault scenarios, each on a fresh embedded pipeline whose Connect worker, Streams"
                    + " app and sink run in processes of their own (so they can be killed) and"
                    + " whose warehouse is PostgreSQL. After each fault and a quiet period the"
                    + " warehouse must equal the source, no row lost or gone back to an older"
                    + " version; a fault that loses changes at the source must stop the pipeline"
                    + " with a message instead.",
            "Exit code 0 when every scenario passed, 1 otherwise."
        })
final class ChaosCommand implements Callable<Integer> {
    @Option(
            names = "--scenarios",
            split = ",",
            paramLabel = "LIST",
            description =
                    "Scenarios to run, comma-separated (default: all). Scenarios: ${COMPLETION-CANDIDATES}",
            completionCandidates = ScenarioNames.class)
    List<String> scenarios;

    @Option(
            names = "--report-json",
            paramLabel = "FILE",
            description = "Write one entry per scenario as JSON to FILE.")
    Path reportJson;

    @Option(
            names = "--work-dir",
            paramLabel = "DIR",
            description =
                    "Where the scenarios' data and logs go (default: cdc-lab-runs/<time>-chaos-<id>).")
    Path workDir;

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        List<Scenario> chosen = scenarios == null ? Scenarios.all() : Scenarios.named(scenarios);
        String runId = Commands.newRunId();
        Path work = Commands.workDir(workDir, runId, "chaos");
        Commands.logTo(work, "cdc-lab.log");
        out.println(
                "chaos: "
                        + chosen.size()
                        + " scenario(s), each on a fresh embedded pipeline; logs "
                        + Commands.currentLogFile());
        List<ScenarioResult> results = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < chosen.size(); i++) {
            Scenario s = chosen.get(i);
            out.printf(
                    Locale.ROOT,
                    "[%d/%d] %-24s %s ... ",
                    i + 1,
                    chosen.size(),
                    s.name(),
                    s.description());
            out.flush();
            long t0 = System.nanoTime();
            ScenarioResult r =
                    ChaosRunner.run(s, work.resolve(s.name()), runId + i, CdcLab.class.getName());
            results.add(r);
            out.printf(
                    Locale.ROOT,
                    "%s (%.0f s)%n",
                    r.passed() ? "passed" : "FAILED: " + r.note(),
                    (System.nanoTime() - t0) / 1e9);
        }
        out.println();
        printTable(out, results);
        long passed = results.stream().filter(ScenarioResult::passed).count();
        out.printf(
                Locale.ROOT,
                "%d of %d scenarios passed in %.0f s on %s%n",
                passed,
                results.size(),
                (System.nanoTime() - start) / 1e9,
                Machine.oneLine());
        if (reportJson != null) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("machine", Machine.describe());
            m.put("scenarios", results.stream().map(ScenarioResult::asMap).toList());
            JsonText.write(reportJson, m);
        }
        return passed == results.size() ? 0 : CdcLab.VERIFY_FAILED;
    }

    static void printTable(PrintStream out, List<ScenarioResult> results) {
        out.printf(
                Locale.ROOT,
                "%-24s %6s %9s %10s %11s %12s %9s %9s %s%n",
                "scenario",
                "faults",
                "rows lost",
                "duplicates",
                "torn reads",
                "since fault",
                "recovery",
                "verified",
                "result");
        for (ScenarioResult r : results) {
            boolean loud = r.expect() == Scenario.Expect.STOPS_LOUDLY;
            out.printf(
                    Locale.ROOT,
                    "%-24s %6d %9s %10d %11s %12s %9s %9s %s%n",
                    r.name(),
                    r.faults(),
                    r.rowsLost() == null ? "-" : Long.toString(r.rowsLost()),
                    r.duplicatesAbsorbed(),
                    r.tornReads() + " of " + (r.tornReads() + r.consistentReads()),
                    seconds(r.sinceFaultMs()),
                    seconds(r.recoveryMs()),
                    loud ? "-" : r.verified() ? "yes" : "NO",
                    (r.passed() ? "pass" : "FAIL")
                            + (loud && r.stoppedWith() != null
                                    ? ": stopped with \"" + r.stoppedWith() + "\""
                                    : "")
                            + (!r.passed() && r.note() != null ? ": " + r.note() : ""));
        }
    }

    private static String seconds(long ms) {
        return ms < 0 ? "-" : String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }

    /** Scenario names, for the help text. */
    static final class ScenarioNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return Scenarios.all().stream().map(Scenario::name).iterator();
        }
    }
}
