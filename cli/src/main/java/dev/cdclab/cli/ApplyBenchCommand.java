package dev.cdclab.cli;

import dev.cdclab.capture.PostgresCapture;
import dev.cdclab.format.JsonText;
import dev.cdclab.format.Numbers;
import dev.cdclab.lab.bench.ApplyBench;
import dev.cdclab.lab.report.Machine;
import dev.cdclab.lab.report.PrefillProgress;
import dev.cdclab.orchestration.infra.WarehouseServer;
import dev.cdclab.sink.warehouse.WarehouseWriter;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cdc-lab apply-bench}: the warehouse apply's cost against the size of the table. */
@Command(
        name = "apply-bench",
        mixinStandardHelpOptions = true,
        description = {
            "Time the warehouse apply alone against the size of the table it writes, without the"
                    + " rest of the pipeline: for each --rows, a new table is filled to that size"
                    + " through the sink's writer, then warehouse transactions of net changes (new"
                    + " keys, updates and deletes of random existing keys) are applied one by one"
                    + " and timed.",
            "Prints per size the wall time per warehouse transaction and the JVM's CPU time in it"
                    + " (all of DuckDB's work; none of a PostgreSQL server's), and the ratio of the"
                    + " last size's p50 to the first's."
        })
final class ApplyBenchCommand implements Callable<Integer> {
    /** The warehouses the bench starts. */
    enum Warehouse {
        duckdb,
        postgresql
    }

    @Option(
            names = "--rows",
            split = ",",
            paramLabel = "N",
            defaultValue = "50000,10000000",
            description = "Table sizes to measure, in this order (default: ${DEFAULT-VALUE}).")
    List<Long> rows;

    @Option(
            names = "--warehouse",
            defaultValue = "duckdb",
            description =
                    "duckdb (a new file per size) or postgresql (an embedded server, a new table"
                            + " per size) (default: ${DEFAULT-VALUE}).")
    Warehouse warehouse;

    @Option(
            names = "--transactions",
            defaultValue = "200",
            description = "Timed warehouse transactions per size (default: ${DEFAULT-VALUE}).")
    int transactions;

    @Option(
            names = "--warmup-transactions",
            defaultValue = "50",
            description =
                    "Transactions applied before the timed ones, not timed (default: ${DEFAULT-VALUE}).")
    int warmupTransactions;

    @Option(
            names = "--changes",
            defaultValue = "800",
            description = "Net changes per warehouse transaction (default: ${DEFAULT-VALUE}).")
    int changes;

    @Option(
            names = "--tables",
            defaultValue = "1",
            description =
                    "Tables of the same layout each transaction's changes are dealt to, in turn,"
                            + " each filled to --rows (default: ${DEFAULT-VALUE}).")
    int tables;

    @Option(
            names = "--insert-share",
            defaultValue = "0.45",
            description =
                    "Share of the changes that insert a new key; the rest update or delete"
                            + " existing keys, three to one (default: ${DEFAULT-VALUE}).")
    double insertShare;

    @Option(
            names = "--seed",
            defaultValue = "1",
            description = "Random seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--durable",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description =
                    "PostgreSQL warehouse with fsync=on and synchronous_commit=on (default)."
                            + " --no-durable turns both off.")
    boolean durable;

    @Option(
            names = "--server-setting",
            paramLabel = "NAME=VALUE",
            description =
                    "A PostgreSQL warehouse server setting on top of the embedded server's, e.g."
                            + " shared_buffers=1GB; repeatable. The report prints what the server"
                            + " ran with.")
    Map<String, String> serverSettings = new LinkedHashMap<>();

    @Option(
            names = "--work-dir",
            paramLabel = "DIR",
            description =
                    "Directory for the warehouse and logs; the warehouse is removed at the end"
                            + " (default: cdc-lab-runs/<time>-<id>).")
    Path workDir;

    @Option(
            names = "--report-json",
            paramLabel = "FILE",
            description = "Write the figures as JSON to FILE.")
    Path reportJson;

