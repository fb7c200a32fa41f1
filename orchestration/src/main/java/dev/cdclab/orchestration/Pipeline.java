package dev.cdclab.orchestration;

import dev.cdclab.capture.CaptureConfig;
import dev.cdclab.capture.CaptureSource;
import dev.cdclab.capture.ConnectRestClient;
import dev.cdclab.capture.DebeziumConnectorConfig;
import dev.cdclab.change.NetChangeMode;
import dev.cdclab.config.RowLimit;
import dev.cdclab.config.RunNames;
import dev.cdclab.initialload.InitialLoad;
import dev.cdclab.orchestration.infra.InfraSpec;
import dev.cdclab.orchestration.infra.Infrastructure;
import dev.cdclab.orchestration.infra.SourceEndpoint;
import dev.cdclab.orchestration.infra.Topics;
import dev.cdclab.orchestration.infra.WarehouseServer;
import dev.cdclab.orchestration.operate.CatchUp;
import dev.cdclab.orchestration.operate.DiskGuard;
import dev.cdclab.orchestration.operate.HealthWatch;
import dev.cdclab.orchestration.operate.StageFailedException;
import dev.cdclab.orchestration.verify.SourceCatalog;
import dev.cdclab.orchestration.verify.VerificationResult;
import dev.cdclab.orchestration.verify.WarehouseVerifier;
import dev.cdclab.sink.SinkConfig;
import dev.cdclab.sink.WarehouseSink;
import dev.cdclab.sink.warehouse.WarehouseProgress;
import dev.cdclab.streams.NetChangeApp;
import dev.cdclab.streams.NetChangeConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline's stages deployed onto an {@link Infrastructure}: the Debezium connector registered
 * with Kafka Connect, the net-change Streams app and the warehouse sink. Every name carries the run
 * id, so pipelines never share slots, publications, topics, groups or files. On shared
 * infrastructure (external services, containers a test manages) closing removes what the pipeline
 * created there.
 */
