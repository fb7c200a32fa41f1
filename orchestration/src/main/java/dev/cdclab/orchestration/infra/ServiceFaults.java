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

    /** Stops every Kafka node (their logs stay). */
    void stopKafka();

    /** Starts every stopped Kafka node again on its port. */
    void resumeKafka();

    /**
     * Stops Kafka node {@code id} (counted from 1; its log stays) while the others go on: the
     * partitions it led move to other in-sync replicas.
     */
    void stopKafkaNode(int id);

    /**
     * Kills Kafka node {@code id} (counted from 1) as {@code kill -9} does: no controlled shutdown,
     * so its partitions move only when the controller sees its session expire. {@link #resumeKafka}
     * starts it again.
     */
    void killKafkaNode(int id);

    /** The Kafka node (counted from 1) that leads {@code partition} of {@code topic}. */
    int kafkaLeader(String topic, int partition);

    /** Restarts the source database with a fast shutdown: sessions and walsenders terminated. */
    void restartSource();
}
