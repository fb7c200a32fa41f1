package dev.cdclab.lab.bench;

import java.util.regex.Pattern;

/**
 * What a thread of the pipeline's JVM works for, told by its name: a stage of the pipeline, the
 * embedded broker, or the JVM's own JIT compiler and garbage collector.
 */
public enum ThreadRole {
    LOAD("load generator"),
    CAPTURE("capture"),
    BROKER("Kafka broker"),
    STREAMS("Streams"),
    SINK("sink"),
    JIT("JIT compiler"),
    GC("GC"),
    OTHER("other");

    private static final Pattern BROKER_THREAD =
            Pattern.compile(
                    "(data-plane-kafka|group-coordinator|kafka-\\d+-raft|kafka-\\d+-metadata"
                            + "|quorum-controller|broker-\\d+-|controller-\\d+-|ExpirationReaper"
                            + "|kafka-scheduler|kafka-log-cleaner|executor-|transaction-log-manager"
                            + "|TxnMarkerSender|AddPartitionsToTxn).*");

    private static final Pattern CAPTURE_THREAD =
            Pattern.compile(
                    "(debezium-|task-thread-|connector-thread-|DistributedHerder|KafkaBasedLog"
                            + "|StartAndStopExecutor|SourceTaskOffsetCommitter).*"
                            + "|.*(connector-producer-|connector-adminclient-|cdclab-connect-).*");

    private final String label;

    ThreadRole(String label) {
        this.label = label;
    }

    /** How the report names the role. */
    public String label() {
        return label;
    }

    /**
     * The role of a thread by its full name: Java threads' names as the stages give them (the load
     * generator's {@code load-N}, Kafka Streams' {@code <app>-StreamThread-N}, {@code
     * warehouse-sink}), Kafka's and Debezium's own, and the JVM's threads by their names in {@code
     * /proc} ({@code C2 CompilerThre}, {@code GC Thread#0}, {@code G1 Refine#0}).
     */
    public static ThreadRole of(String name) {
        if (name.startsWith("load-")) {
            return LOAD;
        }
        if (name.contains("-StreamThread-")
                || name.contains("-StateUpdater-")
                || name.endsWith("-CleanupThread")) {
            return STREAMS;
        }
        if (name.contains("warehouse-sink") || name.startsWith("cdc-lab-duckdb")) {
            return SINK;
        }
        if (CAPTURE_THREAD.matcher(name).matches()) {
            return CAPTURE;
        }
        if (BROKER_THREAD.matcher(name).matches()) {
            return BROKER;
        }
        if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
            return JIT;
        }
        if (name.startsWith("GC Thread") || name.startsWith("G1 ")) {
            return GC;
        }
        return OTHER;
    }
}
