package dev.cdclab.pipeline.infra;

import dev.cdclab.embedded.ConnectWorker;
import dev.cdclab.embedded.KafkaBroker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.containers.output.OutputFrame;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The source PostgreSQL (and Kafka, when asked) in containers started by Testcontainers; Connect,
 * Streams and the sink stay in this JVM. Containers publish their ports on 127.0.0.1 only, carry
 * the label {@code dev.cdclab.run=<run id>}, and are removed when this closes.
 */
final class ContainerInfrastructure implements Infrastructure {
    private static final Logger LOG = LoggerFactory.getLogger(ContainerInfrastructure.class);

    /** Label on every container a run starts, so leftovers can be found. */
    static final String RUN_LABEL = "dev.cdclab.run";

    static final String POSTGRES_HOW =
            "--postgres-image, -D infra.postgres.image or " + ContainerImages.POSTGRES_ENV;
    static final String KAFKA_HOW =
            "--kafka-image, -D infra.kafka.image or " + ContainerImages.KAFKA_ENV;

    private final StartedServices started;
    private final Map<String, String> images;
    private final PostgreSQLContainer postgres;
    private final SourceEndpoint source;
    private final String bootstrapServers;
    private final KafkaContainer kafkaContainer;
    private final ConnectWorker connect;

    private ContainerInfrastructure(
            StartedServices started,
            Map<String, String> images,
            PostgreSQLContainer postgres,
            String bootstrapServers,
            KafkaContainer kafkaContainer,
            ConnectWorker connect) {
        this.started = started;
        this.images = images;
        this.postgres = postgres;
        this.source = endpoint(postgres);
        this.bootstrapServers = bootstrapServers;
        this.kafkaContainer = kafkaContainer;
        this.connect = connect;
    }

    static Infrastructure start(InfraSpec.Containers spec, InfraSpec.Context ctx) {
        DockerEngine.require("--infra containers");
        ContainerImages images = spec.images();
        DockerEngine.requireImage(images.postgres(), POSTGRES_HOW);
        if (spec.kafkaInContainer()) {
            DockerEngine.requireImage(images.kafka(), KAFKA_HOW);
        }
        StartedServices started = new StartedServices();
        try {
            PostgreSQLContainer pg = started.add("PostgreSQL container", postgres(images, ctx));
            String bootstrap;
            KafkaContainer kafka = null;
            if (spec.kafkaInContainer()) {
                kafka = started.add("Kafka container", kafka(images, ctx));
                bootstrap = kafka.getBootstrapServers();
            } else {
                long t0 = System.nanoTime();
                KafkaBroker broker = started.add("Kafka", LocalServices.broker(ctx));
                LOG.info("Kafka started in {} ms", (System.nanoTime() - t0) / 1_000_000);
                bootstrap = broker.bootstrapServers();
            }
            long t0 = System.nanoTime();
            ConnectWorker connect =
                    started.add("Kafka Connect", LocalServices.connect(bootstrap, ctx));
            LOG.info("Kafka Connect started in {} ms", (System.nanoTime() - t0) / 1_000_000);
            return new ContainerInfrastructure(
                    started, images.byRole(spec.kafkaInContainer()), pg, bootstrap, kafka, connect);
        } catch (RuntimeException e) {
            started.close();
            throw e;
        }
    }

    static SourceService startSource(InfraSpec.Containers spec, InfraSpec.Context ctx) {
        DockerEngine.require("--infra containers");
        DockerEngine.requireImage(spec.images().postgres(), POSTGRES_HOW);
        PostgreSQLContainer pg = postgres(spec.images(), ctx);
        SourceEndpoint endpoint = endpoint(pg);
        return new SourceService() {
            @Override
            public SourceEndpoint endpoint() {
                return endpoint;
            }

            @Override
            public void close() {
                pg.stop();
            }
        };
    }

    private static PostgreSQLContainer postgres(ContainerImages images, InfraSpec.Context ctx) {
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
        long t0 = System.nanoTime();
        try {
            pg.start();
        } catch (RuntimeException e) {
            pg.stop();
            throw new InfraUnavailableException(
                    "the PostgreSQL container ("
                            + images.postgres()
                            + ") did not start: "
                            + rootMessage(e)
                            + " (see "
                            + ctx.workDir().resolve("logs/postgres.log")
                            + ")",
                    e);
        }
        LOG.info(
                "PostgreSQL container {} ({}) ready in {} ms at {}",
                pg.getContainerId(),
                images.postgres(),
                (System.nanoTime() - t0) / 1_000_000,
                pg.getJdbcUrl());
        return pg;
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
    public String connectUrl() {
        return connect.restUrl();
    }

    @Override
    public boolean shared() {
        return false;
    }

    @Override
    public void checkHealthy() {
        if (!postgres.isRunning()) {
            throw new IllegalStateException("the PostgreSQL container has stopped");
        }
        if (kafkaContainer != null && !kafkaContainer.isRunning()) {
            throw new IllegalStateException("the Kafka container has stopped");
        }
    }

    @Override
    public void close() {
        started.close();
    }
}
