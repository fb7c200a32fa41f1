package dev.cdclab.lab.bench;

import dev.cdclab.capture.ConnectRestClient;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.orchestration.infra.WarehouseServer;
import dev.cdclab.orchestration.verify.VerificationResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * cdc-lab's own pipeline as a bench target. With a {@link WarehouseServer} its latency and row
 * writes are read from the warehouse, as for the standard pipeline; otherwise from its sink.
 */
public final class PipelineTarget implements BenchTarget {
    private final String name;
    private final Pipeline pipeline;
    private final WarehouseServer warehouse;
    private final List<String> tables;
    private final String generatorColumn;
    private final Map<String, Object> settings;
    private boolean closed;

    /**
     * @param pipeline a started pipeline whose warehouse has caught up
     * @param warehouse the PostgreSQL warehouse it writes, or null (latency from the sink)
     * @param tables the workload's tables
     */
    public PipelineTarget(
            String name,
            Pipeline pipeline,
            WarehouseServer warehouse,
            List<String> tables,
            String generatorColumn,
            Map<String, Object> settings) {
        this.name = name;
        this.pipeline = pipeline;
        this.warehouse = warehouse;
        this.tables = List.copyOf(tables);
        this.generatorColumn = generatorColumn;
        this.settings = new LinkedHashMap<>(settings);
    }

    @Override
    public String name() {
        return name;
    }

    public Pipeline pipeline() {
        return pipeline;
    }

    @Override
    public Connection sourceConnection() throws SQLException {
        return pipeline.sourceConnection();
    }

    @Override
    public void beforeStep() {
        pipeline.sink().latency().reset();
    }

    @Override
    public void checkpoint() throws SQLException {
        BenchTarget.checkpoint(sourceConnection());
        if (warehouse != null) {
            BenchTarget.checkpoint(warehouse.connect());
        }
    }

    @Override
    public Duration awaitCaughtUp(Duration timeout) {
        return pipeline.awaitCaughtUp(timeout);
    }

    @Override
    public Histogram latency(long fromMicros, long toMicros) throws SQLException {
        if (warehouse == null) {
            return pipeline.sink().latency().endToEnd();
        }
        return warehouse.commitLatency(tables, generatorColumn, fromMicros, toMicros);
    }

    @Override
    public Histogram pipelineLatency() {
        return pipeline.sink().latency().endToEnd();
    }

    @Override
    public long rowsWritten() throws SQLException {
        if (warehouse == null) {
            return pipeline.sink().stats().rowsWritten();
        }
        return warehouse.rowsWritten(tables);
    }

    @Override
    public void checkHealthy() {
        pipeline.checkHealthy();
    }

    @Override
    public void stopCapture() {
        connect().stopAndAwait(pipeline.names().connectorName(), Duration.ofSeconds(60));
    }

    @Override
    public void startCapture() {
        ConnectRestClient rest = connect();
        rest.resume(pipeline.names().connectorName());
        rest.awaitRunning(pipeline.names().connectorName(), Duration.ofSeconds(60));
    }

    private ConnectRestClient connect() {
        return new ConnectRestClient(pipeline.infrastructure().connectUrl());
    }

    @Override
    public VerificationResult verify() throws SQLException {
        return pipeline.verify();
    }

    @Override
    public Map<String, Object> settings() {
        return settings;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            pipeline.close();
        } finally {
            if (warehouse != null) {
                warehouse.close();
            }
        }
    }
}
