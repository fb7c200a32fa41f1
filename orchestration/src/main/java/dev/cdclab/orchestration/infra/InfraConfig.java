package dev.cdclab.orchestration.infra;

import static dev.cdclab.config.ConfigOption.booleanOption;
import static dev.cdclab.config.ConfigOption.enumOption;
import static dev.cdclab.config.ConfigOption.intOption;
import static dev.cdclab.config.ConfigOption.stringOption;

import dev.cdclab.config.ConfigException;
import dev.cdclab.config.ConfigOption;
import dev.cdclab.config.Configuration;
import dev.cdclab.config.SourceKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Where the pipeline's services come from ({@code -D infra.<key>} or the matching flags of {@code
 * run}, {@code bench}, {@code overhead} and {@code up}); checked as a whole, so an option given for
 * the wrong kind is an error, not silently ignored.
 */
public final class InfraConfig {
    public static final ConfigOption<InfraKind> KIND =
            enumOption("kind", InfraKind.class)
                    .defaultValue(InfraKind.EMBEDDED)
                    .description(
                            "embedded: every service in this JVM; containers: the source (and Kafka"
                                    + " with kafka.container) in containers started by"
                                    + " Testcontainers; external: services you run (flag --infra).")
                    .build();
    public static final ConfigOption<String> POSTGRES_IMAGE =
            stringOption("postgres.image")
                    .description(
                            "containers: image of the source PostgreSQL, run with -c"
                                    + " wal_level=logical; default "
                                    + ContainerImages.POSTGRES_ENV
                                    + ", else "
                                    + ContainerImages.DEFAULT_POSTGRES
                                    + " (flag --postgres-image).")
                    .build();
    public static final ConfigOption<String> SQLSERVER_IMAGE =
            stringOption("sqlserver.image")
                    .description(
                            "containers: image of the source SQL Server, run with its Agent;"
                                    + " default "
                                    + ContainerImages.SQLSERVER_ENV
                                    + ", else "
                                    + ContainerImages.DEFAULT_SQLSERVER
                                    + " (flag --sqlserver-image).")
                    .build();
    public static final ConfigOption<Boolean> ACCEPT_SQLSERVER_EULA =
            booleanOption("accept.sqlserver.eula")
                    .defaultValue(false)
                    .description(
                            "containers: you accept the SQL Server image's licence (EULA), which"
                                    + " it needs to run (flag --accept-sqlserver-eula).")
                    .build();
    public static final ConfigOption<Boolean> KAFKA_CONTAINER =
            booleanOption("kafka.container")
                    .defaultValue(false)
                    .description(
                            "containers: run Kafka in a container too, instead of the embedded"
                                    + " broker (flag --kafka-container).")
                    .build();
    public static final ConfigOption<String> KAFKA_IMAGE =
            stringOption("kafka.image")
                    .description(
                            "containers: image of the Kafka broker; default "
                                    + ContainerImages.KAFKA_ENV
                                    + ", else "
                                    + ContainerImages.DEFAULT_KAFKA
                                    + " (flag --kafka-image).")
                    .build();
    public static final ConfigOption<Integer> KAFKA_BROKERS =
            intOption("kafka.brokers")
                    .defaultValue(1)
                    .check(n -> n >= 1 && n <= 5, "must be 1 to 5")
                    .description(
                            "Kafka nodes (KRaft, each broker and controller), embedded or with"
                                    + " --infra containers: processes on this machine, or"
                                    + " containers of the Kafka image with --kafka-container; with"
                                    + " 3 or more every topic has 3 replicas and a write needs 2 in"
                                    + " sync (flag --kafka-brokers).")
                    .build();

