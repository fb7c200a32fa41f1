package dev.cdclab.embedded;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.runtime.Connect;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kafka Connect worker in distributed mode, in this JVM: configs, offsets and status live in
 * Kafka topics, and its REST API listens on a free loopback port. Connector plugins are found on
 * the class path, and in {@code plugin.path} when given, through their service manifests.
 */
public final class ConnectWorker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectWorker.class);

    private final Connect<?> connect;
    private final String restUrl;

    private ConnectWorker(Connect<?> connect, String restUrl) {
        this.connect = connect;
        this.restUrl = restUrl;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Base URL of the REST API, without trailing slash. */
    public String restUrl() {
        return restUrl;
    }

    @Override
    public void close() {
        try {
            connect.stop();
            connect.awaitStop();
        } catch (RuntimeException e) {
            LOG.warn("Stopping Kafka Connect: {}", e.getMessage());
        }
    }

    /** Fluent builder. */
    public static final class Builder {
        private String bootstrapServers;
        private String groupId = "cdclab-connect";
        private int replicationFactor = 1;
        private int restPort;
        private final java.util.List<java.nio.file.Path> pluginPath = new java.util.ArrayList<>();
        private final Map<String, String> overrides = new LinkedHashMap<>();

        public Builder bootstrapServers(String servers) {
            this.bootstrapServers = servers;
            return this;
        }

        /** Worker group; its internal topics are named after it. */
        public Builder groupId(String groupId) {
            this.groupId = groupId;
            return this;
        }

        public Builder replicationFactor(int rf) {
            this.replicationFactor = rf;
            return this;
        }

        /** REST port; 0 (default) picks a free one. */
        public Builder restPort(int port) {
            this.restPort = port;
            return this;
        }

        /**
         * Adds a {@code plugin.path} entry: a directory of plugin directories. Each plugin runs in
         * its own class loader, so connectors of different Debezium versions can share the worker.
         */
        public Builder pluginPath(java.nio.file.Path dir) {
            this.pluginPath.add(dir);
            return this;
        }

        /** Any worker setting. */
        public Builder property(String key, String value) {
            overrides.put(key, value);
            return this;
        }

        /**
         * Starts the worker and waits until its REST API answers.
         *
         * @throws IllegalStateException when it cannot start
         */
        public ConnectWorker start() {
            Map<String, String> w = workerProperties();
            Connect<?> connect;
            try {
                connect = new ConnectDistributed().startConnect(w);
            } catch (RuntimeException e) {
                throw new IllegalStateException(
                        "Kafka Connect did not start: " + e.getMessage(), e);
            }
            URI url = connect.rest().advertisedUrl();
            String base = url.toString().replaceAll("/+$", "");
            LOG.info("Kafka Connect worker {} REST at {}", groupId, base);
            return new ConnectWorker(connect, base);
        }

        /**
         * The worker's settings, as {@code ConnectDistributed} reads them from its properties file
         * (to run the same worker in a process of its own).
         */
        public Map<String, String> workerProperties() {
            if (bootstrapServers == null) {
                throw new IllegalStateException("bootstrapServers is required");
            }
            String rf = Integer.toString(replicationFactor);
            Map<String, String> w = new LinkedHashMap<>();
            w.put("bootstrap.servers", bootstrapServers);
            w.put("group.id", groupId);
            w.put("config.storage.topic", groupId + "-configs");
            w.put("offset.storage.topic", groupId + "-offsets");
            w.put("status.storage.topic", groupId + "-status");
            w.put("config.storage.replication.factor", rf);
            w.put("offset.storage.replication.factor", rf);
            w.put("status.storage.replication.factor", rf);
            w.put("offset.storage.partitions", "5");
            w.put("status.storage.partitions", "1");
            w.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
            w.put("key.converter.schemas.enable", "false");
            w.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
            w.put("value.converter.schemas.enable", "true");
            w.put("listeners", "http://127.0.0.1:" + restPort);
            w.put("rest.advertised.host.name", "127.0.0.1");
            w.put("plugin.discovery", "service_load");
            if (!pluginPath.isEmpty()) {
                w.put(
                        "plugin.path",
                        pluginPath.stream()
                                .map(d -> d.toAbsolutePath().toString())
                                .collect(java.util.stream.Collectors.joining(",")));
            }
            w.put("offset.flush.interval.ms", "5000");
            // a worker that died and comes back joins as a new member: the tasks the old one
            // held wait this long before they are given out again (Connect's 5 minutes kept the
            // capture stopped that long after a crash of the only worker)
            w.put("scheduled.rebalance.max.delay.ms", "10000");
            w.put("connector.client.config.override.policy", "All");
            // secrets stay out of connector configs: ${file:...} and ${env:...} are resolved here
            w.put("config.providers", "file,env");
            w.put(
                    "config.providers.file.class",
                    "org.apache.kafka.common.config.provider.FileConfigProvider");
            w.put(
                    "config.providers.env.class",
                    "org.apache.kafka.common.config.provider.EnvVarConfigProvider");
            w.put("producer.compression.type", "lz4");
            w.put("producer.linger.ms", "5");
            // Connect sends with one request in flight (it keeps order); change events with
            // their schema are kilobytes each, so small batches would cap throughput
            w.put("producer.batch.size", "1048576");
            w.put("producer.max.request.size", "8388608");
            overrides.forEach(w::put);
            return w;
        }
    }
}
