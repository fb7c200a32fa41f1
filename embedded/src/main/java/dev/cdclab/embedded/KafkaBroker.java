package dev.cdclab.embedded;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Kafka cluster in this JVM: one KRaft server acting as broker and controller,
 * on free loopback ports. Records get the broker's append time ({@code LogAppendTime}) so the Kafka
 * stage of the latency split is measured where it happens.
 */
public final class KafkaBroker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaBroker.class);
    private static final int ATTEMPTS = 5;

    private final KafkaConfig config;
    private KafkaRaftServer server;
    private final Path logDir;
    private final boolean deleteOnClose;
    private final String bootstrapServers;

    private KafkaBroker(
            KafkaConfig config,
            KafkaRaftServer server,
            Path logDir,
            boolean deleteOnClose,
            String bootstrapServers) {
        this.config = config;
        this.server = server;
        this.logDir = logDir;
        this.deleteOnClose = deleteOnClose;
        this.bootstrapServers = bootstrapServers;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** {@code host:port} of the broker listener. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /**
     * Stops the broker (a controlled shutdown), keeping its logs, so that {@link #resume()} brings
     * it back on the same port with the same data. For fault injection.
     */
    public synchronized void stop() {
        if (server == null) {
            return;
        }
        server.shutdown();
        server.awaitShutdown();
        server = null;
        LOG.info("Kafka broker {} stopped", bootstrapServers);
    }

    /**
     * Starts a stopped broker again on its port and log directory.
     *
     * @throws IllegalStateException when it does not come back
     */
    public synchronized void resume() {
        if (server != null) {
            return;
        }
        KafkaRaftServer s = new KafkaRaftServer(config, Time.SYSTEM);
        s.startup();
        server = s;
        Builder.awaitReady(bootstrapServers, Duration.ofSeconds(60));
        LOG.info("Kafka broker {} resumed", bootstrapServers);
    }

    @Override
    public synchronized void close() {
        try {
            if (server != null) {
                server.shutdown();
                server.awaitShutdown();
                server = null;
            }
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
        private final Map<String, String> overrides = new LinkedHashMap<>();

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

        /** Broker port; 0 (default) picks a free one. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Any broker setting. */
        public Builder property(String key, String value) {
            overrides.put(key, value);
            return this;
        }

        /**
         * Formats the log directory and starts the server; retries with new ports when one was
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
                int brokerPort = port != 0 ? port : freePort();
                int controllerPort = freePort();
                try {
                    return startOnce(dir, brokerPort, controllerPort);
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

        private KafkaBroker startOnce(Path dir, int brokerPort, int controllerPort) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("process.roles", "broker,controller");
            p.put("node.id", "1");
            p.put(
                    "listeners",
                    "PLAINTEXT://127.0.0.1:"
                            + brokerPort
                            + ",CONTROLLER://127.0.0.1:"
                            + controllerPort);
            p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
            p.put("controller.listener.names", "CONTROLLER");
            p.put("inter.broker.listener.name", "PLAINTEXT");
            p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
            p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
            p.put("log.dirs", dir.toString());
            p.put("num.partitions", "1");
            p.put("default.replication.factor", "1");
            p.put("min.insync.replicas", "1");
            p.put("offsets.topic.replication.factor", "1");
            p.put("offsets.topic.num.partitions", "5");
            p.put("transaction.state.log.replication.factor", "1");
            p.put("transaction.state.log.min.isr", "1");
            p.put("transaction.state.log.num.partitions", "5");
            p.put("share.coordinator.state.topic.replication.factor", "1");
            p.put("share.coordinator.state.topic.min.isr", "1");
            p.put("group.initial.rebalance.delay.ms", "0");
            p.put("auto.create.topics.enable", "false");
            p.put("log.message.timestamp.type", "LogAppendTime");
            p.put("log.retention.hours", "24");
            // an in-process broker shares the machine with everything else: few threads
            p.put("num.io.threads", "2");
            p.put("num.network.threads", "2");
            p.put("background.threads", "2");
            overrides.forEach(p::put);
            KafkaConfig config = new KafkaConfig(p);
            try {
                new Formatter()
                        .setPrintStream(new PrintStream(PrintStream.nullOutputStream()))
                        .setNodeId(1)
                        .setClusterId(Uuid.randomUuid().toString())
                        .setControllerListenerName("CONTROLLER")
                        .setMetadataLogDirectory(dir.toString())
                        .addDirectory(dir.toString())
                        .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                        .setHasDynamicQuorum(false)
                        .run();
            } catch (Exception e) {
                throw new IllegalStateException("cannot format " + dir + ": " + e.getMessage(), e);
            }
            KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
            String bootstrap = "127.0.0.1:" + brokerPort;
            try {
                server.startup();
                awaitReady(bootstrap, Duration.ofSeconds(30));
            } catch (RuntimeException e) {
                try {
                    server.shutdown();
                    server.awaitShutdown();
                } catch (RuntimeException ignored) {
                    // already failing
                }
                throw e;
            }
            LOG.info("Kafka broker listening on {}", bootstrap);
            return new KafkaBroker(config, server, dir, !keepLogs, bootstrap);
        }

        static void awaitReady(String bootstrap, Duration timeout) {
            Properties props = new Properties();
            props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            try (Admin admin = Admin.create(props)) {
                admin.describeCluster().nodes().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("broker not ready: " + e.getMessage(), e);
            }
        }

        private static int freePort() {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                return s.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
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
