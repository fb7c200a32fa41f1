package dev.cdclab.pipeline;

import dev.cdclab.capture.CaptureConfig;
import dev.cdclab.capture.ConnectRestClient;
import dev.cdclab.capture.DebeziumConnectorConfig;
import dev.cdclab.capture.SourceDatabase;
import dev.cdclab.change.NetChangeMode;
import dev.cdclab.config.Durations;
import dev.cdclab.embedded.ConnectWorker;
import dev.cdclab.embedded.KafkaBroker;
import dev.cdclab.embedded.PostgresServer;
import dev.cdclab.sink.SinkConfig;
import dev.cdclab.sink.WarehouseSink;
import dev.cdclab.streams.NetChangeApp;
import dev.cdclab.streams.NetChangeConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole pipeline on embedded defaults, in this JVM: PostgreSQL (real server, embedded binaries)
 * → Debezium in a distributed Kafka Connect worker → a KRaft broker → the net-change Streams app →
 * the warehouse sink into a DuckDB file. Every name carries a run id, so pipelines never share
 * slots, topics, groups or files.
 */
public final class EmbeddedPipeline implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPipeline.class);

    /** Work done on the source after it starts and before capture begins (schema, prefill). */
    @FunctionalInterface
    public interface SourceInitializer {
        void initialize(PostgresServer source) throws Exception;
    }

    private final Builder settings;
    private final Deque<AutoCloseable> started = new ArrayDeque<>();
    private PostgresServer source;
    private SourceDatabase sourceDatabase;
    private KafkaBroker kafka;
    private NetChangeApp streams;
    private WarehouseSink sink;
    private ConnectWorker connect;
    private Map<String, String> connectorConfig;
    private NetChangeConfig netChangeConfig;
    private Map<String, String> sourceSettings;
    private volatile boolean closed;

    private EmbeddedPipeline(Builder b) {
        this.settings = b;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts every part in order. On failure, stops what had started and rethrows.
     *
     * @throws IllegalStateException naming the part that failed
     */
    public EmbeddedPipeline start() {
        try {
            startParts();
        } catch (RuntimeException e) {
            close();
            throw e;
        } catch (Exception e) {
            close();
            throw new IllegalStateException(e.getMessage(), e);
        }
        return this;
    }

    private void startParts() throws Exception {
        Path work = settings.workDir.toAbsolutePath();
        java.nio.file.Files.createDirectories(work);
        checkDisk();
        String id = settings.runId;
        long t0 = System.nanoTime();
        source =
                PostgresServer.builder()
                        .dataDirectory(work.resolve("postgres"))
                        .logFile(work.resolve("logs/postgres.log"))
                        .durable(settings.durable)
                        .port(settings.sourcePort)
                        .shutdownHook(settings.shutdownHooks)
                        .start();
        started.push(source);
        phase("source", t0);

        CaptureConfig capture =
                new CaptureConfig(
                        CaptureConfig.builder()
                                .set(CaptureConfig.HOST, source.host())
                                .set(CaptureConfig.PORT, source.port())
                                .set(CaptureConfig.DATABASE, source.database())
                                .set(CaptureConfig.USER, source.user())
                                .set(CaptureConfig.PASSWORD, source.password())
                                .set(CaptureConfig.CONNECTOR_NAME, "cdclab-source-" + id)
                                .set(CaptureConfig.SLOT, ("cdclab_" + id).replace('-', '_'))
                                .set(CaptureConfig.PUBLICATION, ("cdclab_" + id).replace('-', '_'))
                                .set(CaptureConfig.PARTITIONS, settings.partitions)
                                .set(CaptureConfig.HEARTBEAT, settings.heartbeat)
                                .setAll(settings.captureOverrides)
                                .build());
        sourceDatabase = SourceDatabase.of(capture);
        sourceDatabase.prepare(capture);
        if (settings.initializer != null) {
            settings.initializer.initialize(source);
        }
        sourceSettings = sourceDatabase.settings();

        t0 = System.nanoTime();
        kafka =
                KafkaBroker.builder()
                        .logDir(work.resolve("kafka"))
                        .port(settings.kafkaPort)
                        .start();
        started.push(kafka);
        phase("kafka", t0);

        t0 = System.nanoTime();
        NetChangeConfig nc =
                new NetChangeConfig(
                        NetChangeConfig.builder()
                                .set(NetChangeConfig.BOOTSTRAP_SERVERS, kafka.bootstrapServers())
                                .set(NetChangeConfig.APPLICATION_ID, "cdclab-net-changes-" + id)
                                .set(NetChangeConfig.INTERVAL, settings.interval)
                                .set(NetChangeConfig.GRACE, settings.grace)
                                .set(NetChangeConfig.MODE, settings.mode)
                                .set(NetChangeConfig.PARTITIONS, settings.partitions)
                                .set(NetChangeConfig.GUARANTEE, settings.guarantee)
                                .set(NetChangeConfig.STATE_DIR, work.resolve("streams").toString())
                                .set("kafka.producer.compression.type", "none")
                                .setAll(settings.streamsOverrides)
                                .build());
        netChangeConfig = nc;
        streams = new NetChangeApp(nc);
        started.push(streams);
        streams.start(Duration.ofSeconds(60));
        phase("streams", t0);

        t0 = System.nanoTime();
        SinkConfig sc =
                new SinkConfig(
                        SinkConfig.builder()
                                .set(SinkConfig.BOOTSTRAP_SERVERS, kafka.bootstrapServers())
                                .set(SinkConfig.GROUP_ID, "cdclab-warehouse-sink-" + id)
                                .set(SinkConfig.WAREHOUSE_URL, warehouseUrl())
                                .setAll(settings.sinkOverrides)
                                .build());
        sink = new WarehouseSink(sc);
        started.push(sink);
        sink.start(Duration.ofSeconds(30));
        phase("sink", t0);

        t0 = System.nanoTime();
        connect =
                ConnectWorker.builder()
                        .bootstrapServers(kafka.bootstrapServers())
                        .groupId("cdclab-connect-" + id)
                        // loopback: compression costs CPU at three hops and saves nothing
                        .property("producer.compression.type", "none")
                        .start();
        started.push(connect);
        phase("connect", t0);

        t0 = System.nanoTime();
        connectorConfig = DebeziumConnectorConfig.of(capture);
        ConnectRestClient rest = new ConnectRestClient(connect.restUrl());
        String name = capture.get(CaptureConfig.CONNECTOR_NAME);
        List<String> problems = rest.validate(name, connectorConfig);
        if (!problems.isEmpty()) {
            throw new IllegalStateException("connector config rejected: " + problems.get(0));
        }
        rest.put(name, connectorConfig);
        rest.awaitRunning(name, Duration.ofSeconds(60));
        sourceDatabase.awaitStreaming(settings.streamingTimeout);
        phase("capture", t0);
        LOG.info(
                "Pipeline {} up: source {}, kafka {}, connect {}, warehouse {}",
                id,
                source.jdbcUrl(),
                kafka.bootstrapServers(),
                connect.restUrl(),
                warehouseUrl());
    }

    private void phase(String name, long t0) {
        LOG.info("{} started in {} ms", name, (System.nanoTime() - t0) / 1_000_000);
    }

    /**
     * Throws when the work directory's file system is nearly full: Kafka and PostgreSQL must not
     * run out of space mid-write.
     */
    public void checkDisk() {
        Path work = settings.workDir.toAbsolutePath();
        try {
            long free = java.nio.file.Files.getFileStore(work).getUsableSpace();
            if (free < settings.minFreeDisk) {
                throw new IllegalStateException(
                        "disk almost full: "
                                + free / (1024 * 1024)
                                + " MiB left under "
                                + work
                                + " (need "
                                + settings.minFreeDisk / (1024 * 1024)
                                + " MiB); stopping before anything is lost");
            }
        } catch (java.io.IOException e) {
            LOG.warn("Cannot read free space of {}: {}", work, e.getMessage());
        }
    }

    /**
     * Checks health every second on a thread of its own and calls {@code onFailure} once when a
     * part fails or the disk fills; close the returned handle to stop watching.
     */
    public AutoCloseable watch(java.util.function.Consumer<RuntimeException> onFailure) {
        Thread t =
                new Thread(
                        () -> {
                            while (!Thread.currentThread().isInterrupted()) {
                                try {
                                    Thread.sleep(1000);
                                    checkHealthy();
                                } catch (InterruptedException e) {
                                    return;
                                } catch (RuntimeException e) {
                                    onFailure.accept(e);
                                    return;
                                }
                            }
                        },
                        "pipeline-watch");
        t.setDaemon(true);
        t.start();
        return t::interrupt;
    }

    /** Throws if a background part has failed or the disk is nearly full. */
    public void checkHealthy() {
        checkDisk();
        streams.failure()
                .ifPresent(
                        e -> {
                            throw new IllegalStateException(
                                    "net-change app failed: " + e.getMessage(), e);
                        });
        sink.failure()
                .ifPresent(
                        e -> {
                            throw new IllegalStateException(
                                    "warehouse sink failed: " + e.getMessage(), e);
                        });
    }

    /**
     * Waits until every transaction committed at the source before now is in the warehouse.
     *
     * @return how long it took
     * @throws IllegalStateException on timeout or when a part failed
     */
    public Duration awaitCaughtUp(Duration timeout) {
        long target = sourceDatabase.nowMs();
        long t0 = System.nanoTime();
        long deadline = t0 + timeout.toNanos();
        while (sink.stats().appliedThroughMs() < target) {
            checkHealthy();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "warehouse did not catch up within "
                                + Durations.format(timeout)
                                + " (complete through "
                                + sink.stats().appliedThroughMs()
                                + ", source at "
                                + target
                                + ")");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    public PostgresServer source() {
        return source;
    }

    public SourceDatabase sourceDatabase() {
        return sourceDatabase;
    }

    public KafkaBroker kafka() {
        return kafka;
    }

    public NetChangeApp streams() {
        return streams;
    }

    public WarehouseSink sink() {
        return sink;
    }

    public ConnectWorker connect() {
        return connect;
    }

    /** The net-change app's configuration (to start more instances with the same id). */
    public NetChangeConfig netChangeConfig() {
        return netChangeConfig;
    }

    /** The connector config as registered (contains the password). */
    public Map<String, String> connectorConfig() {
        return connectorConfig;
    }

    /** Source settings that decide durability and throughput. */
    public Map<String, String> sourceSettings() {
        return sourceSettings;
    }

    public String warehouseUrl() {
        return "jdbc:duckdb:" + warehousePath();
    }

    public Path warehousePath() {
        return settings.workDir.toAbsolutePath().resolve("warehouse.duckdb");
    }

    public String runId() {
        return settings.runId;
    }

    public Builder settings() {
        return settings;
    }

    /** A source connection as the superuser. */
    public Connection sourceConnection() throws SQLException {
        return source.connect();
    }

    /** A warehouse read connection that works while the sink writes. */
    public Connection warehouseConnection() throws SQLException {
        return sink.openReader();
    }

    /** Stops everything that was started, newest first. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        while (!started.isEmpty()) {
            AutoCloseable c = started.pop();
            try {
                c.close();
            } catch (Exception e) {
                LOG.warn("Stopping {}: {}", c.getClass().getSimpleName(), e.getMessage());
            }
        }
    }

    /** Settings of an embedded pipeline. */
    public static final class Builder {
        private Path workDir = Path.of("cdc-lab-runs", "run");
        private String runId = "run";
        private int partitions = 1;
        private Duration interval = Duration.ofSeconds(1);
        private Duration grace = Duration.ofMillis(100);
        private Duration heartbeat = Duration.ofSeconds(1);
        private NetChangeMode mode = NetChangeMode.ALL;
        private NetChangeConfig.Guarantee guarantee = NetChangeConfig.Guarantee.AT_LEAST_ONCE;
        private boolean durable = true;
        private boolean shutdownHooks = true;
        private int sourcePort;
        private int kafkaPort;
        private Duration streamingTimeout = Duration.ofMinutes(10);
        private long minFreeDisk = 2L * 1024 * 1024 * 1024;
        private SourceInitializer initializer;
        private final Map<String, String> streamsOverrides = new LinkedHashMap<>();
        private final Map<String, String> sinkOverrides = new LinkedHashMap<>();
        private final Map<String, String> captureOverrides = new LinkedHashMap<>();

        /** Directory for the source data, Kafka logs, state, warehouse and logs. */
        public Builder workDir(Path dir) {
            this.workDir = dir;
            return this;
        }

        /** Suffix of every name (slot, topics, groups, application id). */
        public Builder runId(String id) {
            this.runId = id;
            return this;
        }

        public Builder partitions(int n) {
            this.partitions = n;
            return this;
        }

        public Builder interval(Duration d) {
            this.interval = d;
            return this;
        }

        public Builder grace(Duration d) {
            this.grace = d;
            return this;
        }

        public Builder heartbeat(Duration d) {
            this.heartbeat = d;
            return this;
        }

        public Builder mode(NetChangeMode m) {
            this.mode = m;
            return this;
        }

        public Builder guarantee(NetChangeConfig.Guarantee g) {
            this.guarantee = g;
            return this;
        }

        /** False runs the source with fsync and synchronous_commit off. */
        public Builder durable(boolean d) {
            this.durable = d;
            return this;
        }

        /** Whether parts register their own JVM shutdown hooks (false when the caller has one). */
        public Builder shutdownHooks(boolean b) {
            this.shutdownHooks = b;
            return this;
        }

        public Builder sourcePort(int port) {
            this.sourcePort = port;
            return this;
        }

        public Builder kafkaPort(int port) {
            this.kafkaPort = port;
            return this;
        }

        /** Free space the work directory's file system must keep (default 2 GiB). */
        public Builder minFreeDisk(long bytes) {
            this.minFreeDisk = bytes;
            return this;
        }

        /** How long the initial snapshot may take. */
        public Builder streamingTimeout(Duration d) {
            this.streamingTimeout = d;
            return this;
        }

        public Builder beforeCapture(SourceInitializer i) {
            this.initializer = i;
            return this;
        }

        /** A net-change app setting (see {@link NetChangeConfig}). */
        public Builder streams(String key, String value) {
            streamsOverrides.put(key, value);
            return this;
        }

        /** A sink setting (see {@link SinkConfig}). */
        public Builder sink(String key, String value) {
            sinkOverrides.put(key, value);
            return this;
        }

        /** A capture setting (see {@link CaptureConfig}). */
        public Builder capture(String key, String value) {
            captureOverrides.put(key, value);
            return this;
        }

        public Path workDir() {
            return workDir;
        }

        public int partitions() {
            return partitions;
        }

        public Duration interval() {
            return interval;
        }

        public Duration grace() {
            return grace;
        }

        public NetChangeMode mode() {
            return mode;
        }

        public NetChangeConfig.Guarantee guarantee() {
            return guarantee;
        }

        public boolean durable() {
            return durable;
        }

        public EmbeddedPipeline build() {
            return new EmbeddedPipeline(this);
        }

        /** Builds and starts. */
        public EmbeddedPipeline start() {
            return build().start();
        }

        Optional<SourceInitializer> initializer() {
            return Optional.ofNullable(initializer);
        }
    }
}