    public static final ConfigOption<String> SOURCE_JDBC_URL =
            stringOption("source.jdbc.url")
                    .check(
                            s ->
                                    s.startsWith("jdbc:postgresql:")
                                            || s.startsWith("jdbc:sqlserver:"),
                            "must be a jdbc:postgresql:// or jdbc:sqlserver:// URL")
                    .description(
                            "external: JDBC URL of the source database (its kind follows from"
                                    + " it); Connect reaches it at the same host and port (flag"
                                    + " --source-jdbc-url).")
                    .build();
    public static final ConfigOption<String> SOURCE_USER =
            stringOption("source.user")
                    .description(
                            "external: source user; needs REPLICATION, and superuser for the"
                                    + " FOR ALL TABLES publication (flag --source-user).")
                    .build();
    public static final ConfigOption<String> SOURCE_PASSWORD =
            stringOption("source.password")
                    .secret()
                    .description(
                            "external: source password; prefer CDCLAB_SOURCE_PASSWORD or"
                                    + " source.password.file.")
                    .build();
    public static final ConfigOption<String> SOURCE_PASSWORD_FILE =
            stringOption("source.password.file")
                    .description(
                            "external: file holding the source password (flag"
                                    + " --source-password-file).")
                    .build();
    public static final ConfigOption<String> BOOTSTRAP_SERVERS =
            stringOption("bootstrap.servers")
                    .description("external: Kafka bootstrap servers (flag --bootstrap-servers).")
                    .build();
    public static final ConfigOption<String> CONNECT_URL =
            stringOption("connect.url")
                    .defaultValue("in-process")
                    .check(
                            s -> s.equals("in-process") || s.matches("https?://.+"),
                            "must be in-process or an http(s):// URL")
                    .description(
                            "external: REST URL of a Kafka Connect cluster with the Debezium"
                                    + " PostgreSQL plugin, or in-process to start a worker here"
                                    + " (flag --connect-url).")
                    .build();

    /** Every option, in documentation order. */
    public static final List<ConfigOption<?>> OPTIONS =
            List.of(
                    KIND,
                    POSTGRES_IMAGE,
                    SQLSERVER_IMAGE,
                    ACCEPT_SQLSERVER_EULA,
                    KAFKA_CONTAINER,
                    KAFKA_IMAGE,
                    KAFKA_BROKERS,
                    SOURCE_JDBC_URL,
                    SOURCE_USER,
                    SOURCE_PASSWORD,
                    SOURCE_PASSWORD_FILE,
                    BOOTSTRAP_SERVERS,
                    CONNECT_URL);

    private static final List<ConfigOption<?>> CONTAINER_ONLY =
            List.of(
                    POSTGRES_IMAGE,
                    SQLSERVER_IMAGE,
                    ACCEPT_SQLSERVER_EULA,
                    KAFKA_CONTAINER,
                    KAFKA_IMAGE);
    private static final List<ConfigOption<?>> EXTERNAL_ONLY =
            List.of(
                    SOURCE_JDBC_URL,
                    SOURCE_USER,
                    SOURCE_PASSWORD,
                    SOURCE_PASSWORD_FILE,
                    BOOTSTRAP_SERVERS,
                    CONNECT_URL);

    private final Configuration config;

    public InfraConfig(Configuration config) {
        this.config = config;
    }

    /** A builder over these options. */
    public static Configuration.Builder builder() {
        return Configuration.builder(OPTIONS);
    }

    /** Validates and builds from raw key/value pairs. */
    public static InfraConfig of(Map<String, String> raw) {
        return new InfraConfig(builder().setAll(raw).build());
    }

    public <T> T get(ConfigOption<T> option) {
        return config.get(option);
    }

    public InfraKind kind() {
        return config.get(KIND);
    }

    /** What to start for a PostgreSQL source. */
    public InfraSpec spec() {
        return spec(SourceKind.POSTGRES);
    }

