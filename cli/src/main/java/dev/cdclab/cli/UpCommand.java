package dev.cdclab.cli;

import dev.cdclab.format.Numbers;
import dev.cdclab.lab.report.InfraDescription;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.orchestration.admin.AdminServer;
import dev.cdclab.orchestration.admin.AdminToken;
import dev.cdclab.orchestration.infra.InfraKind;
import dev.cdclab.orchestration.infra.WarehouseServer;
import dev.cdclab.sink.SinkConfig;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code cdc-lab up}: the pipeline with no generated load, for your own writes. */
@Command(
        name = "up",
        mixinStandardHelpOptions = true,
        description = {
            "Start the embedded pipeline and keep it running with no generated load. Tables you"
                    + " create in the source's public schema are captured and land in the"
                    + " warehouse. Ctrl-C or SIGTERM stops everything; the warehouse file stays.",
        })
final class UpCommand implements Callable<Integer> {
    @Option(
            names = "--endpoints-file",
            paramLabel = "FILE",
            description = "Write the endpoints as JSON to FILE (for 'cdc-lab verify').")
    Path endpointsFile;

    @Option(
            names = "--source-port",
            defaultValue = "0",
            description = "Source PostgreSQL port; 0 = a free one (default: ${DEFAULT-VALUE}).")
    int sourcePort;

    @Option(
            names = "--kafka-port",
            defaultValue = "0",
            description = "Kafka broker port; 0 = a free one (default: ${DEFAULT-VALUE}).")
    int kafkaPort;

    @Option(
            names = "--admin-port",
            defaultValue = "0",
            description =
                    "Port of the live page, /metrics, /query and /status on 127.0.0.1; 0 = a free"
                            + " one (default: ${DEFAULT-VALUE}).")
    int adminPort;

    @Option(
            names = "--without",
            split = ",",
            paramLabel = "STAGES",
            description =
                    "Stages not to start here (streams, sink), to run them as processes of their"
                            + " own with 'cdc-lab streams' and 'cdc-lab sink'; the commands to do"
                            + " so are printed.")
    List<Pipeline.Stage> without;

