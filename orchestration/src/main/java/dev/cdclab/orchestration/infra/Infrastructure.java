package dev.cdclab.orchestration.infra;

import java.util.Map;

/**
 * The running services a pipeline is deployed onto: a source database, a Kafka cluster and a Kafka
 * Connect cluster. Closing it stops what it started, and only that.
 */
public interface Infrastructure extends AutoCloseable {
    /** Where the services came from. */
    InfraKind kind();

    /**
     * Container images by role ({@code source}, {@code kafka}); empty for services that are not
     * containers.
     */
    Map<String, String> images();

    /** The source database. */
    SourceEndpoint source();

    /** Kafka bootstrap servers, {@code host:port[,...]}. */
    String kafkaBootstrapServers();

    /** Base URL of the Kafka Connect REST API the connector is registered with. */
    String connectUrl();

    /**
     * True when the Connect worker is one this infrastructure started, which resolves {@code
     * ${file:...}} secrets: the connector config then names a file instead of holding the password.
     */
    default boolean connectResolvesFileSecrets() {
        return false;
    }

    /**
     * True when the source or Kafka outlive the pipeline (external services, containers a test
     * manages): the pipeline then removes what it created in them (connector, slot, publication,
     * topics) when it stops.
     */
    boolean shared();

    /**
     * Throws when a service this infrastructure started has stopped.
     *
     * @throws IllegalStateException naming the service
     */
    default void checkHealthy() {}

    /**
     * The faults this infrastructure can inject, when it runs its services so that it can (embedded
     * services started for fault injection); empty otherwise.
     */
    default java.util.Optional<ServiceFaults> faults() {
        return java.util.Optional.empty();
    }

    /** Stops what this infrastructure started. Idempotent. */
    @Override
    void close();
}
