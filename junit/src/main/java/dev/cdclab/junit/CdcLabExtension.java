package dev.cdclab.junit;

import dev.cdclab.change.NetChangeMode;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.orchestration.infra.InfraKind;
import dev.cdclab.orchestration.infra.InfraSpec;
import dev.cdclab.orchestration.infra.SourceEndpoint;
import dev.cdclab.orchestration.logging.LogFile;
import dev.cdclab.orchestration.logging.LoggingBackend;
import dev.cdclab.orchestration.operate.CatchUpTimeoutException;
import dev.cdclab.orchestration.operate.KafkaExitGuard;
import dev.cdclab.orchestration.verify.VerificationResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.testcontainers.containers.JdbcDatabaseContainer;
import org.testcontainers.kafka.KafkaContainer;

/**
 * The whole capture-to-warehouse pipeline for a JUnit 5 test: Debezium in a Kafka Connect worker,
 * Kafka, the net-change Streams app and the warehouse sink, either all {@linkplain #embedded()
 * embedded} or {@linkplain #attach(JdbcDatabaseContainer) attached} to containers the test manages.
 *
 * <p>As a {@code @RegisterExtension static} field one pipeline serves the whole class; as an
 * instance field each test gets its own. Tables the test creates in the source's {@code public}
 * schema are captured. Each pipeline keeps its files (warehouse, logs) under {@code
 * target/cdc-lab/<id>}. cdc-lab logs through SLF4J to the test's own binding; the extension brings
 * no logging backend or configuration.
 *
 * <pre>{@code
 * @RegisterExtension
 * static CdcLabExtension lab = CdcLabExtension.embedded().interval(Duration.ofMillis(200));
 * }</pre>
 */
