package dev.cdclab.cli;

import dev.cdclab.lab.experiment.ExperimentRunner;
import dev.cdclab.lab.experiment.ExperimentSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code cdc-lab experiment}: runs an experiment file's matrix of cells. */
@Command(
        name = "experiment",
        mixinStandardHelpOptions = true,
        description = {
            "Run an experiment file: every combination of its factors' levels (a cell) on a fresh"
                    + " embedded pipeline, warm-up -> measure -> catch-up -> verify; then write"
                    + " results.csv, summary.md with the seed's conclusions checked, and report.html"
                    + " with charts. Shipped files are in experiments/; every key is in"
                    + " docs/experiments.md.",
            "Exit code 0 when every cell finished and verified, 1 otherwise."
        })
final class ExperimentCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE", description = "The experiment file (YAML).")
    Path file;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "Results directory (default: cdc-lab-runs/experiments/<name>-<scale>).")
    Path out;

    @Option(
            names = "--resume",
            description =
                    "Continue a run in the results directory: cells already done are skipped;"
                            + " failed and interrupted ones run again.")
    boolean resume;

    @Option(
            names = "--scale",
            paramLabel = "SCALE",
            defaultValue = "file",
            description =
                    "quick: short phases, 8 threads, 10,000 prefilled rows (minutes per file);"
                            + " paper: the white paper's 100 threads, 500 s, 390,000 rows; file: as"
                            + " written (default: ${DEFAULT-VALUE}).")
    String scale;

    @Option(
            names = "--dry-run",
            description = "Check the file and print its cells, without running anything.")
    boolean dryRun;

    @Override
    public Integer call() throws Exception {
        ExperimentSpec spec = ExperimentSpec.read(file, ExperimentSpec.Scale.parse(scale));
        if (dryRun) {
            var cells = spec.cells();
            System.out.printf(
                    java.util.Locale.ROOT,
                    "%s (%s scale): %d cells; warm-up %s, measure %s, drain up to %s%n",
                    spec.name(),
                    spec.scale().label(),
                    cells.size(),
                    dev.cdclab.config.Durations.format(spec.phases().warmup()),
                    dev.cdclab.config.Durations.format(spec.phases().measure()),
                    dev.cdclab.config.Durations.format(spec.phases().drain()));
            for (var c : cells) {
                System.out.println("  " + c.id() + ": " + c.settings());
            }
            spec.conclusions()
                    .forEach(c -> System.out.println("  checks: " + c.table() + ": " + c.claim()));
            return 0;
        }
        Path dir =
                (out != null
                                ? out
                                : Path.of(
                                        "cdc-lab-runs",
                                        "experiments",
                                        spec.name() + "-" + spec.scale().label()))
                        .toAbsolutePath();
        Files.createDirectories(dir.resolve("logs"));
        Commands.logTo(dir, "cdc-lab.log");
        boolean ok =
                new ExperimentRunner(spec, file, dir, System.out, Commands::closeOnShutdown)
                        .run(resume);
        return ok ? 0 : CdcLab.VERIFY_FAILED;
    }
}
