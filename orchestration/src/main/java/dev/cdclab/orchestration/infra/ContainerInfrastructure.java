package dev.cdclab.orchestration.infra;

import dev.cdclab.config.SourceKind;
import dev.cdclab.embedded.ConnectWorker;
import dev.cdclab.embedded.KafkaBroker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.output.OutputFrame;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.mssqlserver.MSSQLServerContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The source database, PostgreSQL or SQL Server (and Kafka, when asked), in containers started by
 * Testcontainers; Connect, Streams and the sink stay in this JVM. Containers publish their ports on
 * 127.0.0.1 only, carry the label {@code dev.cdclab.run=<run id>}, and are removed when this
 * closes.
 */
final class ContainerInfrastructure implements Infrastructure {
    private static final Logger LOG = LoggerFactory.getLogger(ContainerInfrastructure.class);

    /** Label on every container a run starts, so leftovers can be found. */
    static final String RUN_LABEL = "dev.cdclab.run";

    static final String POSTGRES_HOW =
            "--postgres-image, -D infra.postgres.image or " + ContainerImages.POSTGRES_ENV;
    static final String SQLSERVER_HOW =
            "--sqlserver-image, -D infra.sqlserver.image or " + ContainerImages.SQLSERVER_ENV;
    static final String KAFKA_HOW =
            "--kafka-image, -D infra.kafka.image or " + ContainerImages.KAFKA_ENV;

    private final StartedServices started;
    private final Map<String, String> images;
    private final GenericContainer<?> sourceContainer;
    private final SourceEndpoint source;
    private final String bootstrapServers;
    private final KafkaContainer kafkaContainer;
    private final KafkaContainerCluster kafkaCluster;
    private final ConnectWorker connect;

    private ContainerInfrastructure(
            StartedServices started,
            Map<String, String> images,
            SourceContainer source,
            String bootstrapServers,
            KafkaContainer kafkaContainer,
            KafkaContainerCluster kafkaCluster,
            ConnectWorker connect) {
        this.started = started;
        this.images = images;
        this.sourceContainer = source.container();
        this.source = source.endpoint();
        this.bootstrapServers = bootstrapServers;
        this.kafkaContainer = kafkaContainer;
        this.kafkaCluster = kafkaCluster;
        this.connect = connect;
    }

    /** A started source container and how to reach it. */
    private record SourceContainer(GenericContainer<?> container, SourceEndpoint endpoint)
            implements AutoCloseable {
        @Override
        public void close() {
            container.stop();
        }
    }

    static Infrastructure start(InfraSpec.Containers spec, InfraSpec.Context ctx) {
        requireSourceImage(spec);
        ContainerImages images = spec.images();
        if (spec.kafkaInContainer()) {
            DockerEngine.requireImage(images.kafka(), KAFKA_HOW);
        }
        StartedServices started = new StartedServices();
        try {
            SourceContainer src = started.add("source container", source(spec, ctx));
            String bootstrap;
            KafkaContainer kafka = null;
            KafkaContainerCluster cluster = null;
            if (spec.kafkaInContainer() && spec.kafkaNodes() > 1) {
                cluster = started.add("Kafka containers", kafkaCluster(spec, ctx));
                bootstrap = cluster.bootstrapServers();
            } else if (spec.kafkaInContainer()) {
                kafka = started.add("Kafka container", kafka(images, ctx));
                bootstrap = kafka.getBootstrapServers();
            } else {
                long t0 = System.nanoTime();
                KafkaBroker broker =
                        started.add("Kafka", LocalServices.broker(ctx, spec.kafkaNodes()));
                LOG.info("Kafka started in {} ms", (System.nanoTime() - t0) / 1_000_000);
                bootstrap = broker.bootstrapServers();
            }
            long t0 = System.nanoTime();
            ConnectWorker connect =
                    started.add(
                            "Kafka Connect",
                            LocalServices.connectWorker(bootstrap, ctx)
                                    .replicationFactor(
                                            KafkaBroker.replicationFactor(spec.kafkaNodes()))
                                    .start());
            LOG.info("Kafka Connect started in {} ms", (System.nanoTime() - t0) / 1_000_000);
            return new ContainerInfrastructure(
                    started,
                    images.byRole(spec.source(), spec.kafkaInContainer()),
                    src,
                    bootstrap,
                    kafka,
                    cluster,
                    connect);
        } catch (RuntimeException e) {
            started.close();
            throw e;
        }
    }

    static SourceService startSource(InfraSpec.Containers spec, InfraSpec.Context ctx) {
        requireSourceImage(spec);
        SourceContainer src = source(spec, ctx);
        return new SourceService() {
            @Override
            public SourceEndpoint endpoint() {
                return src.endpoint();
            }

            @Override
            public void close() {
                src.close();
            }
        };
    }

