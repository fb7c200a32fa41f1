package dev.cdclab.cli;

import dev.cdclab.format.Numbers;
import dev.cdclab.instance.InstanceSlot;
import dev.cdclab.orchestration.admin.AdminServer;
import dev.cdclab.sink.SinkConfig;
import dev.cdclab.sink.WarehouseSink;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code cdc-lab sink}: one warehouse sink instance. */
@Command(
        name = "sink",
        mixinStandardHelpOptions = true,
        description = {
            "Run one warehouse sink against a Kafka cluster. Several instances in one group share"
                    + " the partitions when the warehouse takes concurrent writers (PostgreSQL;"
                    + " a DuckDB file admits one process).",
            "A PostgreSQL warehouse password comes from CDCLAB_WAREHOUSE_PASSWORD."
        })
final class SinkCommand implements Callable<Integer> {
    @Option(names = "--bootstrap-servers", description = "Kafka bootstrap servers.")
    String bootstrap;

    @Option(names = "--warehouse-url", description = "jdbc:duckdb:<file> or jdbc:postgresql://...")
    String warehouseUrl;

    @Option(names = "--group-id", description = "Consumer group.")
    String groupId;

    @Mixin StageOptions stage;

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        Map<String, String> explicit = new LinkedHashMap<>();
        explicit.put(SinkConfig.BOOTSTRAP_SERVERS.key(), bootstrap);
        explicit.put(SinkConfig.WAREHOUSE_URL.key(), warehouseUrl);
        explicit.put(SinkConfig.GROUP_ID.key(), groupId);
        SinkConfig config = new SinkConfig(stage.build(SinkConfig.builder(), explicit));
        Path workDir = Commands.workDir(Path.of("cdc-lab-runs", "sink"), "", "sink");
        if (config.get(SinkConfig.GROUP_INSTANCE_ID) == null) {
            // several sinks may run on one machine: each holds a slot of its own, whose member
            // id a restarted sink takes back (and with it its partitions, without a rebalance)
            InstanceSlot slot = InstanceSlot.claim(workDir.resolve("instances"));
            Commands.closeOnShutdown(slot);
            explicit.put(SinkConfig.GROUP_INSTANCE_ID.key(), slot.memberId());
            config = new SinkConfig(stage.build(SinkConfig.builder(), explicit));
        }
        Commands.logTo(workDir, "sink-" + ProcessHandle.current().pid() + ".log");
        AdminServer.requireFree(stage.adminPort);
        WarehouseSink sink = new WarehouseSink(config);
        CountDownLatch stopped = new CountDownLatch(1);
        Commands.closeOnShutdown(stopped::countDown);
        Commands.closeOnShutdown(sink);
        sink.start(Duration.ofSeconds(30));
        out.println(
                "sink running: "
                        + config.get(SinkConfig.TOPIC)
                        + " -> "
                        + config.get(SinkConfig.WAREHOUSE_URL)
                        + " (Ctrl-C to stop)");
        AdminServer admin = AdminServer.forSink(sink, stage.adminPort, stage.adminToken());
        Commands.closeOnShutdown(admin);
        out.println("  metrics " + admin.url() + "/metrics  query " + admin.url() + "/query");
        Commands.printTokenUnlessGiven(out, admin.token(), stage.adminTokenGiven());
        Commands.runUntilStopped(
                out,
                stopped,
                Commands.failsWith("sink", sink::failure),
                () -> {
                    var lat = sink.latency().endToEnd();
                    return String.format(
                            Locale.ROOT,
                            "applied %s net changes (%s raw) | waiting %s | e2e p99 %s",
                            Numbers.count(sink.stats().netChanges()),
                            Numbers.count(sink.stats().rawChanges()),
                            Numbers.count(sink.stats().held()),
                            lat.getTotalCount() == 0
                                    ? "-"
                                    : Numbers.ms(lat.getValueAtPercentile(99)));
                });
        return 0;
    }
}
