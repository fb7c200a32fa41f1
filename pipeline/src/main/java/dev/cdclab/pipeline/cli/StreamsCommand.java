package dev.cdclab.pipeline.cli;

import dev.cdclab.pipeline.report.Numbers;
import dev.cdclab.pipeline.report.ProgressLine;
import dev.cdclab.streams.NetChangeApp;
import dev.cdclab.streams.NetChangeConfig;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
        NetChangeConfig config =
                new NetChangeConfig(
                        stage.build(
                                NetChangeConfig.builder(),
                                Map.of(
                                        NetChangeConfig.BOOTSTRAP_SERVERS.key(),
                                        bootstrap == null ? "" : bootstrap,
                                        NetChangeConfig.APPLICATION_ID.key(),
                                        applicationId == null
                                                ? NetChangeConfig.APPLICATION_ID.defaultValue()
                                                : applicationId)));
        if (config.get(NetChangeConfig.BOOTSTRAP_SERVERS).isBlank()) {
            throw new IllegalArgumentException(
                    "--bootstrap-servers (or bootstrap.servers) is required");
        }
        Commands.logTo(
                Commands.workDir(Path.of("cdc-lab-runs", "streams"), "", "streams"), "streams.log");
        NetChangeApp app = new NetChangeApp(config);
        CountDownLatch stopped = new CountDownLatch(1);
        Commands.closeOnShutdown(stopped::countDown);
        Commands.closeOnShutdown(app);
        app.start(Duration.ofSeconds(60));
        out.println(
                "net-change app "
                        + config.get(NetChangeConfig.APPLICATION_ID)
                        + " running: "
                        + config.changeTopic()
                        + " -> "
                        + config.get(NetChangeConfig.NET_CHANGES_TOPIC)
                        + " (Ctrl-C to stop)");
        try (ProgressLine p =
                new ProgressLine(
                        out,
                        () ->
                                String.format(
                                        Locale.ROOT,
                                        "raw %s | net %s | cancelled out %s | late %s | dead"
                                                + " letters %s",
                                        Numbers.count(app.stats().rawChanges()),
                                        Numbers.count(app.stats().netChanges()),
                                        Numbers.count(app.stats().vanished()),
                                        Numbers.count(app.stats().late()),
                                        Numbers.count(app.stats().deadLetters())))) {
            while (!stopped.await(1, TimeUnit.SECONDS)) {
                if (app.failure().isPresent()) {
                    throw new IllegalStateException(
                            "net-change app failed: " + app.failure().get().getMessage());
                }
            }
        }
        return 0;
    }
}