    @Override
    public Integer call() throws Exception {
        if (rows.isEmpty() || rows.stream().anyMatch(r -> r < 0)) {
            throw new IllegalArgumentException("--rows must list sizes of 0 or more");
        }
        if (transactions < 1) {
            throw new IllegalArgumentException("--transactions must be at least 1");
        }
        if (warmupTransactions < 0) {
            throw new IllegalArgumentException("--warmup-transactions must be 0 or more");
        }
        if (changes < 1) {
            throw new IllegalArgumentException("--changes must be at least 1");
        }
        if (tables < 1) {
            throw new IllegalArgumentException("--tables must be at least 1");
        }
        if (insertShare < 0 || insertShare > 1) {
            throw new IllegalArgumentException("--insert-share must be between 0 and 1");
        }
        if (!serverSettings.isEmpty() && warehouse != Warehouse.postgresql) {
            throw new IllegalArgumentException(
                    "--server-setting applies to --warehouse postgresql only");
        }
        for (var e : serverSettings.entrySet()) {
            if (!e.getKey().matches("[a-z_][a-z0-9_.]*") || e.getValue().isBlank()) {
                throw new IllegalArgumentException(
                        "--server-setting must be NAME=VALUE with a PostgreSQL setting name, got "
                                + e.getKey()
                                + "="
                                + e.getValue());
            }
        }
        ApplyBench.Settings settings =
                new ApplyBench.Settings(
                        transactions, warmupTransactions, changes, insertShare, seed);
        String runId = Commands.newRunId();
        Path work = Commands.workDir(workDir, runId, "apply-bench");
        Commands.logTo(work, "cdc-lab.log");
        PrintStream out = System.out;
        out.printf(
                Locale.ROOT,
                "cdc-lab apply-bench %s: %s, transactions of %d net changes%s (%.0f%% inserts), %d"
                        + " timed after %d, machine %s%n",
                runId,
                warehouse == Warehouse.postgresql
                        ? "PostgreSQL warehouse (" + (durable ? "durable" : "not durable") + ")"
                        : "DuckDB warehouse",
                changes,
                tables == 1 ? "" : " over " + tables + " tables",
                insertShare * 100,
                transactions,
                warmupTransactions,
                Machine.oneLine());
        out.println("work dir " + work);
        WarehouseServer server = null;
        String serverLine = null;
        List<Map<String, Object>> sizes = new ArrayList<>();
        List<ApplyBench.Result> results = new ArrayList<>();
        try {
            if (warehouse == Warehouse.postgresql) {
                out.println("starting embedded PostgreSQL ...");
                server =
                        WarehouseServer.start(
                                work.resolve("warehouse-pg"),
                                work.resolve("logs").resolve("warehouse-pg.log"),
                                durable,
                                serverSettings);
                Commands.closeOnShutdown(server);
                serverLine = settingsLine(server, serverSettings.keySet());
                out.println("warehouse " + serverLine);
            }
            out.println(
                    "      rows | fill s | p50 ms | p90 ms | p99 ms | JVM CPU ms p50 | rows after");
            for (long n : rows) {
                String url =
                        server != null
                                ? server.jdbcUrl()
                                : "jdbc:duckdb:" + work.resolve("apply-" + n + ".duckdb");
                try (WarehouseWriter writer =
                        new WarehouseWriter(
                                url,
                                server != null ? server.user() : null,
                                server != null ? server.password() : null)) {
                    ApplyBench bench = new ApplyBench(writer, "bench.apply_" + n, tables, settings);
                    PrefillProgress bar = new PrefillProgress(out, n * tables);
                    ApplyBench.Result r = bench.run(n, bar);
                    results.add(r);
                    out.printf(
                            Locale.ROOT,
                            "%10s | %6.1f | %6.1f | %6.1f | %6.1f | %14.1f | %s%n",
                            Numbers.count(r.tableRows()),
                            r.fillSeconds(),
                            ms(r.wallMicros(), 50),
                            ms(r.wallMicros(), 90),
                            ms(r.wallMicros(), 99),
                            ms(r.cpuMicros(), 50),
                            Numbers.count(r.endRows()));
                    sizes.add(asMap(r));
                }
                if (server == null) {
                    // a table of millions of rows is hundreds of MB: the figures are what stays
                    Files.deleteIfExists(work.resolve("apply-" + n + ".duckdb"));
                    Files.deleteIfExists(work.resolve("apply-" + n + ".duckdb.wal"));
                }
            }
        } finally {
            if (server != null) {
                server.close();
            }
        }
        Double ratio = null;
        if (results.size() > 1) {
            ratio =
                    ms(results.get(results.size() - 1).wallMicros(), 50)
                            / ms(results.get(0).wallMicros(), 50);
            out.printf(
                    Locale.ROOT,
                    "p50 at %s rows / p50 at %s rows: %.2fx%n",
                    Numbers.count(results.get(results.size() - 1).tableRows()),
                    Numbers.count(results.get(0).tableRows()),
                    ratio);
        }
        if (reportJson != null) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("warehouse", warehouse.name());
            m.put("durable", warehouse == Warehouse.postgresql ? durable : null);
            m.put("server_settings", serverLine);
            m.put("transactions", transactions);
            m.put("warmup_transactions", warmupTransactions);
            m.put("changes_per_transaction", changes);
            m.put("tables", tables);
            m.put("insert_share", insertShare);
            m.put("seed", seed);
            m.put("sizes", sizes);
            m.put("p50_ratio_last_to_first", ratio == null ? null : Numbers.round3(ratio));
            m.put("machine", Machine.describe());
            JsonText.write(reportJson, m);
        }
        return 0;
    }

    /** The warehouse server's settings that decide its durability and log volume. */
    private static String settingsLine(WarehouseServer server, Set<String> alsoShown)
            throws SQLException {
        StringBuilder line = new StringBuilder();
        Set<String> names = new LinkedHashSet<>(List.of(PostgresCapture.REPORTED_SETTINGS));
        names.addAll(alsoShown);
        try (Connection c = server.connect();
                Statement s = c.createStatement()) {
            for (String name : names) {
                if (name.equals("wal_level")) {
                    continue;
                }
                try (ResultSet rs = s.executeQuery("SHOW " + name)) {
                    rs.next();
                    line.append(line.length() == 0 ? "" : " ")
                            .append(name)
                            .append('=')
                            .append(rs.getString(1));
                }
            }
        }
        return line.toString();
    }

    private static double ms(Histogram h, double percentile) {
        return h.getValueAtPercentile(percentile) / 1000.0;
    }

    private static Map<String, Object> asMap(ApplyBench.Result r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("table_rows", r.tableRows());
        m.put("fill_s", Numbers.round3(r.fillSeconds()));
        m.put("p50_ms", ms(r.wallMicros(), 50));
        m.put("p90_ms", ms(r.wallMicros(), 90));
        m.put("p99_ms", ms(r.wallMicros(), 99));
        m.put("jvm_cpu_p50_ms", ms(r.cpuMicros(), 50));
        m.put("rows_after", r.endRows());
        return m;
    }
}
