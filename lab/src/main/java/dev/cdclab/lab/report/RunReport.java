package dev.cdclab.lab.report;

import static dev.cdclab.format.Numbers.count;
import static dev.cdclab.format.Numbers.fixed2;
import static dev.cdclab.format.Numbers.millis;
import static dev.cdclab.format.Numbers.rate;
import static dev.cdclab.format.Numbers.round3;

import dev.cdclab.format.JsonText;
import dev.cdclab.format.Numbers;
import dev.cdclab.lab.bench.CpuMeter;
import dev.cdclab.load.run.LoadStats;
import dev.cdclab.load.workload.Op;
import dev.cdclab.orchestration.verify.TableResult;
import dev.cdclab.orchestration.verify.VerificationResult;
import dev.cdclab.sink.latency.LatencyRecorder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** The result of {@code cdc-lab run}, as text for people and JSON for machines. */
public final class RunReport {
    /** Raw and net changes of one table during the load. */
    public record TableCounts(String table, long raw, long net) {}

    /**
     * Everything the report shows.
     *
     * @param runId run id
     * @param workload workload name
     * @param workloadDescription one line on the workload
     * @param threads client threads
     * @param rateTarget target tx/s (0 = closed loop)
     * @param seed random seed
     * @param prefillRows rows loaded before capture
     * @param loadSeconds how long the load ran
     * @param load load counters
     * @param snapshotRows rows captured by the initial snapshot
     * @param warmupChanges changes captured during the warm-up
     * @param capturedChanges raw changes captured during the load
     * @param netApplied net changes applied during the load
     * @param vanished keys whose changes cancelled out inside an interval
     * @param late changes that arrived after their interval closed
     * @param deadLetters unreadable change events (Streams) and net-change records (sink)
     * @param rowsWritten warehouse rows written during the load
     * @param batches warehouse transactions during the load
     * @param tables per-table counts
     * @param catchUpSeconds from load end until the warehouse had every committed change
     * @param latency sink latencies
     * @param applyMillis time per warehouse transaction
     * @param cpu CPU used over the load and the catch-up, or null where not measured
     * @param sourceSettings source settings
     * @param pipeline pipeline settings
     * @param infrastructure kind and images of the services, as {@link InfraDescription#asMap}
     * @param captureJob the source's capture job on its own work (SQL Server), or null
     * @param verification comparison result
     * @param keylessTables tables without a key, {@code schema.table} to how they were captured
     * @param workDir where data and logs are
     * @param initialLoad the initial load ({@code rows}, {@code seconds}, {@code rows_per_s},
     *     {@code tables}: each one's rows, seconds and rows/s); null when Debezium read the tables
     */
    public record Facts(
            String runId,
            String workload,
            String workloadDescription,
            int threads,
            double rateTarget,
            long seed,
            long prefillRows,
            double loadSeconds,
            LoadStats load,
            long snapshotRows,
            long warmupChanges,
            long capturedChanges,
            long netApplied,
            long vanished,
            long late,
            long deadLetters,
            long rowsWritten,
            long batches,
            List<TableCounts> tables,
            double catchUpSeconds,
            LatencyRecorder latency,
            Histogram applyMillis,
            CpuMeter.Usage cpu,
            Map<String, String> sourceSettings,
            Map<String, Object> pipeline,
            Map<String, Object> infrastructure,
            Map<String, Object> captureJob,
            VerificationResult verification,
            Map<String, String> keylessTables,
            String workDir,
            Map<String, Object> initialLoad) {

        /**
         * The tables without a key: those capture found when it started, with how (REPLICA IDENTITY
         * FULL, or left out), and those verification compared as rows.
         */
        public static Map<String, String> keylessTables(
                Map<String, String> atStart, VerificationResult verification) {
            Map<String, String> out = new java.util.TreeMap<>(atStart);
            for (TableResult t : verification.tables()) {
                if ("rows (no key)".equals(t.comparedAs())) {
                    out.putIfAbsent(t.table(), "REPLICA IDENTITY FULL");
                }
            }
            return out;
        }
    }

