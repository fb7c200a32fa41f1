package dev.cdclab.lab.bench;

import dev.cdclab.capture.CaptureConfig;
import dev.cdclab.capture.CaptureSource;
import dev.cdclab.capture.ConnectRestClient;
import dev.cdclab.config.Durations;
import dev.cdclab.config.OneLineError;
import dev.cdclab.config.RunNames;
import dev.cdclab.config.SourceKind;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.orchestration.infra.InfraSpec;
import dev.cdclab.orchestration.infra.Infrastructure;
import dev.cdclab.orchestration.infra.WarehouseServer;
import dev.cdclab.orchestration.operate.CatchUpTimeoutException;
import dev.cdclab.orchestration.operate.StageFailedException;
import dev.cdclab.orchestration.verify.SourceCatalog;
import dev.cdclab.orchestration.verify.VerificationResult;
import dev.cdclab.orchestration.verify.WarehouseVerifier;
import dev.cdclab.plugins.ConnectPlugins;
import dev.cdclab.wait.Poll;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline people build without cdc-lab: Debezium's PostgreSQL connector into one topic per
 * table, and Debezium's JDBC sink connector (3.5.0, in its own plugin directory) upserting every
 * change into a PostgreSQL warehouse, both in one Kafka Connect worker. Everything runs embedded,
 * like cdc-lab's default.
 */
public final class StandardPipeline implements BenchTarget {
    private static final Logger LOG = LoggerFactory.getLogger(StandardPipeline.class);
    private static final String SOURCE_CONNECTOR = "standard-source";
    private static final String SINK_CONNECTOR = "standard-jdbc-sink";

    /**
     * What to start.
     *
     * @param workDir data and logs
     * @param runId suffix of names
     * @param durable fsync and synchronous commit on the source and the warehouse
     * @param initializer creates and fills the workload's tables before capture starts
     * @param captureOverrides capture settings (the Debezium knobs both pipelines share)
     * @param tables the workload's tables (schema {@code public})
     * @param generatorColumn column holding the generator's commit time, epoch microseconds
     * @param sinkTasks the JDBC sink's {@code tasks.max}
     */
    public record Settings(
            Path workDir,
            String runId,
            boolean durable,
            Pipeline.SourceInitializer initializer,
            Map<String, String> captureOverrides,
            List<String> tables,
            String generatorColumn,
            int sinkTasks) {}

    private final Settings settings;
    private Infrastructure infra;
    private WarehouseServer warehouse;
    private CaptureConfig capture;
    private ConnectRestClient rest;
    private Map<String, String> sourceConfig;
    private Map<String, String> sinkConfig;
    private Map<String, String> sourceSettings;
    private boolean closed;

    private StandardPipeline(Settings settings) {
        this.settings = settings;
    }

