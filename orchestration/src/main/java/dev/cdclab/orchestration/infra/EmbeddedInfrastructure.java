package dev.cdclab.orchestration.infra;

import dev.cdclab.config.SourceKind;
import dev.cdclab.embedded.ConnectWorker;
import dev.cdclab.embedded.KafkaBroker;
import dev.cdclab.embedded.PostgresServer;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every service in this JVM: PostgreSQL from the embedded binaries on Maven Central, a KRaft broker
 * and a distributed Connect worker.
 */
final class EmbeddedInfrastructure implements Infrastructure, ServiceFaults {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedInfrastructure.class);

    private final StartedServices started;
    private final SourceEndpoint source;
    private final PostgresServer pg;
    private final KafkaBroker kafka;
    private final String connectUrl;
    private final ConnectWorkerProcess connectProcess;

    private EmbeddedInfrastructure(
            StartedServices started,
            PostgresServer pg,
            KafkaBroker kafka,
            String connectUrl,
            ConnectWorkerProcess connectProcess) {
        this.started = started;
        this.pg = pg;
        this.source = endpoint(pg);
        this.kafka = kafka;
        this.connectUrl = connectUrl;
        this.connectProcess = connectProcess;
    }

    static Infrastructure start(InfraSpec.Context ctx, boolean faults, int kafkaNodes) {
        StartedServices started = new StartedServices();
        try {
            long t0 = System.nanoTime();
            PostgresServer pg = started.add("PostgreSQL", postgres(ctx));
            LOG.info("PostgreSQL started in {} ms", (System.nanoTime() - t0) / 1_000_000);
            t0 = System.nanoTime();
            KafkaBroker kafka = started.add("Kafka", LocalServices.broker(ctx, kafkaNodes));
            LOG.info("Kafka started in {} ms", (System.nanoTime() - t0) / 1_000_000);
            t0 = System.nanoTime();
            ConnectWorker.Builder worker =
                    LocalServices.connectWorker(kafka.bootstrapServers(), ctx)
                            .replicationFactor(kafka.replicationFactor());
            ConnectWorkerProcess process = null;
            String connectUrl;
            if (faults) {
                process =
                        started.add(
                                "Kafka Connect", ConnectWorkerProcess.start(worker, ctx.workDir()));
                connectUrl = process.restUrl();
            } else {
                connectUrl = started.add("Kafka Connect", worker.start()).restUrl();
            }
            LOG.info("Kafka Connect started in {} ms", (System.nanoTime() - t0) / 1_000_000);
            return new EmbeddedInfrastructure(started, pg, kafka, connectUrl, process);
        } catch (RuntimeException e) {
            started.close();
            throw e;
        }
    }

    static SourceService startSource(InfraSpec.Context ctx) {
        PostgresServer pg = postgres(ctx);
        SourceEndpoint endpoint = endpoint(pg);
        return new SourceService() {
            @Override
            public SourceEndpoint endpoint() {
                return endpoint;
            }

            @Override
            public void close() {
                pg.close();
            }
        };
    }

    private static PostgresServer postgres(InfraSpec.Context ctx) {
        return PostgresServer.builder()
                .dataDirectory(ctx.workDir().resolve("postgres"))
                .logFile(ctx.workDir().resolve("logs/postgres.log"))
                .durable(ctx.durable())
                .port(ctx.sourcePort())
                .shutdownHook(ctx.shutdownHooks())
                .start();
    }

    private static SourceEndpoint endpoint(PostgresServer pg) {
        return new SourceEndpoint(
                SourceKind.POSTGRES,
                pg.jdbcUrl(),
                pg.host(),
                pg.port(),
                pg.database(),
                pg.user(),
                pg.password());
    }

    @Override
    public InfraKind kind() {
        return InfraKind.EMBEDDED;
    }

    @Override
    public Map<String, String> images() {
        return Map.of();
    }

    @Override
    public SourceEndpoint source() {
        return source;
    }

    @Override
    public String kafkaBootstrapServers() {
        return kafka.bootstrapServers();
    }

    @Override
    public boolean connectResolvesFileSecrets() {
        return true;
    }

    @Override
    public String connectUrl() {
        return connectUrl;
    }

    @Override
    public java.util.Optional<ServiceFaults> faults() {
        return connectProcess == null ? java.util.Optional.empty() : java.util.Optional.of(this);
    }

    @Override
    public void killConnect() {
        connectProcess.kill();
    }

    @Override
    public void startConnect() {
        connectProcess.startAgain();
    }

    @Override
    public void stopKafka() {
        kafka.stop();
    }

    @Override
    public void resumeKafka() {
        kafka.resume();
    }

    @Override
    public void stopKafkaNode(int id) {
        kafka.stop(id);
    }

    @Override
    public void killKafkaNode(int id) {
        kafka.kill(id);
    }

    @Override
    public int kafkaLeader(String topic, int partition) {
        return kafka.leaderOf(topic, partition);
    }

    @Override
    public void restartSource() {
        pg.restartFast();
    }

    @Override
    public boolean shared() {
        return false;
    }

    @Override
    public void close() {
        started.close();
    }
}
