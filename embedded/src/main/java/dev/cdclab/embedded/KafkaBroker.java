package dev.cdclab.embedded;

import dev.cdclab.wait.Poll;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Exit;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kafka cluster: one KRaft server per node, each acting as broker and controller, on free
 * loopback ports, in this JVM or each in a process of its own ({@link Builder#runner}); one node by
 * default, three for a replicated cluster (replication factor 3, {@code min.insync.replicas} 2).
 * Records get the broker's append time ({@code LogAppendTime}) so the Kafka stage of the latency
 * split is measured where it happens.
 */
public final class KafkaBroker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaBroker.class);
    private static final int ATTEMPTS = 5;

    /** Runs one node of the cluster. */
    public interface NodeRunner {
        /**
         * Starts node {@code id} with its server settings (formatted log directory included); may
         * return before it answers.
         */
        RunningNode start(int id, Map<String, String> settings);
    }

    /** A started node. */
    public interface RunningNode {
        /** Controlled shutdown: the partitions it leads move first, its logs are flushed. */
        void stop();

        /**
         * Ends the node at once, as {@code kill -9} does: no controlled shutdown, no flush.
         *
         * @throws UnsupportedOperationException when the node runs in this JVM
         */
        void kill();

        /**
         * Whether the node still runs: false once its process has ended. A node in this JVM runs
         * until stopped.
         */
        default boolean alive() {
            return true;
        }

        /** Where the node's own output goes, for an error message; null when it has none. */
        default Path logFile() {
            return null;
        }
    }

    /** The default runner: a {@link KafkaRaftServer} in this JVM. */
    public static final NodeRunner IN_THIS_JVM =
            (id, settings) -> {
                reportHaltsAndExits();
                KafkaRaftServer s = new KafkaRaftServer(new KafkaConfig(settings), Time.SYSTEM);
                s.startup();
                return new RunningNode() {
                    @Override
                    public void stop() {
                        s.shutdown();
                        s.awaitShutdown();
                    }

                    @Override
                    public void kill() {
                        throw new UnsupportedOperationException(
                                "Kafka node " + id + " runs in this JVM and cannot be killed");
                    }
                };
            };

    private static final AtomicBoolean REPORTING = new AtomicBoolean();

    /**
     * Makes a Kafka server in this JVM say why it ends the process: a fatal fault (a failed
     * metadata load, a raft I/O error) halts the JVM through Kafka's {@link Exit}, which would
     * otherwise end it without a word, buffered logs lost.
     */
    private static void reportHaltsAndExits() {
        if (!REPORTING.compareAndSet(false, true)) {
            return;
        }
        Exit.setHaltProcedure(
                (status, message) -> {
                    report("halts", status, message);
                    Runtime.getRuntime().halt(status);
                });
        Exit.setExitProcedure(
                (status, message) -> {
                    report("exits", status, message);
                    System.exit(status);
                });
    }

    private static void report(String what, int status, String message) {
        String line =
                "Kafka "
                        + what
                        + " the process, status "
                        + status
                        + (message == null ? "" : ": " + message);
        LOG.error(line, new Throwable("where"));
        System.err.println(line + " (the log has where)");
        System.err.flush();
    }

    /** One server of the cluster; {@code running} is null while it is stopped. */
    private static final class Node {
        final int id;
        final Map<String, String> settings;
        final String address;
        final NodeRunner runner;
        RunningNode running;

        Node(int id, Map<String, String> settings, String address, NodeRunner runner) {
            this.id = id;
            this.settings = settings;
            this.address = address;
            this.runner = runner;
        }
    }

    private final List<Node> nodes;
    private final Path logDir;
    private final boolean deleteOnClose;
    private final String bootstrapServers;

    private KafkaBroker(List<Node> nodes, Path logDir, boolean deleteOnClose) {
        this.nodes = nodes;
        this.logDir = logDir;
        this.deleteOnClose = deleteOnClose;
        this.bootstrapServers = String.join(",", nodes.stream().map(n -> n.address).toList());
    }

    public static Builder builder() {
        return new Builder();
    }

    /** {@code host:port} of every node's broker listener, comma-separated. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** Nodes in the cluster. */
    public int nodes() {
        return nodes.size();
    }

    /** The replication factor topics get by default: 1 for one node, 3 for three or more. */
    public int replicationFactor() {
        return replicationFactor(nodes.size());
    }

    /** The replication factor topics get by default on a cluster of {@code nodes} nodes. */
    public static int replicationFactor(int nodes) {
        return Math.min(nodes, 3);
    }

    /**
     * Stops every node (a controlled shutdown), keeping its logs, so that {@link #resume()} brings
     * it back on the same port with the same data. For fault injection.
     */
    public synchronized void stop() {
        inParallel(nodes.stream().filter(n -> n.running != null).toList(), KafkaBroker::shutDown);
        LOG.info("Kafka {} stopped", bootstrapServers);
    }

    /**
     * Stops node {@code id} (counted from 1), keeping its logs; the others go on, and the
     * partitions it led get new leaders among the in-sync replicas: at once when the node runs in a
     * process of its own (a controlled shutdown), once the controller has fenced it when the nodes
     * share this JVM.
     */
    public synchronized void stop(int id) {
        shutDown(node(id));
        LOG.info("Kafka node {} stopped", id);
    }

    /**
     * Kills node {@code id} (counted from 1) as {@code kill -9} does; {@link #resume} starts it
     * again, and it recovers its logs as after a crash.
     *
     * @throws UnsupportedOperationException when the nodes run in this JVM
     */
    public synchronized void kill(int id) {
        Node n = node(id);
        if (n.running != null) {
            n.running.kill();
            n.running = null;
            LOG.info("Kafka node {} killed", id);
        }
    }

    /**
     * Starts every stopped node again on its port and log directory.
     *
     * @throws IllegalStateException when the cluster does not come back
     */
    public synchronized void resume() {
        List<Node> stopped = nodes.stream().filter(n -> n.running == null).toList();
        inParallel(stopped, KafkaBroker::startUp);
        // the cluster may still count a killed node as registered: each must answer itself
        for (Node n : stopped) {
            awaitListening(n, Duration.ofSeconds(120));
            Builder.awaitReady(n.address, 1, Duration.ofSeconds(60));
        }
        Builder.awaitReady(bootstrapServers, nodes.size(), Duration.ofSeconds(60));
        LOG.info("Kafka {} resumed", bootstrapServers);
    }

    /**
     * Waits until node {@code n} accepts connections on its broker port, with a plain socket: an
     * {@link Admin} pointed at a port nobody listens on rebootstraps without pause, a core spent
     * while the node's own start wants it. Fails at once, naming its log, if its process ended.
     */
    private static void awaitListening(Node n, Duration timeout) {
        int colon = n.address.lastIndexOf(':');
        InetSocketAddress address =
                new InetSocketAddress(
                        n.address.substring(0, colon),
                        Integer.parseInt(n.address.substring(colon + 1)));
        Poll poll = Poll.within(timeout).every(Duration.ofMillis(200));
        while (true) {
            RunningNode running = n.running;
            Path log = running == null ? null : running.logFile();
            String seeLog = log == null ? "" : " (see " + log + ")";
            if (running == null || !running.alive()) {
                throw new IllegalStateException(
                        "Kafka node " + n.id + " ended while starting" + seeLog);
            }
            try (Socket s = new Socket()) {
                s.connect(address, 1000);
                return;
            } catch (IOException notYet) {
                if (poll.expired()) {
                    throw new IllegalStateException(
                            "Kafka node "
                                    + n.id
                                    + " not listening on "
                                    + n.address
                                    + " after "
                                    + timeout.toSeconds()
                                    + " s"
                                    + seeLog);
                }
                poll.pause();
            }
        }
    }

    /** The node (counted from 1) that leads partition {@code partition} of {@code topic}. */
    public int leaderOf(String topic, int partition) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        try (Admin admin = Admin.create(props)) {
            return admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(topic)
                    .partitions()
                    .get(partition)
                    .leader()
                    .id();
        } catch (Exception e) {
            throw new IllegalStateException(
                    "cannot find the leader of " + topic + "-" + partition + ": " + e.getMessage(),
                    e);
        }
    }

    private Node node(int id) {
        if (id < 1 || id > nodes.size()) {
            throw new IllegalArgumentException(
                    "no Kafka node " + id + " in a cluster of " + nodes.size());
        }
        return nodes.get(id - 1);
    }

    private static void shutDown(Node n) {
        if (n.running != null) {
            n.running.stop();
            n.running = null;
        }
    }

    private static void startUp(Node n) {
        if (n.running == null) {
            n.running = n.runner.start(n.id, n.settings);
        }
    }

    /**
     * Runs {@code action} on every node at once: a node of a cluster waits in its start for the
     * others to form the controller quorum, and a node shutting down last waits for none.
     */
    private static void inParallel(List<Node> some, java.util.function.Consumer<Node> action) {
        if (some.size() == 1) {
            action.accept(some.get(0));
            return;
        }
        List<Thread> threads = new ArrayList<>();
        List<RuntimeException> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (Node n : some) {
            Thread t =
                    new Thread(
                            () -> {
                                try {
                                    action.accept(n);
                                } catch (RuntimeException e) {
                                    failures.add(e);
                                }
                            },
                            "kafka-node-" + n.id);
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
        if (!failures.isEmpty()) {
            throw failures.get(0);
        }
    }

    @Override
    public synchronized void close() {
        try {
            inParallel(
                    nodes.stream().filter(n -> n.running != null).toList(), KafkaBroker::shutDown);
        } catch (RuntimeException e) {
            LOG.warn("Stopping Kafka: {}", e.getMessage());
        }
        if (deleteOnClose) {
            deleteRecursively(logDir);
        }
    }

    static void deleteRecursively(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            LOG.warn("Could not delete {}: {}", dir, e.getMessage());
        }
    }

    /** Fluent builder. */
    public static final class Builder {
        private Path logDir;
        private boolean keepLogs;
        private int port;
        private int nodes = 1;
        private NodeRunner runner = IN_THIS_JVM;
        private final Map<String, String> overrides = new LinkedHashMap<>();

        /** How each node runs; default {@link #IN_THIS_JVM}. */
        public Builder runner(NodeRunner runner) {
            this.runner = runner;
            return this;
        }

        /** Where the log segments go; default a temporary directory. Removed on close. */
        public Builder logDir(Path dir) {
            this.logDir = dir;
            return this;
        }

        /** Keep the log directory on close. */
        public Builder keepLogs(boolean keep) {
            this.keepLogs = keep;
            return this;
        }

        /** The first node's broker port; 0 (default) picks a free one. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /**
         * Nodes in the cluster, 1 (default) or more: with 3 or more, topics are replicated 3 times
         * and a write needs 2 in-sync replicas.
         */
        public Builder nodes(int nodes) {
            if (nodes < 1) {
                throw new IllegalArgumentException("a Kafka cluster needs at least one node");
            }
            this.nodes = nodes;
            return this;
        }

        /** Any broker setting. */
        public Builder property(String key, String value) {
            overrides.put(key, value);
            return this;
        }

        /**
         * Formats the log directories and starts the servers; retries with new ports when one was
         * taken in the meantime.
         *
         * @throws IllegalStateException when it cannot start
         */
        public KafkaBroker start() {
            Path dir;
            try {
                dir = logDir != null ? logDir : Files.createTempDirectory("cdclab-kafka");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (port != 0) {
                requireFree(port);
            }
            RuntimeException last = null;
            for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
                deleteRecursively(dir);
                int[] brokerPorts = new int[nodes];
                int[] controllerPorts = new int[nodes];
                Set<Integer> taken = new HashSet<>();
                for (int i = 0; i < nodes; i++) {
                    brokerPorts[i] = i == 0 && port != 0 ? port : freePort(taken);
                    taken.add(brokerPorts[i]);
                    controllerPorts[i] = freePort(taken);
                    taken.add(controllerPorts[i]);
                }
                try {
                    return startOnce(dir, brokerPorts, controllerPorts);
                } catch (RuntimeException e) {
                    last = e;
                    LOG.warn("Kafka start attempt {} failed: {}", attempt, e.toString());
                    if (port != 0) {
                        break;
                    }
                }
            }
            throw new IllegalStateException("Kafka did not start: " + last.getMessage(), last);
        }

        private KafkaBroker startOnce(Path dir, int[] brokerPorts, int[] controllerPorts) {
            String clusterId = Uuid.randomUuid().toString();
            StringBuilder voters = new StringBuilder();
            for (int i = 0; i < nodes; i++) {
                voters.append(i == 0 ? "" : ",")
                        .append(i + 1)
                        .append("@127.0.0.1:")
                        .append(controllerPorts[i]);
            }
            String rf = Integer.toString(replicationFactor(nodes));
            String minIsr = nodes >= 3 ? "2" : "1";
            List<Node> cluster = new ArrayList<>();
            for (int i = 0; i < nodes; i++) {
                int id = i + 1;
                Path nodeDir = nodes == 1 ? dir : dir.resolve("node-" + id);
                Map<String, String> p = new LinkedHashMap<>();
                p.put("process.roles", "broker,controller");
                p.put("node.id", Integer.toString(id));
                p.put(
                        "listeners",
                        "PLAINTEXT://127.0.0.1:"
                                + brokerPorts[i]
                                + ",CONTROLLER://127.0.0.1:"
                                + controllerPorts[i]);
                p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPorts[i]);
                p.put("controller.listener.names", "CONTROLLER");
                p.put("inter.broker.listener.name", "PLAINTEXT");
                p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
                p.put("controller.quorum.voters", voters.toString());
                p.put("log.dirs", nodeDir.toString());
                p.put("num.partitions", "1");
                p.put("default.replication.factor", rf);
                p.put("min.insync.replicas", minIsr);
                p.put("offsets.topic.replication.factor", rf);
                p.put("offsets.topic.num.partitions", "5");
                p.put("transaction.state.log.replication.factor", rf);
                p.put("transaction.state.log.min.isr", minIsr);
                p.put("transaction.state.log.num.partitions", "5");
                p.put("share.coordinator.state.topic.replication.factor", rf);
                p.put("share.coordinator.state.topic.min.isr", minIsr);
                p.put("group.initial.rebalance.delay.ms", "0");
                p.put("auto.create.topics.enable", "false");
                p.put("log.message.timestamp.type", "LogAppendTime");
                p.put("log.retention.hours", "24");
                // an in-process broker shares the machine with everything else: few threads
                p.put("num.io.threads", "2");
                p.put("num.network.threads", "2");
                p.put("background.threads", "2");
                if (nodes > 1 && runner == IN_THIS_JVM) {
                    // nodes closed together in one JVM can lose the controller quorum while a
                    // broker still waits for its controlled shutdown to be approved, for minutes
                    p.put("controlled.shutdown.enable", "false");
                }
                overrides.forEach(p::put);
                // refused here, with the setting named, whichever way the node runs
                new KafkaConfig(p);
                format(nodeDir, id, clusterId);
                cluster.add(new Node(id, Map.copyOf(p), "127.0.0.1:" + brokerPorts[i], runner));
            }
            KafkaBroker broker = new KafkaBroker(cluster, dir, !keepLogs);
            try {
                inParallel(cluster, KafkaBroker::startUp);
                awaitReady(broker.bootstrapServers(), nodes, Duration.ofSeconds(60));
            } catch (RuntimeException e) {
                try {
                    inParallel(
                            cluster.stream().filter(n -> n.running != null).toList(),
                            KafkaBroker::shutDown);
                } catch (RuntimeException ignored) {
                    // already failing
                }
                throw e;
            }
            LOG.info(
                    "Kafka listening on {} ({} node{})",
                    broker.bootstrapServers(),
                    nodes,
                    nodes == 1 ? "" : "s");
            return broker;
        }

        private static void format(Path nodeDir, int id, String clusterId) {
            try {
                new Formatter()
                        .setPrintStream(new PrintStream(PrintStream.nullOutputStream()))
                        .setNodeId(id)
                        .setClusterId(clusterId)
                        .setControllerListenerName("CONTROLLER")
                        .setMetadataLogDirectory(nodeDir.toString())
                        .addDirectory(nodeDir.toString())
                        .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                        .setHasDynamicQuorum(false)
                        .run();
            } catch (Exception e) {
                throw new IllegalStateException(
                        "cannot format " + nodeDir + ": " + e.getMessage(), e);
            }
        }

        /** Waits until {@code nodes} brokers are registered and answer. */
        static void awaitReady(String bootstrap, int nodes, Duration timeout) {
            Properties props = new Properties();
            props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            // rebootstrapping, the default since Kafka 4.0, retries an unreachable bootstrap list
            // without backoff; the reconnect backoff paces the wait instead
            props.put(AdminClientConfig.METADATA_RECOVERY_STRATEGY_CONFIG, "none");
            Poll poll = Poll.within(timeout).every(Duration.ofMillis(100));
            try (Admin admin = Admin.create(props)) {
                while (true) {
                    int seen =
                            admin.describeCluster()
                                    .nodes()
                                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                                    .size();
                    if (seen >= nodes) {
                        return;
                    }
                    if (poll.expired()) {
                        throw new IllegalStateException(seen + " of " + nodes + " Kafka nodes up");
                    }
                    poll.pause();
                }
            } catch (IllegalStateException e) {
                throw e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            } catch (Exception e) {
                throw new IllegalStateException(
                        "Kafka at "
                                + bootstrap
                                + " not ready: "
                                + (e.getMessage() == null
                                        ? e.getClass().getSimpleName()
                                        : e.getMessage()),
                        e);
            }
        }

        /** A free port none of this attempt's nodes was given yet. */
        private static int freePort(Set<Integer> taken) {
            while (true) {
                int p = LoopbackPorts.free();
                if (!taken.contains(p)) {
                    return p;
                }
            }
        }

        private static void requireFree(int port) {
            try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                s.setReuseAddress(true);
            } catch (IOException e) {
                throw new PortInUseException(port);
            }
        }
    }
}
