package dev.cdclab.cli;

import dev.cdclab.chaos.fuzz.FuzzRunner;
import dev.cdclab.format.JsonText;
import dev.cdclab.lab.report.Machine;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cdc-lab fuzz}: generated schemas and transactions, faults, and the warehouse checked. */
@Command(
        name = "fuzz",
        mixinStandardHelpOptions = true,
        description = {
            "A differential test: from a seed, generate tables (every type of the type page,"
                    + " nullable columns with and without defaults, keys of 0 to 3 columns,"
                    + " partitioned and keyless tables) and transactions (DML with NULLs, edge"
                    + " values, large values and key updates; DDL inside transactions: columns"
                    + " added, dropped, renamed and retyped, keys added and dropped, TRUNCATE,"
                    + " table renames), write them to an embedded pipeline whose Streams app,"
                    + " sink and Connect worker run in processes of their own, kill those at"
                    + " random moments (--faults), and at each quiet point compare the warehouse"
                    + " with the source through verify and through a per-row comparison of its"
                    + " own. A difference is shrunk to a smaller SQL script, printed.",
            "Exit code 0 when nothing differed, 1 otherwise."
        })
final class FuzzCommand implements Callable<Integer> {
    @Option(
            names = "--seed",
            split = ",",
            paramLabel = "N",
            description =
                    "Seed(s), comma-separated, each run on a pipeline of its own (default: 1).")
    List<Long> seeds = List.of(1L);

    @Option(
            names = "--duration",
            defaultValue = "2m",
            converter = Commands.DurationConverter.class,
            description = "How long each seed writes (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(
            names = "--warehouse",
            defaultValue = "duckdb",
            description = "duckdb or postgresql (default: ${DEFAULT-VALUE}).")
    String warehouse;

    @Option(
            names = "--faults",
            description =
                    "Kill the sink, the Streams app and Connect, and restart Kafka, at random.")
    boolean faults;

    @Option(names = "--no-shrink", description = "Print the whole script of a difference found.")
    boolean noShrink;

    @Option(
            names = "--check-every",
            defaultValue = "30s",
            converter = Commands.DurationConverter.class,
            description = "How long between two comparisons (default: ${DEFAULT-VALUE}).")
    Duration checkEvery;

    @Option(
            names = "--report-json",
            paramLabel = "FILE",
            description = "Write what each seed generated, checked and found as JSON to FILE.")
    Path reportJson;

    @Option(
            names = "--replay",
            paramLabel = "FILE",
            description =
                    "Run a script an earlier run wrote (script.sql or shrunk.sql) again, with its"
                            + " seed's settings, instead of generating one; then compare.")
    Path replay;

    @Option(
            names = "--work-dir",
            paramLabel = "DIR",
            description =
                    "Where the pipelines' data and logs go (default: cdc-lab-runs/<time>-fuzz-<id>).")
    Path workDir;

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        if (duration.isZero() || duration.isNegative()) {
            throw new IllegalArgumentException("--duration must be > 0");
        }
        FuzzRunner.Warehouse kind =
                switch (warehouse.toLowerCase(Locale.ROOT)) {
                    case "duckdb" -> FuzzRunner.Warehouse.DUCKDB;
                    case "postgresql", "postgres" -> FuzzRunner.Warehouse.POSTGRESQL;
                    default ->
                            throw new IllegalArgumentException(
                                    "--warehouse: '" + warehouse + "' is not duckdb or postgresql");
                };
        if (replay != null && !Files.isReadable(replay)) {
            throw new IllegalArgumentException("--replay: cannot read " + replay);
        }
        if (replay != null && seeds.size() != 1) {
            throw new IllegalArgumentException(
                    "--replay: give the one --seed the script was written with");
        }
        String runId = Commands.newRunId();
        Path work = Commands.workDir(workDir, runId, "fuzz");
        Commands.logTo(work, "cdc-lab.log");
        out.println("fuzz: " + seeds.size() + " seed(s), logs " + Commands.currentLogFile());
        List<FuzzRunner.Result> results = new ArrayList<>();
        for (int i = 0; i < seeds.size(); i++) {
            long seed = seeds.get(i);
            FuzzRunner.Options o =
                    new FuzzRunner.Options(
                            seed, duration, kind, faults, !noShrink, checkEvery, replay);
            FuzzRunner.Result r =
                    FuzzRunner.run(
                            o,
                            work.resolve("seed-" + seed),
                            runId + i,
                            CdcLab.class.getName(),
                            out);
            results.add(r);
            out.printf(
                    Locale.ROOT,
                    "seed %d: %s: %d transactions (%d refused by the source), %d statements %s,"
                            + " faults %s, %d checks, %d rows compared%n",
                    seed,
                    r.passed() ? "equal" : "DIFFERENT",
                    r.transactions(),
                    r.refused(),
                    r.statements(),
                    r.byKind(),
                    r.faults().isEmpty() ? "none" : r.faults(),
                    r.checks(),
                    r.rowsCompared());
        }
        long passed = results.stream().filter(FuzzRunner.Result::passed).count();
        out.printf(
                Locale.ROOT,
                "%d of %d seed(s) equal on %s%n",
                passed,
                results.size(),
                Machine.oneLine());
        if (reportJson != null) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("machine", Machine.describe());
            List<Map<String, Object>> seedsOut = new ArrayList<>();
            for (FuzzRunner.Result r : results) {
                Map<String, Object> s = new LinkedHashMap<>();
                s.put("seed", r.seed());
                s.put("settings", r.settings());
                s.put("equal", r.passed());
                s.put("transactions", r.transactions());
                s.put("refused_by_source", r.refused());
                s.put("statements", r.byKind());
                s.put("faults", r.faults());
                s.put("checks", r.checks());
                s.put("rows_compared", r.rowsCompared());
                s.put("differences", r.differences());
                s.put("script", r.script());
                seedsOut.add(s);
            }
            m.put("seeds", seedsOut);
            JsonText.write(reportJson, m);
        }
        return passed == results.size() ? 0 : CdcLab.VERIFY_FAILED;
    }
}