    private final Facts f;

    private static String rate(Object perSecond) {
        return perSecond instanceof Number n ? Numbers.rate(n.doubleValue()) : "-";
    }

    public RunReport(Facts facts) {
        this.f = facts;
    }

    public boolean verified() {
        return f.verification().matches();
    }

    /** The report as JSON (see docs/cli.md for the keys). */
    public String toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("verified", verified());
        m.put("run_id", f.runId());
        long sourceChanges = f.load().sourceChanges();
        m.put("source_changes", sourceChanges);
        m.put("captured_changes", f.capturedChanges());
        m.put("net_changes_applied", f.netApplied());
        m.put("raw_net_ratio", round3(ratio(f.capturedChanges(), f.netApplied())));
        m.put("throughput_changes_per_s", round3(sourceChanges / f.loadSeconds()));
        m.put(
                "end_to_end_changes_per_s",
                round3(sourceChanges / (f.loadSeconds() + f.catchUpSeconds())));
        m.put("catch_up_s", round3(f.catchUpSeconds()));
        m.put("latency_ms", Numbers.percentiles(f.latency().endToEnd(), 1));
        m.put("latency_from_generator_ms", Numbers.percentiles(f.latency().fromGenerator(), 1));
        Map<String, Object> stages = new LinkedHashMap<>();
        for (var e : f.latency().stages().entrySet()) {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("p50", round3(e.getValue().getValueAtPercentile(50)));
            s.put("p99", round3(e.getValue().getValueAtPercentile(99)));
            s.put("max", round3(e.getValue().getMaxValue()));
            stages.put(stageKey(e.getKey()), s);
        }
        m.put("stages_ms", stages);
        if (f.cpu() != null && f.cpu().wallSeconds() > 0) {
            m.put("cpu", cpuJson(f.cpu()));
        }
        Map<String, Object> wl = new LinkedHashMap<>();
        wl.put("name", f.workload());
        wl.put("threads", f.threads());
        wl.put("rate_target_tx_per_s", f.rateTarget());
        wl.put("seed", f.seed());
        wl.put("prefill_rows", f.prefillRows());
        wl.put("duration_s", round3(f.loadSeconds()));
        wl.put("transactions", f.load().transactions());
        wl.put("tx_per_s", round3(f.load().transactions() / f.loadSeconds()));
        wl.put("changes_per_s", round3(sourceChanges / f.loadSeconds()));
        wl.put("errors", f.load().errors());
        Map<String, Object> rows = new LinkedHashMap<>();
        f.load().rows().forEach((op, n) -> rows.put(op.name().toLowerCase(Locale.ROOT), n));
        rows.put("by_trigger", f.load().triggeredChanges());
        wl.put("rows", rows);
        wl.put("transactions_by_type", f.load().transactionsByType());
        wl.put("tx_latency_ms", Numbers.percentiles(f.load().latency(), 1000));
        wl.put("tx_per_second_series", f.load().transactionsPerSecond().values());
        m.put("workload", wl);
        Map<String, Object> nc = new LinkedHashMap<>();
        nc.put("snapshot_rows", f.snapshotRows());
        nc.put("warmup_changes", f.warmupChanges());
        nc.put("vanished_keys", f.vanished());
        nc.put("late_changes", f.late());
        nc.put("dead_letters", f.deadLetters());
        nc.put("warehouse_rows_written", f.rowsWritten());
        nc.put("warehouse_transactions", f.batches());
        if (f.applyMillis() != null) {
            nc.put("warehouse_transaction_ms", Numbers.percentiles(f.applyMillis(), 1));
        }
        Map<String, Object> per = new LinkedHashMap<>();
        for (TableCounts t : f.tables()) {
            Map<String, Object> tc = new LinkedHashMap<>();
            tc.put("raw", t.raw());
            tc.put("net", t.net());
            tc.put("ratio", round3(ratio(t.raw(), t.net())));
            per.put(t.table(), tc);
        }
        nc.put("per_table", per);
        m.put("net_changes", nc);
        m.put("source_settings", f.sourceSettings());
        m.put("pipeline", f.pipeline());
        m.put("infrastructure", f.infrastructure());
        if (f.captureJob() != null) {
            m.put("capture_job", f.captureJob());
        }
        m.put("machine", Machine.describe());
        List<Map<String, Object>> vt = new ArrayList<>();
        for (TableResult t : f.verification().tables()) {
            vt.add(t.asMap());
        }
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("summary", f.verification().summary());
        v.put("not_landing", f.verification().notLanding());
        v.put("tables", vt);
        m.put("verification", v);
        m.put("keyless_tables", f.keylessTables());
        if (f.initialLoad() != null) {
            m.put("initial_load", f.initialLoad());
        }
        m.put("work_dir", f.workDir());
        return JsonText.of(m);
    }

    /** The share of the machine's cores busy from which the report calls it saturated. */
    static final double SATURATED = 0.9;

    /**
     * Cores busy on average over the load and the catch-up: the machine's, PostgreSQL's and this
     * JVM's, split by what its threads work for.
     */
    static String cpuLine(CpuMeter.Usage u, int machineCores) {
        StringBuilder b =
                new StringBuilder(
                        String.format(
                                Locale.ROOT,
                                "%s of %d cores busy over %s s (load and catch-up): PostgreSQL %s,"
                                        + " this JVM %s",
                                fixed2(u.cores(u.machineSeconds())),
                                machineCores,
                                fixed2(u.wallSeconds()),
                                fixed2(u.cores(u.postgresSeconds())),
                                fixed2(u.cores(u.jvmSeconds()))));
        List<String> roles = new ArrayList<>();
        u.jvmRoles()
                .forEach(
                        (role, seconds) -> {
                            double cores = u.cores(seconds);
                            if (cores >= 0.005) {
                                roles.add(role.label() + " " + fixed2(cores));
                            }
                        });
        if (!roles.isEmpty()) {
            b.append(" (").append(String.join(", ", roles)).append(")");
        }
        double others = u.machineSeconds() - u.jvmSeconds() - u.postgresSeconds();
        b.append(", other processes ").append(fixed2(u.cores(Math.max(0, others))));
        if (u.cores(u.machineSeconds()) >= SATURATED * machineCores) {
            b.append("; the machine was saturated: latency includes waiting for a core");
        }
        return b.toString();
    }

    private static Map<String, Object> cpuJson(CpuMeter.Usage u) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("wall_s", round3(u.wallSeconds()));
        c.put("machine_s", round3(u.machineSeconds()));
        c.put("postgres_s", round3(u.postgresSeconds()));
        c.put("jvm_s", round3(u.jvmSeconds()));
        c.put("ended_processes_s", round3(u.endedSeconds()));
        Map<String, Object> roles = new LinkedHashMap<>();
        u.jvmRoles()
                .forEach(
                        (role, seconds) ->
                                roles.put(role.name().toLowerCase(Locale.ROOT), round3(seconds)));
        c.put("jvm_by_role_s", roles);
        return c;
    }

    static String stageKey(LatencyRecorder.Stage s) {
        return switch (s) {
            case CAPTURE -> "source_commit_to_debezium";
            case KAFKA -> "debezium_to_kafka_append";
            case NET_CHANGE -> "kafka_append_to_net_change";
            case WAREHOUSE -> "net_change_to_warehouse_commit";
        };
    }

    private static double ratio(long raw, long net) {
        return net == 0 ? 0 : (double) raw / net;
    }

    /** The report for people. */
    public String toText() {
        StringBuilder b = new StringBuilder();
        LoadStats l = f.load();
        long changes = l.sourceChanges();
        double secs = f.loadSeconds();
        b.append("\n");
        b.append(
                String.format(
                        Locale.ROOT,
                        "workload      %s: %s%n",
                        f.workload(),
                        f.workloadDescription()));
        b.append(
                String.format(
                        Locale.ROOT,
                        "              %s threads, target %s, %s s, seed %d, prefill %s rows%n",
                        f.threads(),
                        f.rateTarget() > 0 ? rate(f.rateTarget()) + " tx/s" : "closed loop",
                        fixed2(secs),
                        f.seed(),
                        count(f.prefillRows())));
        b.append(
                String.format(
                        Locale.ROOT,
                        "              %s tx (%s tx/s), %s row changes (%s changes/s), %s errors%n",
                        count(l.transactions()),
                        rate(l.transactions() / secs),
                        count(changes),
                        rate(changes / secs),
                        count(l.errors())));
        Map<Op, Long> rows = l.rows();
        b.append(
                String.format(
                        Locale.ROOT,
                        "              rows: %s inserted, %s updated, %s deleted, %s by trigger,"
                                + " %s selected%n",
                        count(rows.get(Op.INSERT)),
                        count(rows.get(Op.UPDATE)),
                        count(rows.get(Op.DELETE)),
                        count(l.triggeredChanges()),
                        count(rows.get(Op.SELECT))));
        b.append("              tx latency from intended start: ")
                .append(millis(l.latency(), 1000))
                .append("\n");
        if (f.initialLoad() != null) {
            b.append(
                    String.format(
                            Locale.ROOT,
                            "initial load  %s rows in %.1f s (%s rows/s), COPY at the slot's"
                                    + " snapshot, one warehouse transaction%n",
                            count(((Number) f.initialLoad().get("rows")).longValue()),
                            ((Number) f.initialLoad().get("seconds")).doubleValue(),
                            count(
                                    Math.round(
                                            ((Number) f.initialLoad().get("rows_per_s"))
                                                    .doubleValue()))));
            @SuppressWarnings("unchecked")
            Map<String, Map<String, Object>> per =
                    (Map<String, Map<String, Object>>) f.initialLoad().get("tables");
            per.forEach(
                    (t, v) ->
                            b.append(
                                    String.format(
                                            Locale.ROOT,
                                            "              %-28s %s rows in %.1f s (%s rows/s)%n",
                                            t,
                                            count(((Number) v.get("rows")).longValue()),
                                            ((Number) v.get("seconds")).doubleValue(),
                                            count(
                                                    Math.round(
                                                            ((Number) v.get("rows_per_s"))
                                                                    .doubleValue())))));
        }
        b.append(
                String.format(
                        Locale.ROOT,
                        "capture       %s changes captured (before the measured load: %s snapshot"
                                + " rows, %s warm-up changes)%n",
                        count(f.capturedChanges()),
                        count(f.snapshotRows()),
                        count(f.warmupChanges())));
        b.append(
                String.format(
                        Locale.ROOT,
                        "net changes   %s applied from %s raw: raw/net %s; %s keys cancelled out,"
                                + " %s late, %s dead letters%n",
                        count(f.netApplied()),
                        count(f.capturedChanges()),
                        fixed2(ratio(f.capturedChanges(), f.netApplied())),
                        count(f.vanished()),
                        count(f.late()),
                        count(f.deadLetters())));
        for (TableCounts t : f.tables()) {
            b.append(
                    String.format(
                            Locale.ROOT,
                            "              %-28s raw %10s  net %10s  raw/net %s%n",
                            t.table(),
                            count(t.raw()),
                            count(t.net()),
                            fixed2(ratio(t.raw(), t.net()))));
        }
        b.append(
                String.format(
                        Locale.ROOT,
                        "warehouse     %s rows written in %s transactions; caught up %s s after"
                                + " the load stopped%n",
                        count(f.rowsWritten()),
                        count(f.batches()),
                        fixed2(f.catchUpSeconds())));
        Histogram e2e = f.latency().endToEnd();
        if (f.applyMillis() != null && f.applyMillis().getTotalCount() > 0) {
            b.append("              per warehouse transaction: ")
                    .append(millis(f.applyMillis(), 1))
                    .append("\n");
        }
        b.append("latency       source commit -> warehouse commit: ")
                .append(millis(e2e, 1))
                .append(" (n=")
                .append(count(e2e.getTotalCount()))
                .append(")\n");
        Histogram gen = f.latency().fromGenerator();
        if (gen.getTotalCount() > 0) {
            b.append("              generator commit -> warehouse commit: ")
                    .append(millis(gen, 1))
                    .append("\n");
        }
        for (var e : f.latency().stages().entrySet()) {
            b.append(String.format(Locale.ROOT, "              %-40s ", e.getKey().label()))
                    .append(millis(e.getValue(), 1))
                    .append("\n");
        }
        if (f.cpu() != null && f.cpu().wallSeconds() > 0) {
            b.append("cpu           ")
                    .append(cpuLine(f.cpu(), Runtime.getRuntime().availableProcessors()))
                    .append("\n");
        }
        if (f.captureJob() != null) {
            Map<String, Object> j = f.captureJob();
            b.append(
                    String.format(
                            Locale.ROOT,
                            "capture job   %s log scan sessions, %s transactions, %s commands, max"
                                    + " latency %s s; CDC throughput %s commands/s (while more"
                                    + " than 5 s behind: %s)%n",
                            j.get("sessions"),
                            j.get("tran_count"),
                            j.get("command_count"),
                            j.get("max_latency_s"),
                            rate(j.get("cdc_throughput_commands_per_s")),
                            rate(j.get("cdc_throughput_commands_per_s_while_latency_over_5s"))));
        }
        b.append("source        ");
        List<String> settings = new ArrayList<>();
        f.sourceSettings().forEach((k, v) -> settings.add(k + "=" + v));
        b.append(String.join(" ", settings)).append("\n");
        List<String> pipe = new ArrayList<>();
        f.pipeline().forEach((k, v) -> pipe.add(k + "=" + v));
        b.append("pipeline      ").append(String.join(" ", pipe)).append("\n");
        b.append("infra         ").append(f.infrastructure().get("kind"));
        if (f.infrastructure().get("images") instanceof Map<?, ?> images && !images.isEmpty()) {
            List<String> im = new ArrayList<>();
            images.forEach((k, v) -> im.add(k + "=" + v));
            b.append(" ").append(String.join(" ", im));
        }
        b.append("\n");
        if (!f.keylessTables().isEmpty()) {
            List<String> kl = new ArrayList<>();
            f.keylessTables().forEach((t, how) -> kl.add(t + " (" + how + ")"));
            b.append("no key        ")
                    .append(String.join(", ", kl))
                    .append(": applied row by row, compared as rows\n");
        }
        b.append("machine       ").append(Machine.oneLine()).append("\n");
        b.append("work dir      ").append(f.workDir()).append("\n");
        if (!f.verification().notLanding().isEmpty()) {
            b.append("cannot land   ")
                    .append(String.join("; ", f.verification().notLanding()))
                    .append(" (left out of the comparison)\n");
        }
        for (TableResult t : f.verification().tables()) {
            if (t.skipped() != null) {
                b.append(
                        String.format(
                                Locale.ROOT, "  %-28s skipped: %s%n", t.table(), t.skipped()));
                continue;
            }
            b.append(
                    String.format(
                            Locale.ROOT,
                            "  %-28s %s  source %s rows %s  warehouse %s rows %s%n",
                            t.table(),
                            t.matches() ? "ok  " : "DIFF",
                            count(t.sourceRows()),
                            t.sourceChecksum(),
                            count(t.warehouseRows()),
                            t.warehouseChecksum()));
            for (var d : t.differences()) {
                b.append("      ").append(d).append("\n");
            }
        }
        b.append(verified() ? "verified: " : "NOT verified: ")
                .append(f.verification().summary())
                .append("\n");
        return b.toString();
    }
}
