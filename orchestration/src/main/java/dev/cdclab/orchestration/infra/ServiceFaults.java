package dev.cdclab.orchestration.infra;

/**
 * Faults an infrastructure can inject into the services it runs, for {@code cdc-lab chaos}: each is
 * what an operator or a crash does to a real deployment.
 */
public interface ServiceFaults {
    /** {@code kill -9} of the Kafka Connect worker: no offset flush, no task stop. */
    void killConnect();

    /** Starts the killed worker again on the same REST port; returns when it answers. */
    void startConnect();

    /** Stops the Kafka broker (its logs stay). */
    void stopKafka();

    /** Starts the stopped broker again on the same port. */
    void resumeKafka();

    /** Restarts the source database with a fast shutdown: sessions and walsenders terminated. */
    void restartSource();
}