public final class Pipeline implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Pipeline.class);

    /** Work done on the source after it starts and before capture begins (schema, prefill). */
    @FunctionalInterface
    public interface SourceInitializer {
        void initialize(SourceEndpoint source) throws Exception;
    }

    /** A stage that can run outside this pipeline's process ({@code up --without}). */
    public enum Stage {
        /** The net-change Kafka Streams app. */
        STREAMS,
        /** The warehouse sink. */
        SINK
    }

    private final PipelineSpec spec;
    private final Deque<AutoCloseable> started = new ArrayDeque<>();
    private final Map<String, Long> startupMillis = new LinkedHashMap<>();
    private final DiskGuard disk;
    private Infrastructure infra;
    private CaptureConfig capture;
    private CaptureSource captureSource;
    private NetChangeApp streams;
    private WarehouseSink sink;
    private WarehouseServer warehouseServer;
    private Map<String, String> connectorConfig;
    private NetChangeConfig netChangeConfig;
    private SinkConfig sinkConfig;
    private ConnectRestClient connectRest;
    private volatile List<com.fasterxml.jackson.databind.JsonNode> lastOffsets = List.of();
    private Map<String, String> sourceSettings;
    private volatile boolean closed;

    private Pipeline(PipelineSpec spec) {
        this.spec = spec;
        this.disk = new DiskGuard(spec.workDir(), spec.minFreeDisk());
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the infrastructure, then every stage. On failure, stops what had started and rethrows.
     */
    public Pipeline start() {
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
        Path work = spec.workDir().toAbsolutePath();
        Files.createDirectories(work);
        disk.check();
        String id = spec.runId();
        long t0 = System.nanoTime();
        infra =
                spec.infrastructure()
                        .start(
                                new InfraSpec.Context(
                                        work,
                                        id,
                                        spec.durable(),
                                        spec.sourcePort(),
                                        spec.kafkaPort(),
                                        spec.shutdownHooks()));
        started.push(infra);
        phase("infrastructure", t0);

        if (spec.postgresWarehouse()) {
            t0 = System.nanoTime();
            warehouseServer =
                    WarehouseServer.start(
                            work.resolve("warehouse-postgres"),
                            work.resolve("logs").resolve("warehouse-postgres.log"),
                            spec.durable());
            started.push(warehouseServer);
            phase("warehouse", t0);
        }

        t0 = System.nanoTime();
        SourceEndpoint src = infra.source();
        RunNames names = names();
        capture = StageConfigs.capture(spec, infra.kind(), src, infra.kafkaBootstrapServers());

        captureSource = CaptureSource.of(capture);
        // fail fast, before a long prefill, when the source cannot be captured at all
        captureSource.check();
        if (spec.initializer() != null) {
            spec.initializer().initialize(src);
        }
        // after the initializer: SQL Server enables CDC on the tables that exist then
        captureSource.prepare();
        captureSource.awaitReady(Duration.ofMinutes(2));
        sourceSettings = captureSource.settings();
        phase("source preparation", t0);

        long tLoad = System.nanoTime();
        InitialLoadStage load =
                captureSource instanceof dev.cdclab.capture.PostgresCapture pg
                        ? InitialLoadStage.startIfDue(
                                        pg,
                                        capture,
                                        StageConfigs.sink(
                                                spec,
                                                infra.kafkaBootstrapServers(),
                                                embeddedWarehouse()))
                                .orElse(null)
                        : null;
        boolean loaded = load != null;
        if (loaded) {
            started.push(load);
        }

        String appId = names.streamsApplicationId();
        if (infra.shared()) {
            String bootstrap = infra.kafkaBootstrapServers();
            started.push(
                    () ->
                            Topics.delete(
                                    bootstrap,
                                    // Debezium's heartbeat topic: the router leaves it alone
                                    List.of(names.heartbeatTopic()),
                                    List.of(names.topicPrefix() + ".", appId + "-")));
        }

        t0 = System.nanoTime();
        NetChangeConfig nc = StageConfigs.streams(spec, infra.kafkaBootstrapServers());
        netChangeConfig = nc;
        if (!spec.without().contains(Stage.STREAMS)) {
            streams = new NetChangeApp(nc);
            started.push(streams);
            streams.start(Duration.ofSeconds(60));
            phase("streams", t0);
        }

        if (!loaded) {
            startSink();
        }

        t0 = System.nanoTime();
        Map<String, String> cc = new LinkedHashMap<>(captureSource.connectorConfig());
        if (loaded) {
            // the tables are in the warehouse as of the slot's first position: stream from there
            cc.put("snapshot.mode", "no_data");
        }
        connectorConfig = secretsInFile(cc, work);
        ConnectRestClient rest = new ConnectRestClient(infra.connectUrl());
        String name = capture.get(CaptureConfig.CONNECTOR_NAME);
        connectRest = rest;
        DebeziumConnectorConfig.Fitted fitted =
                DebeziumConnectorConfig.fitTo(rest, name, connectorConfig);
        if (!fitted.problems().isEmpty()) {
            throw new IllegalStateException(
                    "connector config rejected: " + fitted.problems().get(0));
        }
        connectorConfig = fitted.config();
        if (infra.shared()) {
            started.push(() -> removeCapture(rest, name));
        }
        rest.put(name, connectorConfig);
        rest.awaitRunning(name, Duration.ofSeconds(60));
        captureSource.awaitStreaming(spec.streamingTimeout());
        phase("capture", t0);
        if (loaded) {
            // the stream waits in Kafka while the load runs; the sink writes after it
            initialLoadResult = load.await();
            phase("initial load", tLoad);
            startSink();
        }
        LOG.info(
                "Pipeline {} up on {} infrastructure: source {}, kafka {}, connect {}, warehouse {}",
                id,
                infra.kind().label(),
                src.jdbcUrl(),
                infra.kafkaBootstrapServers(),
                infra.connectUrl(),
                warehouseUrl());
    }

    private volatile InitialLoad.Result initialLoadResult;

    /** The initial load's rows and seconds per table; null when there was none. */
    public InitialLoad.Result initialLoad() {
        return initialLoadResult;
    }

    private void startSink() {
        long t0 = System.nanoTime();
        SinkConfig sc = StageConfigs.sink(spec, infra.kafkaBootstrapServers(), embeddedWarehouse());
        sinkConfig = sc;
        if (!spec.without().contains(Stage.SINK)) {
            sink = new WarehouseSink(sc);
            started.push(sink);
            sink.start(Duration.ofSeconds(30));
            phase("sink", t0);
        }
    }

    /**
     * On a source that outlives the pipeline: the connector, then what capture left in the source
     * (slot and publication; CDC the pipeline enabled).
     */
    private void removeCapture(ConnectRestClient rest, String connector) {
        try {
            rest.delete(connector);
        } catch (RuntimeException e) {
            LOG.warn("Could not delete connector {}: {}", connector, e.getMessage());
        }
        try {
            captureSource.removeCapture(Duration.ofSeconds(30));
        } catch (RuntimeException e) {
            LOG.warn("Could not remove capture from the source: {}", e.getMessage());
        }
    }

    private synchronized void phase(String name, long t0) {
        long ms = (System.nanoTime() - t0) / 1_000_000;
        startupMillis.put(name, ms);
        LOG.info("{} started in {} ms", name, ms);
    }

    /** How long each part of start-up took, in order, ms. */
    public synchronized Map<String, Long> startupMillis() {
        return Map.copyOf(startupMillis);
    }

    /**
     * Throws when the disk is nearly full.
     *
     * @throws dev.cdclab.orchestration.operate.DiskFullException then
     */
    public void checkDisk() {
        disk.check();
    }

    /**
     * Checks health every second on a thread of its own and calls {@code onFailure} once when a
     * part fails or the disk fills; close the returned handle to stop watching.
     */
    public AutoCloseable watch(Consumer<RuntimeException> onFailure) {
        return HealthWatch.start(this::checkHealthy, onFailure);
    }

    /**
     * Throws if a stage or service has failed or the disk is nearly full.
     *
     * @throws StageFailedException naming the stage
     */
    public void checkHealthy() {
        disk.check();
        infra.checkHealthy();
        checkCapture();
        if (streams != null) {
            streams.failure()
                    .ifPresent(
                            e -> {
                                throw new StageFailedException(
                                        "net-change app", String.valueOf(e.getMessage()), e);
                            });
        }
        if (sink != null) {
            sink.failure()
                    .ifPresent(
                            e -> {
                                throw new StageFailedException(
                                        "warehouse sink", String.valueOf(e.getMessage()), e);
                            });
        }
    }

    /**
     * Throws when the connector has failed, or when the source can no longer give what its
     * committed offsets ask for (see {@link CaptureSource#checkPosition}). A Connect cluster that
     * does not answer is not reported here: a worker restarts, and catch-up notices one that does
     * not.
     */
    private final CaptureRestarts captureRestarts = new CaptureRestarts();

    /** How many times a failed connector is restarted before the pipeline stops with it. */
    static final class CaptureRestarts {
        static final int MAX = 5;
        static final Duration WINDOW = Duration.ofMinutes(10);
        private final java.util.ArrayDeque<Long> at = new java.util.ArrayDeque<>();

        synchronized boolean allow(long nowNanos) {
            while (!at.isEmpty() && nowNanos - at.peekFirst() > WINDOW.toNanos()) {
                at.removeFirst();
            }
            if (at.size() >= MAX) {
                return false;
            }
            at.addLast(nowNanos);
            return true;
        }

        synchronized int used() {
            return at.size();
        }
    }

    private void checkCapture() {
        if (connectRest == null) {
            return;
        }
        String name = capture.get(CaptureConfig.CONNECTOR_NAME);
        List<com.fasterxml.jackson.databind.JsonNode> offsets;
        try {
            ConnectRestClient.Status status = connectRest.status(name);
            if (status.failed()) {
                String trace = status.trace() == null ? "failed" : status.trace();
                int nl = trace.indexOf('\n');
                String why = nl < 0 ? trace : trace.substring(0, nl);
                if (!captureRestarts.allow(System.nanoTime())) {
                    throw new StageFailedException("capture", why, null);
                }
                // a task dies of what passes (a broker restarting, fenced): it resumes from its
                // committed offsets, as after a worker's crash; what fails again and again stops
                LOG.warn(
                        "The connector failed ({}); restarting it ({} of {} in {})",
                        why,
                        captureRestarts.used(),
                        CaptureRestarts.MAX,
                        CaptureRestarts.WINDOW);
                connectRest.restartFailed(name);
                return;
            }
            offsets = connectRest.offsets(name);
            lastOffsets = offsets;
        } catch (dev.cdclab.capture.ConnectRestException e) {
            if (e.notFound() || closed) {
                // the connector is being removed, with its slot
                return;
            }
            // a worker down is no reason to stop looking at the slot
            LOG.debug("Connect did not answer the health check: {}", e.getMessage());
            offsets = lastOffsets;
        }
        captureSource.checkPosition(offsets);
    }

    /**
     * Waits until every transaction committed at the source before now is in the warehouse.
     *
     * @return how long it took
     * @throws dev.cdclab.orchestration.operate.CatchUpTimeoutException on timeout
     * @throws StageFailedException when a stage fails meanwhile
     */
    public Duration awaitCaughtUp(Duration timeout) {
        return awaitCaughtUp(timeout, () -> {});
    }

    /**
     * As {@link #awaitCaughtUp(Duration)}, also running {@code alsoHealthy} at each look: stages
     * this pipeline does not run (processes of their own) are checked by their owner there, so a
     * stopped one ends the wait at once.
     */
    public Duration awaitCaughtUp(Duration timeout, Runnable alsoHealthy) {
        Runnable healthy =
                () -> {
                    alsoHealthy.run();
                    checkHealthy();
                };
        if (sink == null) {
            return awaitOutsideSinks(timeout, healthy);
        }
        return CatchUp.await(
                captureSource::nowMs, () -> sink.stats().appliedThroughMs(), healthy, timeout);
    }

    /**
     * As {@link #awaitCaughtUp}, with the sinks in processes of their own: waits on the progress
     * they commit in the warehouse, read through a session of its own.
     */
    private Duration awaitOutsideSinks(Duration timeout, Runnable healthy) {
        String url = warehouseUrl();
        if (url.startsWith("jdbc:duckdb:")) {
            throw new IllegalStateException(
                    "cannot verify: the sink runs in a process of its own, and DuckDB admits one"
                            + " process (the sink) to its file; use a PostgreSQL warehouse (up"
                            + " --warehouse postgresql) to verify sinks of their own");
        }
        try (Connection c = warehouseConnection()) {
            c.setAutoCommit(true);
            return CatchUp.await(
                    captureSource::nowMs,
                    () -> {
                        try {
                            return WarehouseProgress.appliedThroughMs(c);
                        } catch (SQLException e) {
                            throw new IllegalStateException(
                                    "cannot read the warehouse's progress: " + e.getMessage(), e);
                        }
                    },
                    healthy,
                    timeout);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot reach the warehouse at " + url + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads one table of the source again while the stream goes on (Debezium's incremental
     * snapshot), then waits until the warehouse holds it: rows gone from the source leave the
     * warehouse table, which ends equal to the source table.
     *
     * @param table {@code schema.table}, or a table of the first captured schema
     * @return rows read again
     */
    public long resnapshot(String table, Duration timeout) {
        String qualified = table.contains(".") ? table : capture.schemas().get(0) + "." + table;
        long t0 = System.nanoTime();
        long rows = captureSource.resnapshot(qualified, timeout);
        Duration left = timeout.minusNanos(System.nanoTime() - t0);
        awaitCaughtUp(left.isNegative() ? Duration.ofSeconds(1) : left);
        return rows;
    }

    /** The services the stages run on. */
    public Infrastructure infrastructure() {
        return infra;
    }

    /** How the pipeline reaches its source. */
    public SourceEndpoint source() {
        return infra.source();
    }

    /** The source as capture sees it: its settings, clock, capture job report. */
    public CaptureSource captureSource() {
        return captureSource;
    }

    /**
     * Compares every table of the captured schemas with the warehouse: row count, content checksum
     * and the first differing keys.
     *
     * @throws SQLException when a database cannot be read
     */
    public VerificationResult verify() throws SQLException {
        return new WarehouseVerifier(
                        this::sourceConnection,
                        this::warehouseConnection,
                        SourceCatalog.of(infra.source().kind()))
                .capturedColumns(capture.capturedColumns())
                .verify(capture.schemas());
    }

    public NetChangeApp streams() {
        return streams;
    }

    public WarehouseSink sink() {
        return sink;
    }

    /** The sink's configuration (to run it in a process of its own). */
    public SinkConfig sinkConfig() {
        return sinkConfig;
    }

    /** The net-change app's configuration (to start more instances with the same id). */
    public NetChangeConfig netChangeConfig() {
        return netChangeConfig;
    }

    /** The capture stage's configuration. */
    public CaptureConfig captureConfig() {
        return capture;
    }

    /**
     * On a worker of our own, moves the password into a file only this user can read and puts a
     * {@code ${file:...}} reference in its place, so Connect's REST API and its config topic never
     * show it.
     */
    private Map<String, String> secretsInFile(Map<String, String> config, Path work)
            throws java.io.IOException {
        String password = config.get("database.password");
        if (!infra.connectResolvesFileSecrets() || password == null || password.isEmpty()) {
            return config;
        }
        Path dir = work.resolve("secrets");
        Files.createDirectories(dir);
        Path file = dir.resolve("source.properties");
        Files.deleteIfExists(file);
        Files.createFile(
                file,
                java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                        java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        java.util.Properties p = new java.util.Properties();
        p.setProperty("password", password);
        try (var w = Files.newBufferedWriter(file)) {
            p.store(w, "cdc-lab: the source password for the Debezium connector");
        }
        Map<String, String> m = new LinkedHashMap<>(config);
        m.put("database.password", "${file:" + file.toAbsolutePath() + ":password}");
        return m;
    }

    /**
     * The connector config as registered (the password as a {@code ${file:...}} reference on a
     * worker of our own).
     */
    public Map<String, String> connectorConfig() {
        return connectorConfig;
    }

    /** Source settings that decide durability and throughput. */
    public Map<String, String> sourceSettings() {
        return sourceSettings;
    }

    /** JDBC URL of the warehouse. */
    public String warehouseUrl() {
        return warehouseServer != null ? warehouseServer.jdbcUrl() : spec.resolvedWarehouseUrl();
    }

    /** The PostgreSQL warehouse this pipeline started, or null when it writes another one. */
    public WarehouseServer warehouseServer() {
        return warehouseServer;
    }

    private Map<String, String> embeddedWarehouse() {
        if (warehouseServer == null) {
            return Map.of();
        }
        return Map.of(
                SinkConfig.WAREHOUSE_URL.key(), warehouseServer.jdbcUrl(),
                SinkConfig.WAREHOUSE_USER.key(), warehouseServer.user(),
                SinkConfig.WAREHOUSE_PASSWORD.key(), warehouseServer.password(),
                SinkConfig.QUERY_USER.key(), WarehouseServer.READER,
                SinkConfig.QUERY_PASSWORD.key(), warehouseServer.readerPassword());
    }

    public String runId() {
        return spec.runId();
    }

    /** The names of this run's topics, slot, publication, groups and connector. */
    public RunNames names() {
        return spec.names();
    }

    /** What this pipeline is. */
    public PipelineSpec spec() {
        return spec;
    }

    /** A new connection to the source, as the pipeline's source user. */
    public Connection sourceConnection() throws SQLException {
        return infra.source().connect();
    }

    /** A warehouse read connection that works while the sink writes. */
    public Connection warehouseConnection() throws SQLException {
        if (sink != null) {
            return sink.openReader();
        }
        // the sink runs elsewhere: a PostgreSQL warehouse takes a second session
        return java.sql.DriverManager.getConnection(
                sinkConfig.get(SinkConfig.WAREHOUSE_URL),
                sinkConfig.get(SinkConfig.WAREHOUSE_USER),
                sinkConfig.password());
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

    /** Settings of a pipeline. */
    public static final class Builder {
        private InfraSpec infra = InfraSpec.embedded();
        private Path workDir = Path.of("cdc-lab-runs", "run");
        private String runId = "run";
        private String warehouseUrl;
        private boolean postgresWarehouse;
        private int partitions = 1;
        private Duration interval = Duration.ZERO;
        private Duration grace = Duration.ofMillis(100);
        private Duration heartbeat = CaptureConfig.HEARTBEAT.defaultValue();
        private long maxRowBytes = RowLimit.MAX_ROW_BYTES.defaultValue();
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
        private final java.util.EnumSet<Stage> without = java.util.EnumSet.noneOf(Stage.class);

        /** Where the services come from (default: embedded). */
        public Builder infrastructure(InfraSpec spec) {
            this.infra = spec;
            return this;
        }

        /** Directory for the source data, Kafka logs, state, warehouse and logs. */
        public Builder workDir(Path dir) {
            this.workDir = dir;
            return this;
        }

        /** Suffix of every name (slot, topics, groups, application id). */
        public Builder runId(String id) {
            this.runId = RunNames.of(id).runId();
            return this;
        }

        /** JDBC URL of the warehouse; default a DuckDB file in the work directory. */
        public Builder warehouseUrl(String url) {
            this.warehouseUrl = url;
            return this;
        }

        /**
         * Starts a PostgreSQL server of the pipeline's own in the work directory ({@code
         * warehouse-postgres/}, durable as the source) as the warehouse, and stops it with the
         * pipeline; excludes {@link #warehouseUrl(String)}.
         */
        public Builder postgresWarehouse(boolean b) {
            this.postgresWarehouse = b;
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

        /** The largest row every stage carries ({@link RowLimit#MAX_ROW_BYTES}). */
        public Builder maxRowBytes(long bytes) {
            this.maxRowBytes = RowLimit.MAX_ROW_BYTES.validate(bytes);
            return this;
        }

        public Builder guarantee(NetChangeConfig.Guarantee g) {
            this.guarantee = g;
            return this;
        }

        /** False runs a source the pipeline starts with fsync and synchronous_commit off. */
        public Builder durable(boolean d) {
            this.durable = d;
            return this;
        }

        /** Whether parts register their own JVM shutdown hooks (false when the caller has one). */
        public Builder shutdownHooks(boolean b) {
            this.shutdownHooks = b;
            return this;
        }

        /** Port of an embedded source; 0 picks a free one. */
        public Builder sourcePort(int port) {
            this.sourcePort = port;
            return this;
        }

        /** Port of an embedded broker; 0 picks a free one. */
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

        public InfraSpec infrastructure() {
            return infra;
        }

        public Path workDir() {
            return workDir;
        }

        public String runId() {
            return runId;
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

        /**
         * Stages this pipeline does not start: their configuration is still built ({@link
         * #netChangeConfig()}, {@link #sinkConfig()}) for processes of their own.
         */
        public Builder without(java.util.Collection<Stage> stages) {
            without.clear();
            without.addAll(stages);
            return this;
        }

        public java.util.Set<Stage> without() {
            return java.util.Collections.unmodifiableSet(without);
        }

        /** The specification, fixed: later changes to this builder do not reach it. */
        public PipelineSpec spec() {
            return new PipelineSpec(
                    infra,
                    workDir,
                    runId,
                    warehouseUrl,
                    postgresWarehouse,
                    partitions,
                    interval,
                    grace,
                    heartbeat,
                    maxRowBytes,
                    mode,
                    guarantee,
                    durable,
                    shutdownHooks,
                    sourcePort,
                    kafkaPort,
                    streamingTimeout,
                    minFreeDisk,
                    initializer,
                    captureOverrides,
                    streamsOverrides,
                    sinkOverrides,
                    without);
        }

        public Pipeline build() {
            return new Pipeline(spec());
        }

        /** Builds and starts. */
        public Pipeline start() {
            return build().start();
        }
    }
}
