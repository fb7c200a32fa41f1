package dev.cdclab.load.workload;

/**
 * Knobs shared by the workloads; each workload reads the ones that apply to it.
 *
 * @param seed random seed: same seed, same statements
 * @param prefillRows rows loaded before the run (per table where a workload has several)
 * @param txSize rows per transaction for the large-transaction workloads
 * @param filledColumns how many data columns inserts fill (W1, W2, W7)
 * @param hotKeys size of the key set the update-heavy workload hammers
 */
public record WorkloadOptions(
        long seed, long prefillRows, int txSize, int filledColumns, int hotKeys) {

    /** Replaces "not set" (-1) values with a workload's defaults. */
    public WorkloadOptions withDefaults(long prefill, int tx, int filled) {
        return new WorkloadOptions(
                seed,
                prefillRows < 0 ? prefill : prefillRows,
                txSize < 0 ? tx : txSize,
                filledColumns < 0 ? filled : filledColumns,
                hotKeys);
    }
}
