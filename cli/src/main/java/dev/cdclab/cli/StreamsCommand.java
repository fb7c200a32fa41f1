package dev.cdclab.cli;

import dev.cdclab.format.Numbers;
import dev.cdclab.orchestration.admin.AdminServer;
import dev.cdclab.streams.NetChangeApp;
import dev.cdclab.streams.NetChangeConfig;
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

/** {@code cdc-lab streams}: one instance of the net-change Streams app. */
@Command(
        name = "streams",
        mixinStandardHelpOptions = true,
        description = {
            "Run one instance of the net-change Kafka Streams app against a Kafka cluster. Start"
                    + " more instances with the same application.id to share the partitions."
        })
final class StreamsCommand implements Callable<Integer> {
    @Option(names = "--bootstrap-servers", description = "Kafka bootstrap servers.")
    String bootstrap;

    @Option(names = "--application-id", description = "Kafka Streams application id.")
    String applicationId;

    @Mixin StageOptions stage;

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        Map<String, String> explicit = new LinkedHashMap<>();
        explicit.put(NetChangeConfig.BOOTSTRAP_SERVERS.key(), bootstrap);
        explicit.put(NetChangeConfig.APPLICATION_ID.key(), applicationId);
        NetChangeConfig config =
                new NetChangeConfig(stage.build(NetChangeConfig.builder(), explicit));
        Commands.logTo(
                Commands.workDir(Path.of("cdc-lab-runs", "streams"), "", "streams"),
                "streams-" + ProcessHandle.current().pid() + ".log");
        AdminServer.requireFree(stage.adminPort);
        NetChangeApp app = new NetChangeApp(config);
        CountDownLatch stopped = new CountDownLatch(1);
        Commands.closeOnShutdown(stopped::countDown);
        Commands.closeOnShutdown(app);
        // a new instance that replaces a killed one (not restarted in its slot) waits for the
        // group to drop the old member: session.timeout
        app.start(Duration.ofMinutes(5));
        out.println(
                "net-change app "
                        + config.get(NetChangeConfig.APPLICATION_ID)
                        + " running: "
                        + config.changeTopic()
                        + " -> "
                        + config.get(NetChangeConfig.NET_CHANGES_TOPIC)
                        + " (Ctrl-C to stop)");
        AdminServer admin = AdminServer.forStreams(app, stage.adminPort, stage.adminToken());
        Commands.closeOnShutdown(admin);
        out.println("  metrics " + admin.url() + "/metrics  status " + admin.url() + "/status");
        Commands.printTokenUnlessGiven(out, admin.token(), stage.adminTokenGiven());
        Commands.runUntilStopped(
                out,
                stopped,
                Commands.failsWith("net-change app", app::failure),
                () ->
                        String.format(
                                Locale.ROOT,
                                "raw %s | net %s | cancelled out %s | late %s | dead letters %s",
                                Numbers.count(app.stats().rawChanges()),
                                Numbers.count(app.stats().netChanges()),
                                Numbers.count(app.stats().vanished()),
                                Numbers.count(app.stats().late()),
                                Numbers.count(app.stats().deadLetters())));
        return 0;
    }
}