    /**
     * Starts everything and waits until the warehouse holds the source's tables.
     *
     * @throws IllegalStateException when a part does not start (what started is stopped)
     */
    public static StandardPipeline start(Settings settings) {
        StandardPipeline p = new StandardPipeline(settings);
        try {
            p.startParts();
            return p;
        } catch (RuntimeException e) {
            p.close();
            throw e;
        } catch (Exception e) {
            p.close();
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    private void startParts() throws Exception {
        Path work = settings.workDir().toAbsolutePath();
        String id = settings.runId();
        infra =
                InfraSpec.embedded()
                        .start(
                                new InfraSpec.Context(
                                        work,
                                        id,
                                        settings.durable(),
                                        0,
                                        0,
                                        false,
                                        Set.of(ConnectPlugins.Plugin.JDBC_SINK)));
        warehouse =
                WarehouseServer.start(
                        work.resolve("warehouse-postgres"),
                        work.resolve("logs/warehouse-postgres.log"),
                        settings.durable());
        var src = infra.source();
        RunNames names = new RunNames(RunNames.STANDARD, id);
        String prefix = names.topicPrefix();
        capture =
                new CaptureConfig(
                        CaptureConfig.builder()
                                .set(CaptureConfig.SOURCE_KIND, SourceKind.POSTGRES)
                                .set(CaptureConfig.HOST, src.host())
                                .set(CaptureConfig.PORT, src.port())
                                .set(CaptureConfig.DATABASE, src.database())
                                .set(CaptureConfig.USER, src.user())
                                .set(CaptureConfig.PASSWORD, src.password())
                                .set(CaptureConfig.CONNECTOR_NAME, SOURCE_CONNECTOR)
                                .set(CaptureConfig.TOPIC_PREFIX, prefix)
                                .set(CaptureConfig.SLOT, names.slot())
                                .set(CaptureConfig.PUBLICATION, names.publication())
                                .set(
                                        CaptureConfig.KAFKA_BOOTSTRAP_SERVERS,
                                        infra.kafkaBootstrapServers())
                                .setAll(settings.captureOverrides())
                                .build());
        CaptureSource cs = CaptureSource.of(capture);
        cs.check();
        settings.initializer().initialize(src);
        cs.prepare();
        sourceSettings = cs.settings();
        rest = new ConnectRestClient(infra.connectUrl());
        sourceConfig = StandardPipelineConfig.source(cs.connectorConfig());
        register(SOURCE_CONNECTOR, sourceConfig);
        cs.awaitStreaming(Duration.ofMinutes(10));
        sinkConfig =
                StandardPipelineConfig.sink(
                        prefix,
                        capture.schemas(),
                        settings.sinkTasks(),
                        warehouse.jdbcUrl(),
                        warehouse.user(),
                        warehouse.password());
        register(SINK_CONNECTOR, sinkConfig);
        awaitCaughtUp(Duration.ofMinutes(10));
        LOG.info(
                "Standard pipeline {} up: source {}, warehouse {}",
                id,
                src.jdbcUrl(),
                warehouse.jdbcUrl());
    }

    private void register(String name, Map<String, String> config) {
        List<String> problems = rest.validate(name, config);
        if (!problems.isEmpty()) {
            throw new IllegalStateException(name + " config rejected: " + problems.get(0));
        }
        rest.put(name, config);
        rest.awaitRunning(name, Duration.ofSeconds(60));
    }

    @Override
    public String name() {
        return "Debezium JDBC sink -> postgresql";
    }

    @Override
    public void stopCapture() {
        rest.stopAndAwait(SOURCE_CONNECTOR, Duration.ofSeconds(60));
    }

    @Override
    public void startCapture() {
        rest.resume(SOURCE_CONNECTOR);
        rest.awaitRunning(SOURCE_CONNECTOR, Duration.ofSeconds(60));
    }

    @Override
    public Connection sourceConnection() throws SQLException {
        return infra.source().connect();
    }

    @Override
    public void checkpoint() throws SQLException {
        BenchTarget.checkpoint(sourceConnection());
        BenchTarget.checkpoint(warehouse.connect());
    }

    /**
     * Waits until every captured table of the warehouse has the source's row count and newest
     * generator commit time: the sink applies each table's topic in order, so then every change
     * committed before is in.
     */
    @Override
    public Duration awaitCaughtUp(Duration timeout) {
        long t0 = System.nanoTime();
        Poll poll = Poll.within(timeout).every(Duration.ofMillis(100));
        try (Connection src = sourceConnection();
                Connection wh = warehouse.connect()) {
            Map<String, Fingerprint> target = fingerprints(src);
            while (true) {
                checkHealthy();
                Map<String, Fingerprint> now = fingerprints(wh);
                if (now.equals(target)) {
                    return Duration.ofNanos(System.nanoTime() - t0);
                }
                if (poll.expired()) {
                    throw new CatchUpTimeoutException(
                            "warehouse did not catch up within " + Durations.format(timeout),
                            timeout,
                            -1,
                            -1);
                }
                poll.pause();
            }
        } catch (SQLException e) {
            throw new StageFailedException("catch-up check", e.getMessage(), e);
        }
    }

    /** Row count and newest generator time of a table; equal on both sides once caught up. */
    private record Fingerprint(long rows, Long newest) {}

    private Map<String, Fingerprint> fingerprints(Connection c) throws SQLException {
        Map<String, Fingerprint> m = new LinkedHashMap<>();
        for (String table : settings.tables()) {
            if (!exists(c, table)) {
                m.put(table, new Fingerprint(0, null));
                continue;
            }
            try (PreparedStatement ps =
                            c.prepareStatement(
                                    "SELECT count(*), max("
                                            + WarehouseServer.quote(settings.generatorColumn())
                                            + ") FROM public."
                                            + WarehouseServer.quote(table));
                    ResultSet rs = ps.executeQuery()) {
                rs.next();
                long newest = rs.getLong(2);
                m.put(table, new Fingerprint(rs.getLong(1), rs.wasNull() ? null : newest));
            }
        }
        return m;
    }

    private static boolean exists(Connection c, String table) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT 1 FROM information_schema.tables WHERE table_schema = 'public' AND"
                                + " table_name = ?")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    @Override
    public Histogram latency(long fromMicros, long toMicros) throws SQLException {
        return warehouse.commitLatency(
                settings.tables(), settings.generatorColumn(), fromMicros, toMicros);
    }

    @Override
    public long rowsWritten() throws SQLException {
        return warehouse.rowsWritten(settings.tables());
    }

    @Override
    public void checkHealthy() {
        infra.checkHealthy();
        for (String name : List.of(SOURCE_CONNECTOR, SINK_CONNECTOR)) {
            ConnectRestClient.Status s = rest.status(name);
            if (s.failed()) {
                throw new StageFailedException(
                        name, OneLineError.firstLine(s.trace(), "failed"), null);
            }
        }
    }

    @Override
    public VerificationResult verify() throws SQLException {
        return new WarehouseVerifier(
                        this::sourceConnection,
                        warehouse::connect,
                        SourceCatalog.of(SourceKind.POSTGRES))
                .verify(capture.schemas());
    }

    @Override
    public Map<String, Object> settings() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("source_connector", StandardPipelineConfig.masked(sourceConfig));
        m.put("sink_connector", StandardPipelineConfig.masked(sinkConfig));
        m.put("source_settings", sourceSettings);
        m.put("warehouse_settings", warehouse.settings());
        return m;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        // the worker first: its sink must not outlive the warehouse it writes
        if (infra != null) {
            infra.close();
        }
        if (warehouse != null) {
            warehouse.close();
        }
    }
}
