package dev.cdclab.orchestration.infra;

/** A running source database on its own, without Kafka or Connect (capture-off baselines). */
public interface SourceService extends AutoCloseable {
    /** How to reach it. */
    SourceEndpoint endpoint();

    /** Stops it if this process started it. Idempotent. */
    @Override
    void close();
}
