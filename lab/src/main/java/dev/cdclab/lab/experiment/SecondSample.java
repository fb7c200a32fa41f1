package dev.cdclab.lab.experiment;

/**
 * One second of a measured run, as {@code samples.csv} has it.
 *
 * @param second seconds since the measured load started
 * @param phase {@code measure} while the workload runs, {@code drain} while the warehouse catches
 *     up
 * @param txPerSecond workload transactions committed in this second
 * @param sourceChangesPerSecond row changes the workload committed in this second
 * @param appliedPerSecond raw changes that reached the warehouse in this second (net changes count
 *     for the raw changes they fold)
 * @param backlog changes committed at the source and not yet in the warehouse
 * @param p50Ms median source commit → warehouse commit latency of the changes applied in this
 *     second, NaN when none were
 * @param p99Ms 99th percentile of the same
 * @param maxMs maximum of the same
 * @param walRetainedBytes WAL the replication slot holds back, -1 when unknown
 * @param heapUsedBytes this JVM's heap in use
 * @param rssBytes this JVM's resident memory
 */
public record SecondSample(
        double second,
        String phase,
        long txPerSecond,
        long sourceChangesPerSecond,
        long appliedPerSecond,
        long backlog,
        double p50Ms,
        double p99Ms,
        double maxMs,
        long walRetainedBytes,
        long heapUsedBytes,
        long rssBytes) {

    static final String CSV_HEADER =
            "second,phase,tx_per_s,source_changes_per_s,applied_per_s,backlog,p50_ms,p99_ms,max_ms,"
                    + "wal_retained_bytes,heap_used_bytes,rss_bytes";

    String csv() {
        return String.join(
                ",",
                num(second),
                phase,
                Long.toString(txPerSecond),
                Long.toString(sourceChangesPerSecond),
                Long.toString(appliedPerSecond),
                Long.toString(backlog),
                num(p50Ms),
                num(p99Ms),
                num(maxMs),
                Long.toString(walRetainedBytes),
                Long.toString(heapUsedBytes),
                Long.toString(rssBytes));
    }

    static String num(double v) {
        if (Double.isNaN(v)) {
            return "";
        }
        return v == Math.rint(v)
                ? Long.toString((long) v)
                : String.format(java.util.Locale.ROOT, "%.3f", v);
    }
}
