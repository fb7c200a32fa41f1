package dev.cdclab.cli;

import dev.cdclab.config.SourceKind;
import dev.cdclab.load.dialect.SqlDialect;
import dev.cdclab.load.workload.Workload;
import dev.cdclab.load.workload.WorkloadOptions;
import dev.cdclab.load.workload.Workloads;
import picocli.CommandLine.Option;

/** Workload settings shared by {@code run}, {@code bench}, {@code load} and {@code overhead}. */
final class WorkloadKnobs {
    @Option(
            names = "--threads",
            defaultValue = "16",
            description =
                    "Client threads, one connection each (default: ${DEFAULT-VALUE}; the white paper used 100).")
    int threads;

    @Option(
            names = "--prefill",
            defaultValue = "-1",
            description =
                    "Rows loaded before the run (per table); -1 = the workload's default (the papers' sizes).")
    long prefill;

    @Option(
            names = "--seed",
            defaultValue = "42",
            description =
                    "Random seed: the same seed issues the same statements (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--tx-size",
            defaultValue = "-1",
            description = "Rows per transaction for W6, W7 and T1; -1 = the workload's default.")
    int txSize;

    @Option(
            names = "--filled-columns",
            defaultValue = "-1",
            description = "Columns inserts fill in W1, W2, W7; -1 = the paper's (8 and 10).")
    int filledColumns;

    @Option(
            names = "--hot-keys",
            defaultValue = "100",
            description = "Keys the 'hot' workload updates (default: ${DEFAULT-VALUE}).")
    int hotKeys;

    /**
     * Creates a workload with these settings.
     *
     * @throws IllegalArgumentException for a bad thread count or an unknown name
     */
    Workload create(String name) {
        return create(name, SourceKind.POSTGRES);
    }

    /**
     * Creates a workload in the SQL of a source.
     *
     * @throws IllegalArgumentException for a bad thread count or an unknown name
     */
    Workload create(String name, SourceKind source) {
        if (threads < 1 || threads > 1000) {
            throw new IllegalArgumentException("--threads must be 1..1000");
        }
        if (hotKeys < 1) {
            throw new IllegalArgumentException("--hot-keys must be >= 1");
        }
        return Workloads.create(
                name,
                SqlDialect.of(source),
                new WorkloadOptions(seed, prefill, txSize, filledColumns, hotKeys));
    }
}
