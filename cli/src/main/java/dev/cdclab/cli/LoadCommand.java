package dev.cdclab.cli;

import dev.cdclab.config.Durations;
import dev.cdclab.config.SourceKind;
import dev.cdclab.format.Numbers;
import dev.cdclab.lab.report.PrefillProgress;
import dev.cdclab.lab.report.ProgressLine;
import dev.cdclab.lab.report.RateMeter;
import dev.cdclab.load.run.LoadReport;
import dev.cdclab.load.run.LoadRunner;
import dev.cdclab.load.run.LoadStats;
import dev.cdclab.load.workload.Workload;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code cdc-lab load}: the load generator alone, against any PostgreSQL. */
@Command(
        name = "load",
        mixinStandardHelpOptions = true,
        description = {
            "Run a workload against a source database, open loop, and report tx/s, changes/s and"
                    + " the transaction latency histogram. Creates (drops and recreates) the"
                    + " workload's own tables unless --setup=reuse.",
            "The password comes from CDCLAB_SOURCE_PASSWORD or --password-file."
        })
final class LoadCommand implements Callable<Integer> {
    @Mixin WorkloadKnobs knobs;

    @Option(
            names = "--jdbc-url",
            required = true,
            description =
                    "e.g. jdbc:postgresql://localhost:5432/app or"
                            + " jdbc:sqlserver://localhost:1433;databaseName=app;trustServerCertificate=true")
    String jdbcUrl;

    @Option(
            names = "--source",
            paramLabel = "DB",
            converter = PipelineOptions.SourceKindConverter.class,
            description =
                    "postgres or sqlserver; default: what --jdbc-url names. Selects the workload's"
                            + " SQL (T-SQL for sqlserver).")
    SourceKind source;

    @Option(
            names = "--user",
            description = "Database user (default: postgres, or sa for sqlserver).")
    String user;

    @Option(
            names = "--password-file",
            paramLabel = "FILE",
            description = "File holding the password.")
    Path passwordFile;

    @Option(
            names = "--workload",
            defaultValue = "mix",
            description = "Workload: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).",
            completionCandidates = RunCommand.WorkloadNames.class)
    String workload;

    @Option(
            names = "--duration",
            defaultValue = "30s",
            converter = Commands.DurationConverter.class,
            description = "How long to issue transactions (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(
            names = "--rate",
            defaultValue = "1000",
            description =
                    "Target tx/s, open loop; 0 = as fast as possible (default: ${DEFAULT-VALUE}).")
    double rate;

    @Option(
            names = "--setup",
            defaultValue = "create",
            description =
                    "create: drop and create the workload's tables and prefill; reuse: use them as they are.")
    String setup;

    @Option(
            names = "--transactions",
            defaultValue = "0",
            description = "Stop after this many transactions (0 = run for --duration).")
    long transactions;

    @Option(
            names = "--report-json",
            paramLabel = "FILE",
            description = "Write the result as JSON to FILE.")
    Path reportJson;

    @Override
    public Integer call() throws Exception {
        if (!setup.equals("create") && !setup.equals("reuse")) {
            throw new IllegalArgumentException("--setup must be create or reuse");
        }
        if (rate < 0) {
            throw new IllegalArgumentException("--rate must be >= 0");
        }
        PrintStream out = System.out;
        Path logs = Commands.workDir(Path.of("cdc-lab-runs", "load-logs"), "", "load");
        Commands.logTo(logs, "load.log");
        String password =
                passwordFile != null
                        ? Files.readString(passwordFile).trim()
                        : System.getenv("CDCLAB_SOURCE_PASSWORD");
        SourceKind byUrl =
                jdbcUrl.startsWith("jdbc:sqlserver:") ? SourceKind.SQLSERVER : SourceKind.POSTGRES;
        Properties props = new Properties();
        props.setProperty(
                "user", user != null ? user : byUrl == SourceKind.SQLSERVER ? "sa" : "postgres");
        if (password != null) {
            props.setProperty("password", password);
        }
        props.setProperty(byUrl == SourceKind.SQLSERVER ? "loginTimeout" : "connectTimeout", "10");
        if (source != null && source != byUrl) {
            throw new IllegalArgumentException(
                    "--source " + source.label() + " does not match --jdbc-url " + jdbcUrl);
        }
        Workload wl = knobs.create(workload, byUrl);
        try (Connection c = DriverManager.getConnection(jdbcUrl, props)) {
            if (setup.equals("create")) {
                wl.createSchema(c);
                PrefillProgress bar = new PrefillProgress(out, wl.prefillRows());
                long n = wl.prefill(c, bar);
                bar.done(n);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot prepare " + jdbcUrl + ": " + e.getMessage(), e);
        }
        LoadRunner runner =
                new LoadRunner(
                        wl,
                        () -> DriverManager.getConnection(jdbcUrl, props),
                        new LoadRunner.Options(knobs.threads, rate, duration, transactions));
        LoadStats stats = runner.stats();
        RateMeter txRate = new RateMeter(0);
        RateMeter changeRate = new RateMeter(0);
        out.printf(
                Locale.ROOT,
                "%s on %s: %d threads, %s, %s%n",
                wl.name(),
                jdbcUrl,
                knobs.threads,
                rate > 0 ? Numbers.rate(rate) + " tx/s target" : "closed loop",
                Durations.format(duration));
        try (ProgressLine p =
                new ProgressLine(
                        out,
                        () -> {
                            long tx = stats.transactions();
                            long ch = stats.sourceChanges();
                            Histogram h = stats.latencySinceLastCall();
                            String s =
                                    String.format(
                                            Locale.ROOT,
                                            "%5.0fs | %s tx/s | %s changes/s | p99 %s | errors %s",
                                            runner.elapsedSeconds(),
                                            Numbers.count(Math.round(txRate.perSecond(tx))),
                                            Numbers.count(Math.round(changeRate.perSecond(ch))),
                                            h.getTotalCount() == 0
                                                    ? "-"
                                                    : Numbers.ms(
                                                            h.getValueAtPercentile(99) / 1000.0),
                                            Numbers.count(stats.errors()));
                            return s;
                        })) {
            runner.run();
        }
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("jdbc_url", jdbcUrl);
        settings.put("threads", knobs.threads);
        settings.put("rate_target_tx_per_s", rate);
        settings.put("duration", Durations.format(duration));
        settings.put("seed", knobs.seed);
        settings.put("prefill_rows", wl.prefillRows());
        LoadReport report = new LoadReport(wl.name(), settings, stats, runner.elapsedSeconds());
        out.print(report.toText());
        if (reportJson != null) {
            Files.writeString(reportJson, report.toJson());
        }
        if (runner.firstError() != null) {
            out.println("first error: " + runner.firstError().getMessage());
        }
        return stats.transactions() > 0 ? 0 : CdcLab.FAILED;
    }
}
