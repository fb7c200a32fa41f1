package dev.cdclab.chaos.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cdclab.chaos.StageProcess;
import dev.cdclab.chaos.fuzz.FuzzRunner.Warehouse;
import dev.cdclab.embedded.LoopbackPorts;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.orchestration.admin.AdminToken;
import dev.cdclab.orchestration.infra.ChildJvm;
import dev.cdclab.orchestration.infra.InfraSpec;
import dev.cdclab.orchestration.infra.ServiceFaults;
import dev.cdclab.orchestration.infra.WarehouseServer;
import dev.cdclab.orchestration.operate.CatchUp;
import dev.cdclab.orchestration.verify.VerificationResult;
import dev.cdclab.sink.SinkConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline the fuzzer writes to: an embedded source, Kafka and a Connect worker in a process of
 * its own, the net-change app and the sinks each in a JVM of its own (so that each can be killed),
 * and a DuckDB or PostgreSQL warehouse. A DuckDB file admits one process, the sink's: the fuzzer
 * asks the sink how far it has applied, and stops it to read the warehouse.
 */
final class FuzzPipeline implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FuzzPipeline.class);
    private static final Duration STAGE_START = Duration.ofSeconds(120);

    private final Path work;
    private final String stageMain;
    private final Warehouse kind;
    private final List<AutoCloseable> started = new ArrayList<>();
    private final List<ChildJvm> streams = new ArrayList<>();
    private final List<ChildJvm> sinks = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();
    private WarehouseServer warehouse;
    private Pipeline pipeline;
    private int sinkAdminPort;

    /** The token the sink process's admin endpoint takes, given it in its environment. */
    private final AdminToken sinkToken = AdminToken.generate();

    private FuzzPipeline(Path work, String stageMain, Warehouse kind) {
        this.work = work;
        this.stageMain = stageMain;
        this.kind = kind;
    }

    /**
     * Starts it all, with {@code beforeCapture} run on the source first (the schema and rows the
     * initial snapshot reads), and waits until the stages run.
     *
     * @param instances Streams processes and sinks (a PostgreSQL warehouse takes several)
     */
    static FuzzPipeline start(
            Path work,
            String runId,
            String stageMain,
            Warehouse kind,
            int partitions,
            int instances,
            Duration interval,
            Pipeline.SourceInitializer beforeCapture) {
        FuzzPipeline p = new FuzzPipeline(work, stageMain, kind);
        // Ctrl-C or SIGTERM stops the stage processes and servers too, not only this JVM
        Runtime.getRuntime().addShutdownHook(p.shutdownHook);
        try {
            p.startAll(runId, partitions, instances, interval, beforeCapture);
        } catch (RuntimeException e) {
            p.close();
            throw e;
        }
        return p;
    }

    private void startAll(
            String runId,
            int partitions,
            int instances,
            Duration interval,
            Pipeline.SourceInitializer beforeCapture) {
        Pipeline.Builder b =
                Pipeline.builder()
                        .infrastructure(InfraSpec.embeddedForFaults(1))
                        .workDir(work)
                        .runId(runId)
                        .shutdownHooks(false)
                        .interval(interval)
                        .partitions(partitions)
                        .without(List.of(Pipeline.Stage.STREAMS, Pipeline.Stage.SINK))
                        .beforeCapture(beforeCapture);
        if (kind == Warehouse.POSTGRESQL) {
            warehouse =
                    WarehouseServer.start(
                            work.resolve("warehouse"), work.resolve("logs/warehouse.log"), true);
            started.add(warehouse);
            b.warehouseUrl(warehouse.jdbcUrl())
                    .sink(SinkConfig.WAREHOUSE_USER.key(), warehouse.user())
                    .sink(SinkConfig.WAREHOUSE_PASSWORD.key(), warehouse.password());
        }
        pipeline = b.build();
        started.add(pipeline);
        pipeline.start();
        int n = kind == Warehouse.POSTGRESQL ? instances : 1;
        for (int i = 0; i < n; i++) {
            ChildJvm s =
                    StageProcess.of(
                            i == 0 ? "streams" : "streams-" + (i + 1),
                            "streams",
                            stageMain,
                            work,
                            pipeline.netChangeConfig().raw().toProperties(),
                            List.of(),
                            Map.of(),
                            List.of());
            started.add(s);
            streams.add(s.start());
        }
        // a sink refuses to start before the net-change app has created its topic
        dev.cdclab.orchestration.infra.Topics.awaitExists(
                pipeline.infrastructure().kafkaBootstrapServers(),
                pipeline.sinkConfig().get(SinkConfig.TOPIC),
                java.time.Duration.ofSeconds(60));
        for (int i = 0; i < n; i++) {
            sinks.add(sink(i));
            startSink(i);
        }
    }

    private ChildJvm sink(int i) {
        List<String> extra = new ArrayList<>();
        if (kind == Warehouse.DUCKDB) {
            sinkAdminPort = LoopbackPorts.free();
            extra.addAll(List.of("--admin-port", Integer.toString(sinkAdminPort)));
        }
        ChildJvm s =
                StageProcess.of(
                        i == 0 ? "sink" : "sink-" + (i + 1),
                        "sink",
                        stageMain,
                        work,
                        pipeline.sinkConfig().raw().toProperties(),
                        extra,
                        warehouse == null
                                ? Map.of(AdminToken.ENV, sinkToken.reveal())
                                : Map.of(
                                        "CDCLAB_WAREHOUSE_PASSWORD",
                                        warehouse.password(),
                                        AdminToken.ENV,
                                        sinkToken.reveal()),
                        List.of());
        started.add(s);
        return s;
    }

    private void startSink(int i) {
        sinks.get(i).start();
    }

    Pipeline pipeline() {
        return pipeline;
    }

    Warehouse kind() {
        return kind;
    }

    Connection source() throws SQLException {
        return pipeline.source().connect();
    }

    /** A connection to the warehouse; for DuckDB only while the sink is stopped. */
    Connection warehouse() throws SQLException {
        if (warehouse != null) {
            return warehouse.connect();
        }
        return DriverManager.getConnection(pipeline.warehouseUrl());
    }

    /** Runs statements on the source in one transaction of their own. */
    void sourceSql(List<String> statements) throws SQLException {
        try (Connection c = source();
                Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            for (String sql : statements) {
                s.execute(sql);
            }
            c.commit();
        }
    }

    /**
     * Waits until every transaction the source committed before now is in the warehouse.
     *
     * @return how long it took
     */
    Duration awaitCaughtUp(Duration timeout) {
        checkChildren();
        if (kind == Warehouse.POSTGRESQL) {
            return pipeline.awaitCaughtUp(timeout, this::checkChildren);
        }
        return CatchUp.await(
                pipeline.captureSource()::nowMs,
                this::sinkAppliedThroughMs,
                () -> {
                    checkChildren();
                    pipeline.checkHealthy();
                },
                timeout);
    }

    /** Fails at once when a stage's process stopped that no fault stopped. */
    private void checkChildren() {
        for (ChildJvm c : children()) {
            if (!c.alive()) {
                throw new IllegalStateException(
                        c.name() + " stopped (exit " + c.exitCode() + "; see " + c.logFile() + ")");
            }
        }
    }

    /** How far the sink process says it has applied; {@link Long#MIN_VALUE} while it cannot say. */
    private long sinkAppliedThroughMs() {
        try {
            HttpResponse<String> r =
                    http.send(
                            HttpRequest.newBuilder(
                                            URI.create(
                                                    "http://127.0.0.1:"
                                                            + sinkAdminPort
                                                            + "/status"))
                                    .header(AdminToken.HEADER, sinkToken.bearer())
                                    .timeout(Duration.ofSeconds(5))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                return Long.MIN_VALUE;
            }
            JsonNode n = json.readTree(r.body()).get("applied_through_ms");
            return n == null || !n.canConvertToLong() ? Long.MIN_VALUE : n.asLong();
        } catch (IOException e) {
            return Long.MIN_VALUE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Runs {@code check} with the warehouse readable: for DuckDB, the sink is stopped (SIGTERM) for
     * it and started again after.
     */
    <T> T withWarehouse(Check<T> check) throws SQLException {
        if (kind == Warehouse.POSTGRESQL) {
            return check.run();
        }
        sinks.get(0).stop();
        try {
            return check.run();
        } finally {
            startSink(0);
        }
    }

    /** A check that reads the warehouse. */
    @FunctionalInterface
    interface Check<T> {
        T run() throws SQLException;
    }

    /** {@code verify}: every captured table of the source against the warehouse. */
    VerificationResult verify() throws SQLException {
        return pipeline.verify();
    }

    // ---- faults -----------------------------------------------------------------------------

    /** The faults the fuzzer injects. */
    enum Fault {
        KILL_SINK,
        KILL_STREAMS,
        KILL_CONNECT,
        RESTART_KAFKA
    }

    /** Injects {@code fault} and brings the part back. */
    void inject(Fault fault, java.util.Random r) {
        switch (fault) {
            case KILL_SINK -> {
                int i = r.nextInt(sinks.size());
                sinks.get(i).kill();
                pause(r.nextInt(1500));
                startSink(i);
            }
            case KILL_STREAMS -> {
                ChildJvm s = streams.get(r.nextInt(streams.size()));
                s.kill();
                pause(r.nextInt(1500));
                s.start();
            }
            case KILL_CONNECT -> {
                services().killConnect();
                pause(r.nextInt(1500));
                services().startConnect();
            }
            case RESTART_KAFKA -> {
                services().stopKafka();
                pause(500 + r.nextInt(1500));
                services().resumeKafka();
            }
        }
        LOG.info("fault injected: {}", fault);
    }

    private ServiceFaults services() {
        return pipeline.infrastructure()
                .faults()
                .orElseThrow(() -> new IllegalStateException("no fault injection here"));
    }

    private static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private List<ChildJvm> children() {
        List<ChildJvm> all = new ArrayList<>(streams);
        all.addAll(sinks);
        return all;
    }

    /** Where the stages' logs are. */
    Path logs() {
        return work.resolve("logs");
    }

    private final Thread shutdownHook = new Thread(this::close, "fuzz-shutdown");
    private boolean closed;

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is what runs this
        }
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                LOG.warn("Stopping {}: {}", started.get(i), e.getMessage());
            }
        }
    }
}
