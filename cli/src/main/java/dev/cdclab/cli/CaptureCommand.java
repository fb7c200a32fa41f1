package dev.cdclab.cli;

import dev.cdclab.capture.CaptureConfig;
import dev.cdclab.capture.CaptureSource;
import dev.cdclab.capture.ConnectRestClient;
import dev.cdclab.capture.DebeziumConnectorConfig;
import dev.cdclab.config.RunNames;
import dev.cdclab.config.SourceKind;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code cdc-lab capture}: the Debezium connector, for any Kafka Connect cluster. */
@Command(
        name = "capture",
        mixinStandardHelpOptions = true,
        description =
                "Print or register the Debezium connector configuration (PostgreSQL or SQL"
                        + " Server).",
        subcommands = {CaptureCommand.PrintConfig.class, CaptureCommand.Register.class})
final class CaptureCommand {

    /** Source options shared by the subcommands. */
    static final class SourceOptions {
        @Option(
                names = "--source",
                paramLabel = "DB",
                description = "postgres (default) or sqlserver.")
        String source;

        @Option(
                names = "--bootstrap-servers",
                paramLabel = "HOSTS",
                description =
                        "sqlserver: Kafka as the Connect workers reach it, for the connector's"
                                + " schema history topic.")
        String bootstrapServers;

        @Option(
                names = "--source-host",
                description = "Source host as the Connect workers reach it.")
        String host;

        @Option(names = "--source-port", description = "Source port.")
        String port;

        @Option(names = "--source-database", description = "Source database.")
        String database;

        @Option(names = "--source-user", description = "Source user.")
        String user;

        @Option(names = "--partitions", description = "Partitions of <prefix>.changes.")
        String partitions;

        @Mixin StageOptions stage;

        CaptureConfig config() {
            Map<String, String> explicit = new LinkedHashMap<>();
            explicit.put(
                    CaptureConfig.SOURCE_KIND.key(),
                    source == null ? null : SourceKind.parse(source).name());
            explicit.put(CaptureConfig.KAFKA_BOOTSTRAP_SERVERS.key(), bootstrapServers);
            explicit.put(CaptureConfig.HOST.key(), host);
            explicit.put(CaptureConfig.PORT.key(), port);
            explicit.put(CaptureConfig.DATABASE.key(), database);
            explicit.put(CaptureConfig.USER.key(), user);
            explicit.put(CaptureConfig.PARTITIONS.key(), partitions);
            return new CaptureConfig(stage.build(CaptureConfig.builder(), explicit));
        }
    }

    @Command(
            name = "print-config",
            mixinStandardHelpOptions = true,
            description = {
                "Print the connector JSON to POST to any Connect cluster (POST /connectors).",
                "The password is printed as ${env:CDCLAB_SOURCE_PASSWORD}, resolved by Connect's"
                        + " EnvVarConfigProvider (config.providers=env)."
            })
    static final class PrintConfig implements Callable<Integer> {
        @Mixin SourceOptions source;

        @Override
        public Integer call() {
            CaptureConfig c = source.config();
            System.out.println(
                    DebeziumConnectorConfig.toJson(
                            c.get(CaptureConfig.CONNECTOR_NAME),
                            DebeziumConnectorConfig.redacted(DebeziumConnectorConfig.of(c))));
            return 0;
        }
    }

    @Command(
            name = "register",
            mixinStandardHelpOptions = true,
            description = {
                "Prepare the source (heartbeat table; SQL Server: CDC on the database, its tables"
                        + " and the capture job), validate the connector config against the"
                        + " cluster's plugin and create or update the connector, then wait until"
                        + " it runs.",
                "The password comes from CDCLAB_SOURCE_PASSWORD."
            })
    static final class Register implements Callable<Integer> {
        @Option(names = "--connect-url", required = true, description = "Kafka Connect REST URL.")
        String connectUrl;

        @Mixin SourceOptions source;

        @Override
        public Integer call() {
            PrintStream out = System.out;
            CaptureConfig c = source.config();
            CaptureSource db = CaptureSource.of(c);
            db.prepare();
            db.awaitReady(Duration.ofMinutes(2));
            Map<String, String> cfg = db.connectorConfig();
            String name = c.get(CaptureConfig.CONNECTOR_NAME);
            ConnectRestClient rest = new ConnectRestClient(connectUrl);
            DebeziumConnectorConfig.Fitted fitted = DebeziumConnectorConfig.fitTo(rest, name, cfg);
            if (!fitted.problems().isEmpty()) {
                throw new IllegalArgumentException(
                        "connector config rejected: " + fitted.problems().get(0));
            }
            rest.put(name, fitted.config());
            rest.awaitRunning(name, Duration.ofSeconds(60));
            out.println("connector " + name + " running on " + connectUrl);
            out.println("changes go to " + RunNames.changeTopic(c.get(CaptureConfig.TOPIC_PREFIX)));
            return 0;
        }
    }
}