    @Mixin PipelineOptions pipelineOptions;

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        String runId = Commands.newRunId();
        Path work = Commands.workDir(pipelineOptions.workDir, runId, "up");
        Commands.logTo(work, "cdc-lab.log");
        Pipeline.Builder b =
                Pipeline.builder()
                        .workDir(work)
                        .runId(runId)
                        .shutdownHooks(false)
                        .sourcePort(sourcePort)
                        .kafkaPort(kafkaPort);
        pipelineOptions.apply(b);
        if (without != null) {
            b.without(without);
        }
        if (pipelineOptions.infraKind() != InfraKind.EMBEDDED
                && (sourcePort != 0 || kafkaPort != 0)) {
            throw new IllegalArgumentException(
                    "--source-port and --kafka-port apply to --infra embedded only");
        }
        AdminServer.requireFree(adminPort);
        Pipeline p = b.build();
        CountDownLatch stopped = new CountDownLatch(1);
        Commands.closeOnShutdown(stopped::countDown);
        Commands.closeOnShutdown(p);
        out.println(
                "starting "
                        + pipelineOptions.infraKind().label()
                        + " PostgreSQL, Kafka, Kafka Connect + Debezium"
                        + (b.without().contains(Pipeline.Stage.STREAMS) ? "" : ", Streams")
                        + (b.without().contains(Pipeline.Stage.SINK) ? "" : ", sink")
                        + " ...");
        long t0 = System.nanoTime();
        p.start();
        AdminToken token = AdminToken.fromEnvironmentOrNew();
        AdminServer admin = AdminServer.forPipeline(p, adminPort, token);
        Commands.closeOnShutdown(admin);
        var src = p.source();
        var wh = p.warehouseServer();
        Endpoints e =
                new Endpoints(
                        src.jdbcUrl(),
                        src.host(),
                        src.port(),
                        src.database(),
                        src.user(),
                        src.password(),
                        p.infrastructure().kafkaBootstrapServers(),
                        p.infrastructure().connectUrl(),
                        p.warehouseUrl(),
                        wh != null ? wh.user() : null,
                        wh != null ? wh.password() : null,
                        admin.url(),
                        token.reveal());
        if (endpointsFile != null) {
            e.write(endpointsFile);
        }
        out.printf(
                Locale.ROOT, "pipeline %s up in %.1f s%n", runId, (System.nanoTime() - t0) / 1e9);
        out.println("  source JDBC URL   " + e.sourceJdbcUrl());
        out.println(
                "  source            host "
                        + e.sourceHost()
                        + "  port "
                        + e.sourcePort()
                        + "  database "
                        + e.sourceDatabase()
                        + "  user "
                        + e.sourceUser()
                        + "  password "
                        + e.sourcePassword());
        if (src.kind() == dev.cdclab.config.SourceKind.SQLSERVER) {
            out.printf(
                    Locale.ROOT,
                    "  sqlcmd            SQLCMDPASSWORD=%s sqlcmd -S %s,%d -U %s -d %s -C%n",
                    e.sourcePassword(),
                    e.sourceHost(),
                    e.sourcePort(),
                    e.sourceUser(),
                    e.sourceDatabase());
        } else {
            out.printf(
                    Locale.ROOT,
                    "  psql              PGPASSWORD=%s psql -h %s -p %d -U %s %s%n",
                    e.sourcePassword(),
                    e.sourceHost(),
                    e.sourcePort(),
                    e.sourceUser(),
                    e.sourceDatabase());
        }
        out.println("  infrastructure    " + InfraDescription.line(p.infrastructure()));
        out.println("  Kafka bootstrap   " + e.kafkaBootstrap());
        out.println("  Connect REST      " + e.connectUrl());
        out.println("  warehouse         " + e.warehouseUrl());
        if (wh != null) {
            out.printf(
                    Locale.ROOT,
                    "  warehouse psql    PGPASSWORD=%s psql -h %s -p %d -U %s %s%n",
                    wh.password(),
                    wh.host(),
                    wh.port(),
                    wh.user(),
                    WarehouseServer.DATABASE);
        }
        out.println("  live page         " + admin.pageUrl());
        out.println("  metrics           " + e.adminUrl() + "/metrics  (Prometheus)");
        out.println(
                "  admin             "
                        + e.adminUrl()
                        + "  (POST /query, GET /status, POST /verify, POST /resnapshot?table=;"
                        + " 'Authorization: Bearer <token>', the token in the endpoints file and"
                        + " the live page's address)");
        if (endpointsFile != null) {
            out.println("  endpoints file    " + endpointsFile.toAbsolutePath());
        }
        out.println("  logs              " + Commands.currentLogFile());
        if (p.streams() == null) {
            out.println("  run the net-change app yourself (as many as you like):");
            out.println(
                    "    "
                            + AdminToken.ENV
                            + "="
                            + token.reveal()
                            + " ./cdc-lab streams"
                            + setArgs(p.netChangeConfig().raw().toProperties()));
        }
        if (p.sink() == null) {
            out.println("  run the sink yourself:");
            boolean needsPassword = p.warehouseUrl().startsWith("jdbc:postgresql:");
            Map<String, String> sinkArgs = new LinkedHashMap<>(p.sinkConfig().raw().toProperties());
            // the password goes in the environment, where the sink looks for it
            sinkArgs.remove(SinkConfig.WAREHOUSE_PASSWORD.key());
            sinkArgs.remove(SinkConfig.QUERY_PASSWORD.key());
            String password = wh != null ? wh.password() : "...";
            String queryPassword =
                    wh != null && sinkArgs.containsKey(SinkConfig.QUERY_USER.key())
                            ? "CDCLAB_QUERY_PASSWORD=" + wh.readerPassword() + " "
                            : "";
            out.println(
                    "    "
                            + AdminToken.ENV
                            + "="
                            + token.reveal()
                            + " "
                            + (needsPassword ? "CDCLAB_WAREHOUSE_PASSWORD=" + password + " " : "")
                            + queryPassword
                            + "./cdc-lab sink"
                            + setArgs(sinkArgs));
        }
        out.println("Ctrl-C to stop.");
        Commands.runUntilStopped(
                out,
                stopped,
                p::checkHealthy,
                () -> {
                    if (p.streams() == null || p.sink() == null) {
                        return "capture running; stages outside this process: "
                                + p.spec().without().toString().toLowerCase(Locale.ROOT);
                    }
                    var ns = p.streams().stats();
                    var ss = p.sink().stats();
                    var lat = p.sink().latency().endToEnd();
                    return String.format(
                            Locale.ROOT,
                            "captured %s | net changes applied %s | waiting %s | e2e p50 %s p99 %s",
                            Numbers.count(ns.rawChanges()),
                            Numbers.count(ss.netChanges()),
                            Numbers.count(ss.held()),
                            lat.getTotalCount() == 0
                                    ? "-"
                                    : Numbers.ms(lat.getValueAtPercentile(50)),
                            lat.getTotalCount() == 0
                                    ? "-"
                                    : Numbers.ms(lat.getValueAtPercentile(99)));
                });
        return 0;
    }

    private static String setArgs(Map<String, String> settings) {
        StringBuilder sb = new StringBuilder();
        settings.forEach((k, v) -> sb.append(" -D '").append(k).append('=').append(v).append('\''));
        return sb.toString();
    }
}
