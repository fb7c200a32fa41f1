package dev.cdclab.orchestration.infra;

import dev.cdclab.capture.ConnectRestClient;
import dev.cdclab.config.RunNames;
import dev.cdclab.embedded.ConnectWorker;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Services someone else runs: a source database and Kafka, and a Connect cluster or a worker this
 * JVM starts. It checks each endpoint answers before anything is deployed, and stops only what it
 * started.
 */
final class ExternalInfrastructure implements Infrastructure {
    private static final Logger LOG = LoggerFactory.getLogger(ExternalInfrastructure.class);

    private final StartedServices started;
    private final InfraSpec.ExternalEndpoints endpoints;
    private final String bootstrapServers;
    private final String connectUrl;

    private ExternalInfrastructure(
            StartedServices started,
            InfraSpec.ExternalEndpoints endpoints,
            String bootstrapServers,
            String connectUrl) {
        this.started = started;
        this.endpoints = endpoints;
        this.bootstrapServers = bootstrapServers;
        this.connectUrl = connectUrl;
    }

    static Infrastructure start(InfraSpec.ExternalEndpoints e, InfraSpec.Context ctx) {
        requireSource(e.source());
        StartedServices started = new StartedServices();
        try {
            String bootstrap = e.kafkaBootstrapServers();
            if (bootstrap == null) {
                bootstrap = started.add("Kafka", LocalServices.broker(ctx)).bootstrapServers();
            } else {
                Topics.requireKafka(bootstrap, Duration.ofSeconds(15));
            }
            String connect = e.connectUrl();
            if (connect == null) {
                ConnectWorker worker = LocalServices.connect(bootstrap, ctx);
                if (e.kafkaBootstrapServers() != null) {
                    // the worker's config, offset and status topics live on someone else's
                    // Kafka: remove them once the worker has stopped
                    String b = bootstrap;
                    String group = RunNames.of(ctx.runId()).connectGroup();
                    started.add("Connect topics", () -> Topics.delete(b, List.of(group + "-")));
                }
                connect = started.add("Kafka Connect", worker).restUrl();
            } else {
                try {
                    new ConnectRestClient(connect).plugins();
                } catch (RuntimeException ex) {
                    throw new InfraUnavailableException(
                            "Kafka Connect at " + connect + " does not answer: " + ex.getMessage(),
                            ex);
                }
            }
            LOG.info(
                    "Attached to source {}, Kafka {}, Connect {}",
                    e.source().jdbcUrl(),
                    bootstrap,
                    connect);
            return new ExternalInfrastructure(started, e, bootstrap, connect);
        } catch (RuntimeException ex) {
            started.close();
            throw ex;
        }
    }

    private static void requireSource(SourceEndpoint source) {
        try (Connection c = source.connect()) {
            c.isValid(5);
        } catch (SQLException ex) {
            throw new InfraUnavailableException(
                    "cannot connect to source " + source.jdbcUrl() + ": " + ex.getMessage(), ex);
        }
    }

    @Override
    public InfraKind kind() {
        return endpoints.reportedKind() == null ? InfraKind.EXTERNAL : endpoints.reportedKind();
    }

    @Override
    public Map<String, String> images() {
        return endpoints.images() == null ? Map.of() : endpoints.images();
    }

    @Override
    public SourceEndpoint source() {
        return endpoints.source();
    }

    @Override
    public String kafkaBootstrapServers() {
        return bootstrapServers;
    }

    @Override
    public boolean connectResolvesFileSecrets() {
        // a worker of our own (no --connect-url); someone else's may not have the file provider
        return endpoints.connectUrl() == null;
    }

    @Override
    public String connectUrl() {
        return connectUrl;
    }

    @Override
    public boolean shared() {
        return true;
    }

    @Override
    public void close() {
        started.close();
    }
}
