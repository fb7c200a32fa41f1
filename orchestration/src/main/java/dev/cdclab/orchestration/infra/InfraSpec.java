package dev.cdclab.orchestration.infra;

import dev.cdclab.config.SourceKind;
import dev.cdclab.plugins.ConnectPlugins;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What infrastructure a pipeline asks for, before anything is started: {@link #embedded()}, {@link
 * #containers(ContainerImages, boolean)} or {@link #external(Supplier)}.
 */
public sealed interface InfraSpec
        permits InfraSpec.Embedded, InfraSpec.Containers, InfraSpec.External {

    /** The kind reported for this infrastructure. */
    InfraKind kind();

    /**
     * Starts (or attaches to) every service.
     *
     * @throws InfraUnavailableException when a service cannot be had
     */
    Infrastructure start(Context context);

    /**
     * Starts (or attaches to) the source database alone.
     *
     * @throws InfraUnavailableException when it cannot be had
     */
    SourceService startSource(Context context);

    /**
     * What the services are started with.
     *
     * @param workDir the run's directory (data, logs)
     * @param runId suffix of every name
     * @param durable false runs a source the pipeline starts with fsync and synchronous_commit off
     * @param sourcePort port for an embedded source; 0 picks a free one
     * @param kafkaPort port for an embedded broker; 0 picks a free one
     * @param shutdownHooks whether embedded services register JVM shutdown hooks of their own
     * @param connectPlugins the isolated plugins a Connect worker started here loads
     */
    record Context(
            Path workDir,
            String runId,
            boolean durable,
            int sourcePort,
            int kafkaPort,
            boolean shutdownHooks,
            Set<ConnectPlugins.Plugin> connectPlugins) {
        public Context {
            connectPlugins = Set.copyOf(connectPlugins);
        }

        /** A context whose worker loads the SQL Server connector. */
        public Context(
                Path workDir,
                String runId,
                boolean durable,
                int sourcePort,
                int kafkaPort,
                boolean shutdownHooks) {
            this(
                    workDir,
                    runId,
                    durable,
                    sourcePort,
                    kafkaPort,
                    shutdownHooks,
                    Set.of(ConnectPlugins.Plugin.SQLSERVER));
        }
    }

    /** Every service in this JVM, with a one-node Kafka cluster. */
    static InfraSpec embedded() {
        return new Embedded(false, 1);
    }

    /** Every service in this JVM, with a Kafka cluster of {@code kafkaNodes} nodes. */
    static InfraSpec embedded(int kafkaNodes) {
        return new Embedded(false, kafkaNodes);
    }

    /**
     * The embedded services, with the Connect worker in a process of its own, so that {@link
     * Infrastructure#faults()} can kill it, stop the broker and restart the source.
     */
    static InfraSpec embeddedForFaults() {
        return new Embedded(true, 1);
    }

    /** As {@link #embeddedForFaults()}, with a Kafka cluster of {@code kafkaNodes} nodes. */
    static InfraSpec embeddedForFaults(int kafkaNodes) {
        return new Embedded(true, kafkaNodes);
    }

    /** A PostgreSQL source (and Kafka, when asked) in containers Testcontainers starts. */
    static InfraSpec containers(ContainerImages images, boolean kafkaInContainer) {
        return new Containers(SourceKind.POSTGRES, images, kafkaInContainer, false, 1);
    }

    /**
     * The source (and Kafka, when {@code kafkaInContainer}) in containers Testcontainers starts.
     *
     * @param acceptSqlServerLicense true when the user has accepted the SQL Server image's EULA
     * @param kafkaNodes nodes of the Kafka cluster: containers with {@code kafkaInContainer}, else
     *     processes on this machine (3 or more: topics replicated 3 times)
     */
    static InfraSpec containers(
            SourceKind source,
            ContainerImages images,
            boolean kafkaInContainer,
            boolean acceptSqlServerLicense,
            int kafkaNodes) {
        return new Containers(source, images, kafkaInContainer, acceptSqlServerLicense, kafkaNodes);
    }

    /**
     * Services someone else runs. The supplier is called when the pipeline starts, so endpoints of
     * containers that start later can be read then.
     */
    static InfraSpec external(Supplier<ExternalEndpoints> endpoints) {
        return new External(endpoints);
    }

    /**
     * Everything in process.
     *
     * @param faults true runs the Connect worker in a child process and offers {@link
     *     ServiceFaults}
     * @param kafkaNodes nodes of the Kafka cluster (3 or more: topics replicated 3 times)
     */
    record Embedded(boolean faults, int kafkaNodes) implements InfraSpec {
        @Override
        public InfraKind kind() {
            return InfraKind.EMBEDDED;
        }

        @Override
        public Infrastructure start(Context context) {
            return EmbeddedInfrastructure.start(context, faults, kafkaNodes);
        }

        @Override
        public SourceService startSource(Context context) {
            return EmbeddedInfrastructure.startSource(context);
        }
    }

    /**
     * Containers started by Testcontainers.
     *
     * @param source which database the source container runs
     * @param images the images to run
     * @param kafkaInContainer true runs Kafka in a container too; false runs the embedded broker
     * @param acceptSqlServerLicense whether the SQL Server image's EULA was accepted
     */
    record Containers(
            SourceKind source,
            ContainerImages images,
            boolean kafkaInContainer,
            boolean acceptSqlServerLicense,
            int kafkaNodes)
            implements InfraSpec {
        @Override
        public InfraKind kind() {
            return InfraKind.CONTAINERS;
        }

        @Override
        public Infrastructure start(Context context) {
            return ContainerInfrastructure.start(this, context);
        }

        @Override
        public SourceService startSource(Context context) {
            return ContainerInfrastructure.startSource(this, context);
        }
    }

    /** Endpoints given from outside. */
    record External(Supplier<ExternalEndpoints> endpoints) implements InfraSpec {
        @Override
        public InfraKind kind() {
            return InfraKind.EXTERNAL;
        }

        @Override
        public Infrastructure start(Context context) {
            return ExternalInfrastructure.start(endpoints.get(), context);
        }

        @Override
        public SourceService startSource(Context context) {
            SourceEndpoint source = endpoints.get().source();
            return new SourceService() {
                @Override
                public SourceEndpoint endpoint() {
                    return source;
                }

                @Override
                public void close() {}
            };
        }
    }

    /**
     * Services run elsewhere.
     *
     * @param source the source database
     * @param kafkaBootstrapServers Kafka to use; null starts the embedded broker
     * @param connectUrl a Kafka Connect cluster's REST URL; null starts a worker in this JVM
     * @param reportedKind the kind reports name ({@code containers} for containers a test manages)
     * @param images container images behind these endpoints, by role, if known
     */
    record ExternalEndpoints(
            SourceEndpoint source,
            String kafkaBootstrapServers,
            String connectUrl,
            InfraKind reportedKind,
            Map<String, String> images) {}
}