    /**
     * What to start.
     *
     * @param source the source database the pipeline captures
     * @throws ConfigException naming the key that is missing, malformed or given for another kind
     */
    public InfraSpec spec(SourceKind source) {
        InfraKind kind = kind();
        for (ConfigOption<?> o : CONTAINER_ONLY) {
            if (kind != InfraKind.CONTAINERS && config.isSet(o)) {
                throw new ConfigException("infra." + o.key(), "applies to --infra containers only");
            }
        }
        for (ConfigOption<?> o : EXTERNAL_ONLY) {
            if (kind != InfraKind.EXTERNAL && config.isSet(o)) {
                throw new ConfigException("infra." + o.key(), "applies to --infra external only");
            }
        }
        if (config.isSet(KAFKA_IMAGE) && !config.get(KAFKA_CONTAINER)) {
            throw new ConfigException(
                    "infra.kafka.image", "needs kafka.container=true (--kafka-container)");
        }
        if (kind == InfraKind.EXTERNAL && config.get(KAFKA_BROKERS) != 1) {
            throw new ConfigException(
                    "infra.kafka.brokers", "applies to --infra embedded and containers only");
        }
        return switch (kind) {
            case EMBEDDED -> {
                if (source != SourceKind.POSTGRES) {
                    throw new ConfigException(
                            "infra.kind",
                            "SQL Server cannot run embedded; use --infra containers or --infra"
                                    + " external");
                }
                yield InfraSpec.embedded(config.get(KAFKA_BROKERS));
            }
            case CONTAINERS ->
                    InfraSpec.containers(
                            source,
                            images(),
                            config.get(KAFKA_CONTAINER),
                            config.get(ACCEPT_SQLSERVER_EULA),
                            config.get(KAFKA_BROKERS));
            case EXTERNAL -> {
                InfraSpec.ExternalEndpoints e = externalEndpoints();
                if (e.source().kind() != source) {
                    throw new ConfigException(
                            "infra.source.jdbc.url",
                            "is a "
                                    + e.source().kind().label()
                                    + " URL but the source is "
                                    + source.label()
                                    + " (--source)");
                }
                yield InfraSpec.external(() -> e);
            }
        };
    }

    /** The images containers would run, after flags, keys and environment. */
    public ContainerImages images() {
        return ContainerImages.fromEnvironment()
                .withPostgres(config.get(POSTGRES_IMAGE))
                .withSqlServer(config.get(SQLSERVER_IMAGE))
                .withKafka(config.get(KAFKA_IMAGE));
    }

    private InfraSpec.ExternalEndpoints externalEndpoints() {
        String url = config.get(SOURCE_JDBC_URL);
        if (url == null) {
            throw new ConfigException(
                    "infra.source.jdbc.url",
                    "is required with --infra external (--source-jdbc-url)");
        }
        String user = config.get(SOURCE_USER);
        if (user == null) {
            throw new ConfigException(
                    "infra.source.user", "is required with --infra external (--source-user)");
        }
        String bootstrap = config.get(BOOTSTRAP_SERVERS);
        if (bootstrap == null) {
            throw new ConfigException(
                    "infra.bootstrap.servers",
                    "is required with --infra external (--bootstrap-servers)");
        }
        SourceEndpoint source;
        try {
            source = SourceEndpoint.of(url, user, password());
        } catch (IllegalArgumentException e) {
            throw new ConfigException("infra.source.jdbc.url", e.getMessage());
        }
        String connect = config.get(CONNECT_URL);
        return new InfraSpec.ExternalEndpoints(
                source,
                bootstrap,
                "in-process".equals(connect) ? null : connect,
                InfraKind.EXTERNAL,
                Map.of());
    }

    private String password() {
        String file = config.get(SOURCE_PASSWORD_FILE);
        if (file != null) {
            try {
                return Files.readString(Path.of(file)).strip();
            } catch (IOException e) {
                throw new ConfigException(
                        "infra.source.password.file", "cannot read " + file + ": " + e);
            }
        }
        String p = config.get(SOURCE_PASSWORD);
        return p != null ? p : System.getenv("CDCLAB_SOURCE_PASSWORD");
    }
}