    /** Docker answers, the licence is accepted where one must be, and the image is here. */
    private static void requireSourceImage(InfraSpec.Containers spec) {
        if (spec.source() == SourceKind.SQLSERVER && !spec.acceptSqlServerLicense()) {
            throw new InfraUnavailableException(
                    "the SQL Server image runs only once you accept its licence (EULA,"
                            + " https://go.microsoft.com/fwlink/?linkid=857698): pass"
                            + " --accept-sqlserver-eula");
        }
        DockerEngine.require("--infra containers");
        DockerEngine.requireImage(
                spec.images().source(spec.source()),
                spec.source() == SourceKind.SQLSERVER ? SQLSERVER_HOW : POSTGRES_HOW);
    }

    private static SourceContainer source(InfraSpec.Containers spec, InfraSpec.Context ctx) {
        return spec.source() == SourceKind.SQLSERVER
                ? sqlServer(spec.images(), ctx)
                : postgres(spec.images(), ctx);
    }

    private static SourceContainer postgres(ContainerImages images, InfraSpec.Context ctx) {
        List<String> command = new ArrayList<>(List.of("postgres"));
        Map<String, String> settings =
                Map.of(
                        "wal_level", "logical",
                        "fsync", ctx.durable() ? "on" : "off",
                        "synchronous_commit", ctx.durable() ? "on" : "off",
                        "full_page_writes", ctx.durable() ? "on" : "off",
                        "max_wal_senders", "10",
                        "max_replication_slots", "10",
                        "max_connections", "300");
        settings.forEach(
                (k, v) -> {
                    command.add("-c");
                    command.add(k + "=" + v);
                });
        PostgreSQLContainer pg =
                new PostgreSQLContainer(
                        DockerImageName.parse(images.postgres())
                                .asCompatibleSubstituteFor("postgres"));
        pg.withDatabaseName("cdclab")
                .withUsername("cdclab")
                .withPassword(randomPassword())
                .withCommand(command.toArray(String[]::new))
                .withSharedMemorySize(256L * 1024 * 1024)
                .withLabel(RUN_LABEL, ctx.runId())
                .withCreateContainerCmdModifier(LoopbackPorts.only(5432))
                .withLogConsumer(toFile(ctx.workDir().resolve("logs/postgres.log")))
                .withStartupTimeout(Duration.ofMinutes(2));
        startOrExplain(
                pg, "PostgreSQL", images.postgres(), ctx.workDir().resolve("logs/postgres.log"));
        return new SourceContainer(pg, endpoint(pg));
    }

    /**
     * SQL Server with its Agent (CDC's capture job runs in it) and a database of the lab's own (CDC
     * cannot be enabled on master); with {@code durable=false}, delayed durability forced.
     */
    private static SourceContainer sqlServer(ContainerImages images, InfraSpec.Context ctx) {
        Path log = ctx.workDir().resolve("logs/sqlserver.log");
        MSSQLServerContainer ms =
                new MSSQLServerContainer(
                        DockerImageName.parse(images.sqlserver())
                                .asCompatibleSubstituteFor("mcr.microsoft.com/mssql/server"));
        ms.acceptLicense()
                .withEnv("MSSQL_AGENT_ENABLED", "true")
                .withPassword(strongPassword())
                .withLabel(RUN_LABEL, ctx.runId())
                .withCreateContainerCmdModifier(LoopbackPorts.only(1433))
                .withLogConsumer(toFile(log))
                .withStartupTimeout(Duration.ofMinutes(4));
        startOrExplain(ms, "SQL Server", images.sqlserver(), log);
        String host = "localhost".equals(ms.getHost()) ? "127.0.0.1" : ms.getHost();
        int port = ms.getMappedPort(1433);
        String server =
                "jdbc:sqlserver://"
                        + host
                        + ":"
                        + port
                        + ";encrypt=true;trustServerCertificate=true";
        try (Connection c =
                        DriverManager.getConnection(server, ms.getUsername(), ms.getPassword());
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE [cdclab]");
            s.execute("ALTER DATABASE [cdclab] SET ALLOW_SNAPSHOT_ISOLATION ON");
            s.execute(
                    "ALTER DATABASE [cdclab] SET DELAYED_DURABILITY = "
                            + (ctx.durable() ? "DISABLED" : "FORCED"));
        } catch (SQLException e) {
            ms.stop();
            throw new InfraUnavailableException(
                    "the SQL Server container started but its database could not be created: "
                            + e.getMessage(),
                    e);
        }
        String url =
                "jdbc:sqlserver://"
                        + host
                        + ":"
                        + port
                        + ";databaseName=cdclab;encrypt=true;trustServerCertificate=true";
        return new SourceContainer(
                ms,
                new SourceEndpoint(
                        SourceKind.SQLSERVER,
                        url,
                        host,
                        port,
                        "cdclab",
                        ms.getUsername(),
                        ms.getPassword()));
    }

    /** Starts a container; on failure, removes it and says which image and where its log is. */
    private static void startOrExplain(GenericContainer<?> c, String what, String image, Path log) {
        long t0 = System.nanoTime();
        try {
            c.start();
        } catch (RuntimeException e) {
            c.stop();
            throw new InfraUnavailableException(
                    "the "
                            + what
                            + " container ("
                            + image
                            + ") did not start: "
                            + rootMessage(e)
                            + " (see "
                            + log
                            + ")",
                    e);
        }
        LOG.info(
                "{} container {} ({}) ready in {} ms",
                what,
                c.getContainerId(),
                image,
                (System.nanoTime() - t0) / 1_000_000);
    }