public final class CdcLabExtension
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
    private static final AtomicInteger COUNTER = new AtomicInteger();

    private final JdbcDatabaseContainer<?> attachedSource;
    private KafkaContainer attachedKafka;
    private Duration interval = Duration.ZERO;
    private NetChangeMode mode = NetChangeMode.ALL;
    private int partitions = 1;
    private boolean postgresWarehouse;
    private Consumer<Pipeline.Builder> customizer = b -> {};
    private Path workRoot;

    private Pipeline pipeline;
    private boolean perClass;
    private boolean startedSource;

    private CdcLabExtension(JdbcDatabaseContainer<?> source) {
        this.attachedSource = source;
    }

    /** The whole pipeline in this JVM, PostgreSQL from embedded binaries included. */
    public static CdcLabExtension embedded() {
        return new CdcLabExtension(null);
    }

    /**
     * The pipeline attached to a PostgreSQL container the test manages (typically a
     * {@code @Container static} field). Its endpoints are read when the pipeline starts, so this
     * can be called before the container starts. The server must run with {@code
     * wal_level=logical}: {@code new PostgreSQLContainer("postgres:17").withCommand("postgres",
     * "-c", "wal_level=logical")}. Kafka is the embedded broker unless {@link #withKafka} names a
     * container.
     */
    public static CdcLabExtension attach(JdbcDatabaseContainer<?> source) {
        return new CdcLabExtension(Objects.requireNonNull(source, "source"));
    }

    /** Uses a Kafka container the test manages instead of the embedded broker. */
    public CdcLabExtension withKafka(KafkaContainer kafka) {
        if (attachedSource == null) {
            throw new IllegalStateException("withKafka applies to attach(...), not embedded()");
        }
        this.attachedKafka = Objects.requireNonNull(kafka, "kafka");
        return this;
    }

    /** Net-change interval in source commit time (default 1 s; zero: one per transaction). */
    public CdcLabExtension interval(Duration interval) {
        if (interval.isNegative()) {
            throw new IllegalArgumentException("interval must be >= 0");
        }
        this.interval = interval;
        return this;
    }

    /** How changes are folded (default {@link NetChangeMode#ALL}). */
    public CdcLabExtension netChanges(NetChangeMode mode) {
        this.mode = Objects.requireNonNull(mode, "mode");
        return this;
    }

    /** Partitions of the change and net-change topics (default 1). */
    public CdcLabExtension partitions(int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1");
        }
        this.partitions = partitions;
        return this;
    }

    /**
     * Writes a PostgreSQL server of the pipeline's own (the embedded binaries, started and stopped
     * with the pipeline) instead of a DuckDB file; {@link #warehouse()} reads it the same way.
     */
    public CdcLabExtension postgresWarehouse() {
        this.postgresWarehouse = true;
        return this;
    }

    /** Any other pipeline setting, applied after the ones above. */
    public CdcLabExtension configure(Consumer<Pipeline.Builder> customizer) {
        this.customizer = Objects.requireNonNull(customizer, "customizer");
        return this;
    }

    /** Where runs keep their files (default {@code target/cdc-lab}, else a temporary one). */
    public CdcLabExtension workDirectory(Path dir) {
        this.workRoot = dir;
        return this;
    }

    private InfraSpec infraSpec() {
        if (attachedSource == null) {
            return InfraSpec.embedded();
        }
        return InfraSpec.external(
                () -> {
                    Map<String, String> images = new LinkedHashMap<>();
                    images.put("source", attachedSource.getDockerImageName());
                    if (attachedKafka != null) {
                        images.put("kafka", attachedKafka.getDockerImageName());
                    }
                    return new InfraSpec.ExternalEndpoints(
                            SourceEndpoint.of(
                                    attachedSource.getJdbcUrl(),
                                    attachedSource.getUsername(),
                                    attachedSource.getPassword()),
                            attachedKafka == null ? null : attachedKafka.getBootstrapServers(),
                            null,
                            InfraKind.CONTAINERS,
                            images);
                });
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        perClass = true;
        start(context.getRequiredTestClass().getSimpleName());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        stop();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (pipeline == null) {
            perClass = false;
            start(context.getRequiredTestClass().getSimpleName() + context.getDisplayName());
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (!perClass) {
            stop();
        }
    }

    private void start(String name) {
        // a fatal Kafka error must fail the test, not halt the JVM and leave servers behind
        KafkaExitGuard.install();
        if (attachedSource != null && !attachedSource.isRunning()) {
            attachedSource.start();
            startedSource = true;
        }
        if (attachedKafka != null && !attachedKafka.isRunning()) {
            attachedKafka.start();
        }
        String base = name.replaceAll("[^A-Za-z0-9]", "").toLowerCase(Locale.ROOT);
        String id =
                base.substring(0, Math.min(20, base.length()))
                        + COUNTER.incrementAndGet()
                        + Long.toString(System.nanoTime() % 1_000_000, 36);
        Path work = workRoot().resolve(id);
        if (LoggingBackend.isLogback()) {
            LogFile.toFileUnlessConfigured(work.resolve("logs").resolve("cdc-lab.log"));
        }
        Pipeline.Builder b =
                Pipeline.builder()
                        .infrastructure(infraSpec())
                        .workDir(work)
                        .runId(id)
                        .interval(interval)
                        .mode(mode)
                        .partitions(partitions)
                        .postgresWarehouse(postgresWarehouse)
                        .minFreeDisk(256L * 1024 * 1024);
        customizer.accept(b);
        pipeline = b.start();
    }

    private Path workRoot() {
        if (workRoot != null) {
            return workRoot;
        }
        try {
            Path target = Path.of("target");
            return Files.isDirectory(target)
                    ? Files.createDirectories(target.resolve("cdc-lab"))
                    : Files.createTempDirectory("cdc-lab");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void stop() {
        try {
            if (pipeline != null) {
                pipeline.close();
            }
        } finally {
            pipeline = null;
            if (startedSource) {
                attachedSource.stop();
                startedSource = false;
            }
        }
    }

    /** The running pipeline, for what this class does not expose. */
    public Pipeline pipeline() {
        if (pipeline == null) {
            throw new IllegalStateException(
                    "the pipeline is not running: register the extension with @RegisterExtension"
                            + " and use it inside a test");
        }
        return pipeline;
    }

    /** The source database, as the user capture connects as. */
    public DataSource source() {
        Pipeline p = pipeline();
        return new ConnectionSource(p::sourceConnection, p.source().jdbcUrl());
    }

    /**
     * The warehouse, readable while the pipeline writes it. Tables keep their source schema ({@code
     * public.orders}); unqualified names find {@code public} first, as at the source.
     */
    public DataSource warehouse() {
        Pipeline p = pipeline();
        return new ConnectionSource(
                () -> {
                    Connection c = p.warehouseConnection();
                    if (p.warehouseUrl().startsWith("jdbc:duckdb:")) {
                        try (Statement s = c.createStatement()) {
                            s.execute("SET search_path = 'public,main'");
                        } catch (SQLException e) {
                            // no table has arrived yet, so there is no public schema to search
                        }
                    }
                    return c;
                },
                p.warehouseUrl());
    }

    /**
     * Returns once every source transaction committed before the call is in the warehouse.
     *
     * @return how long it took
     * @throws AssertionError when it takes longer than {@code timeout}, saying how far behind the
     *     warehouse is
     */
    public Duration awaitCaughtUp(Duration timeout) {
        Pipeline p = pipeline();
        try {
            return p.awaitCaughtUp(timeout);
        } catch (CatchUpTimeoutException e) {
            throw new AssertionError(
                    e.getMessage()
                            + "; captured "
                            + capturedChanges()
                            + " changes, applied "
                            + appliedChanges()
                            + ", "
                            + p.sink().stats().held()
                            + " waiting for their interval to close",
                    e);
        }
    }

    /**
     * Compares every table of the source's {@code public} schema with the warehouse: row count,
     * content checksum and the first differing keys.
     */
    /**
     * Reads one source table again while the pipeline runs (Debezium's incremental snapshot) and
     * returns once the warehouse holds it: its rows equal the source's, rows gone from the source
     * included.
     *
     * @param table {@code schema.table}, or a table of {@code public}
     * @return rows read again
     */
    public long resnapshot(String table, Duration timeout) {
        return pipeline().resnapshot(table, timeout);
    }

    public VerificationResult verify() {
        Pipeline p = pipeline();
        try {
            return p.verify();
        } catch (SQLException e) {
            throw new IllegalStateException("verification could not read: " + e.getMessage(), e);
        }
    }

    /** Commit-to-warehouse latency of the changes applied so far. */
    public LatencySnapshot latency() {
        Histogram h = pipeline().sink().latency().endToEnd();
        return new LatencySnapshot(
                h.getTotalCount(),
                h.getValueAtPercentile(50),
                h.getValueAtPercentile(99),
                h.getMaxValue());
    }

    /** Raw changes the net-change app has read from the change topic (snapshot rows included). */
    public long capturedChanges() {
        return pipeline().streams().stats().rawChanges();
    }

    /** Net changes applied to the warehouse. */
    public long appliedChanges() {
        return pipeline().sink().stats().netChanges();
    }
}
