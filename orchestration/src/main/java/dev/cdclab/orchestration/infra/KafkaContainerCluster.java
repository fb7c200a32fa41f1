package dev.cdclab.orchestration.infra;

import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import dev.cdclab.embedded.KafkaBroker;
import dev.cdclab.embedded.LoopbackPorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.Uuid;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.lifecycle.Startables;
import org.testcontainers.utility.DockerImageName;

/**
 * A KRaft cluster of Kafka containers from one image: every node a broker and a controller, on a
 * network of their own, each published on one port of 127.0.0.1 (the port it advertises). With 3 or
 * more nodes every topic has 3 replicas and a write needs 2 in sync, as on the embedded cluster.
 */
final class KafkaContainerCluster implements AutoCloseable {
    /** The listener the nodes reach each other on, inside their network. */
    private static final int BROKER_PORT = 9092;

    private static final int CONTROLLER_PORT = 9093;

    private final Network network;
    private final List<GenericContainer<?>> nodes;
    private final String bootstrapServers;

    private KafkaContainerCluster(
            Network network, List<GenericContainer<?>> nodes, String bootstrapServers) {
        this.network = network;
        this.nodes = nodes;
        this.bootstrapServers = bootstrapServers;
    }

    /**
     * Starts {@code count} nodes at once (none is ready before a quorum is) and waits for all.
     *
     * @param logDir where {@code kafka-node-<id>.log} of each node goes
     */
    static KafkaContainerCluster start(
            String image, int count, String runLabel, String runId, Path logDir) {
        Network network = Network.newNetwork();
        String clusterId = Uuid.randomUuid().toString();
        List<GenericContainer<?>> nodes = new ArrayList<>();
        StringJoiner voters = new StringJoiner(",");
        for (int id = 1; id <= count; id++) {
            voters.add(id + "@" + alias(id) + ":" + CONTROLLER_PORT);
        }
        int replicas = KafkaBroker.replicationFactor(count);
        int minInSync = replicas >= 3 ? 2 : 1;
        StringJoiner bootstrap = new StringJoiner(",");
        try {
            for (int id = 1; id <= count; id++) {
                int port = LoopbackPorts.free();
                bootstrap.add("127.0.0.1:" + port);
                GenericContainer<?> node =
                        new GenericContainer<>(
                                        DockerImageName.parse(image)
                                                .asCompatibleSubstituteFor("apache/kafka"))
                                .withNetwork(network)
                                .withNetworkAliases(alias(id))
                                .withEnv("CLUSTER_ID", clusterId)
                                .withEnv("KAFKA_NODE_ID", Integer.toString(id))
                                .withEnv("KAFKA_PROCESS_ROLES", "broker,controller")
                                .withEnv("KAFKA_CONTROLLER_QUORUM_VOTERS", voters.toString())
                                .withEnv("KAFKA_CONTROLLER_LISTENER_NAMES", "CONTROLLER")
                                .withEnv("KAFKA_INTER_BROKER_LISTENER_NAME", "BROKER")
                                .withEnv(
                                        "KAFKA_LISTENERS",
                                        "HOST://0.0.0.0:"
                                                + port
                                                + ",BROKER://0.0.0.0:"
                                                + BROKER_PORT
                                                + ",CONTROLLER://0.0.0.0:"
                                                + CONTROLLER_PORT)
                                .withEnv(
                                        "KAFKA_ADVERTISED_LISTENERS",
                                        "HOST://127.0.0.1:"
                                                + port
                                                + ",BROKER://"
                                                + alias(id)
                                                + ":"
                                                + BROKER_PORT)
                                .withEnv(
                                        "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP",
                                        "HOST:PLAINTEXT,BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT")
                                .withEnv("KAFKA_DEFAULT_REPLICATION_FACTOR", "" + replicas)
                                .withEnv("KAFKA_MIN_INSYNC_REPLICAS", "" + minInSync)
                                .withEnv("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "" + replicas)
                                .withEnv(
                                        "KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR",
                                        "" + replicas)
                                .withEnv("KAFKA_TRANSACTION_STATE_LOG_MIN_ISR", "" + minInSync)
                                .withEnv(
                                        "KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR",
                                        "" + replicas)
                                .withEnv(
                                        "KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR",
                                        "" + minInSync)
                                .withEnv("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0")
                                // as the embedded cluster: fewer internal partitions start faster
                                .withEnv("KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS", "5")
                                .withEnv("KAFKA_TRANSACTION_STATE_LOG_NUM_PARTITIONS", "5")
                                // as the embedded broker: the Kafka stage is timed at the broker
                                .withEnv("KAFKA_LOG_MESSAGE_TIMESTAMP_TYPE", "LogAppendTime")
                                .withEnv("KAFKA_HEAP_OPTS", "-Xmx512m -Xms128m")
                                .withLabel(runLabel, runId)
                                .withExposedPorts(port)
                                .withCreateContainerCmdModifier(
                                        cmd ->
                                                cmd.getHostConfig()
                                                        .withPublishAllPorts(false)
                                                        .withPortBindings(
                                                                new PortBinding(
                                                                        Ports.Binding.bindIpAndPort(
                                                                                "127.0.0.1", port),
                                                                        ExposedPort.tcp(port))))
                                .withLogConsumer(
                                        ContainerInfrastructure.toFile(
                                                logDir.resolve("kafka-node-" + id + ".log")))
                                .waitingFor(
                                        Wait.forLogMessage(
                                                        ".*Kafka Server started.*|.*Transitioning"
                                                                + " from RECOVERY to RUNNING.*",
                                                        1)
                                                .withStartupTimeout(Duration.ofMinutes(3)));
                nodes.add(node);
            }
            Startables.deepStart(nodes).join();
        } catch (RuntimeException e) {
            nodes.forEach(GenericContainer::stop);
            network.close();
            throw e instanceof CompletionException && e.getCause() instanceof RuntimeException r
                    ? r
                    : e;
        }
        return new KafkaContainerCluster(network, nodes, bootstrap.toString());
    }

    private static String alias(int id) {
        return "kafka-" + id;
    }

    /** Every node's address on 127.0.0.1. */
    String bootstrapServers() {
        return bootstrapServers;
    }

    /** The nodes' container ids, node 1 first. */
    List<String> containerIds() {
        return nodes.stream().map(GenericContainer::getContainerId).toList();
    }

    /** Null while a majority of the nodes runs; else which ones stopped. */
    String whyUnhealthy() {
        List<String> stopped = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            int node = i + 1;
            ContainerLiveness.stopped(nodes.get(i))
                    .ifPresent(how -> stopped.add(node + " (" + how + ")"));
        }
        if (stopped.size() * 2 < nodes.size()) {
            return null;
        }
        return "Kafka containers of nodes "
                + String.join(", ", stopped)
                + " have stopped: no majority of "
                + nodes.size()
                + " is left";
    }

    @Override
    public void close() {
        nodes.forEach(GenericContainer::stop);
        network.close();
    }
}