    private static KafkaContainerCluster kafkaCluster(
            InfraSpec.Containers spec, InfraSpec.Context ctx) {
        String image = spec.images().kafka();
        long t0 = System.nanoTime();
        KafkaContainerCluster cluster;
        try {
            cluster =
                    KafkaContainerCluster.start(
                            image,
                            spec.kafkaNodes(),
                            RUN_LABEL,
                            ctx.runId(),
                            ctx.workDir().resolve("logs"));
        } catch (RuntimeException e) {
            throw new InfraUnavailableException(
                    "the Kafka containers ("
                            + spec.kafkaNodes()
                            + " of "
                            + image
                            + ") did not start: "
                            + rootMessage(e)
                            + " (see "
                            + ctx.workDir().resolve("logs/kafka-node-1.log")
                            + ")",
                    e);
        }
        LOG.info(
                "{} Kafka containers ({}) ready in {} ms at {}",
                spec.kafkaNodes(),
                image,
                (System.nanoTime() - t0) / 1_000_000,
                cluster.bootstrapServers());
        return cluster;
    }

    private static KafkaContainer kafka(ContainerImages images, InfraSpec.Context ctx) {
        KafkaContainer k =
                new KafkaContainer(
                        DockerImageName.parse(images.kafka())
                                .asCompatibleSubstituteFor("apache/kafka"));
        // as the embedded broker: the Kafka stage is timed at the broker
        k.withEnv("KAFKA_LOG_MESSAGE_TIMESTAMP_TYPE", "LogAppendTime")
                .withEnv("KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR", "1")
                .withEnv("KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR", "1")
                .withLabel(RUN_LABEL, ctx.runId())
                .withCreateContainerCmdModifier(LoopbackPorts.only(9092))
                .withLogConsumer(toFile(ctx.workDir().resolve("logs/kafka.log")))
                .withStartupTimeout(Duration.ofMinutes(2));
        long t0 = System.nanoTime();
        try {
            k.start();
        } catch (RuntimeException e) {
            k.stop();
            throw new InfraUnavailableException(
                    "the Kafka container ("
                            + images.kafka()
                            + ") did not start: "
                            + rootMessage(e)
                            + " (see "
                            + ctx.workDir().resolve("logs/kafka.log")
                            + ")",
                    e);
        }
        LOG.info(
                "Kafka container {} ({}) ready in {} ms at {}",
                k.getContainerId(),
                images.kafka(),
                (System.nanoTime() - t0) / 1_000_000,
                k.getBootstrapServers());
        return k;
    }

    /** Appends a container's output to a file. */
    static Consumer<OutputFrame> toFile(Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
        } catch (IOException e) {
            LOG.warn("Cannot create {}: {}", file.getParent(), e.getMessage());
        }
        return frame -> {
            try {
                Files.writeString(
                        file,
                        frame.getUtf8String(),
                        StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            } catch (IOException e) {
                // the log is for reading later; losing a line must not stop the container
            }
        };
    }

    static SourceEndpoint endpoint(PostgreSQLContainer pg) {
        String host = "localhost".equals(pg.getHost()) ? "127.0.0.1" : pg.getHost();
        int port = pg.getMappedPort(5432);
        return new SourceEndpoint(
                SourceKind.POSTGRES,
                "jdbc:postgresql://" + host + ":" + port + "/" + pg.getDatabaseName(),
                host,
                port,
                pg.getDatabaseName(),
                pg.getUsername(),
                pg.getPassword());
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    /** Meets SQL Server's policy: upper and lower case, digits and a symbol. */
    private static String strongPassword() {
        return "Cd1!" + randomPassword();
    }

    private static String randomPassword() {
        byte[] b = new byte[18];
        new SecureRandom().nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    @Override
    public InfraKind kind() {
        return InfraKind.CONTAINERS;
    }

    @Override
    public Map<String, String> images() {
        return images;
    }

    @Override
    public SourceEndpoint source() {
        return source;
    }

    @Override
    public String kafkaBootstrapServers() {
        return bootstrapServers;
    }

    @Override
    public boolean connectResolvesFileSecrets() {
        return true;
    }

    @Override
    public String connectUrl() {
        return connect.restUrl();
    }

    @Override
    public boolean shared() {
        return false;
    }

    @Override
    public void checkHealthy() {
        ContainerLiveness.requireRunning(sourceContainer, "the source container");
        if (kafkaContainer != null) {
            ContainerLiveness.requireRunning(kafkaContainer, "the Kafka container");
        }
        String cluster = kafkaCluster == null ? null : kafkaCluster.whyUnhealthy();
        if (cluster != null) {
            throw new IllegalStateException(cluster);
        }
    }

    @Override
    public void close() {
        started.close();
    }
}
