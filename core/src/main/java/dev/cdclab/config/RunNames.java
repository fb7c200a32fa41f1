package dev.cdclab.config;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Every name a run gives away: its topics, replication slot, publication, consumer groups, Kafka
 * Streams application id, Connect group and connector. One place derives them from the run id, so
 * the stages, the tools that deploy them and the tests agree without spelling them out.
 *
 * <p>A stage run on its own reads only its part (a topic prefix, a topic); the static rules here
 * ({@link #changeTopic(String)}, {@link #deadLetterTopic(String)}) are the same ones the run uses.
 */
public record RunNames(String family, String runId) {
    private static final Pattern RUN_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,62}");

    /** What every name of a cdc-lab pipeline starts with. */
    public static final String CDCLAB = "cdclab";

    /** What every name of the standard pipeline bench compares against starts with. */
    public static final String STANDARD = "standard";

    /**
     * @param family what every name starts with ({@link #CDCLAB}, {@link #STANDARD})
     * @param runId what sets this run's names apart from every other's
     */
    public RunNames {
        Objects.requireNonNull(family, "family");
        Objects.requireNonNull(runId, "runId");
        if (!RUN_ID.matcher(runId).matches()) {
            throw new IllegalArgumentException(
                    "run id '"
                            + runId
                            + "' must be 1-63 letters, digits, '-' or '_', starting with a letter"
                            + " or digit (it names topics, a replication slot and groups)");
        }
    }

    /** The names of cdc-lab run {@code runId}. */
    public static RunNames of(String runId) {
        return new RunNames(CDCLAB, runId);
    }

    /** Debezium's {@code topic.prefix}, and the start of every topic of the run. */
    public String topicPrefix() {
        return family + "-" + runId;
    }

    /** The topic every captured table is routed to. */
    public String changeTopic() {
        return changeTopic(topicPrefix());
    }

    /** The topic the net changes of every table go to. */
    public String netChangeTopic() {
        return topicPrefix() + ".net-changes";
    }

    /** Debezium's heartbeat topic, which the table router does not rename. */
    public String heartbeatTopic() {
        return "__debezium-heartbeat." + topicPrefix();
    }

    /** The Kafka Connect connector that captures the source. */
    public String connectorName() {
        return family + "-source-" + runId;
    }

    /** The Connect worker group of a worker started for the run; its topics are named after it. */
    public String connectGroup() {
        return family + "-connect-" + runId;
    }

    /** The logical replication slot (PostgreSQL: lower case, no '-'). */
    public String slot() {
        return sqlName();
    }

    /** The publication of the captured tables. */
    public String publication() {
        return sqlName();
    }

    /** The Kafka Streams application id; its internal topics start with it and a '-'. */
    public String streamsApplicationId() {
        return family + "-net-changes-" + runId;
    }

    /** The warehouse sink's consumer group. */
    public String sinkGroupId() {
        return family + "-warehouse-sink-" + runId;
    }

    /** Dead letters of the net-change stage. */
    public String streamsDeadLetterTopic() {
        return deadLetterTopic(changeTopic());
    }

    /** Dead letters of the warehouse sink. */
    public String sinkDeadLetterTopic() {
        return deadLetterTopic(netChangeTopic());
    }

    private String sqlName() {
        return (family + "_" + runId.replace('-', '_')).toLowerCase(Locale.ROOT);
    }

    /** The topic every captured table is routed to, for Debezium's {@code topicPrefix}. */
    public static String changeTopic(String topicPrefix) {
        return topicPrefix + ".changes";
    }

    /**
     * Where the connector reports its snapshots' progress (Debezium's notifications), for
     * Debezium's {@code topicPrefix}: outside the router's pattern (no schema part).
     */
    public static String notificationTopic(String topicPrefix) {
        return topicPrefix + ".notifications";
    }

    /** Where a stage puts the records of {@code inputTopic} it cannot read. */
    public static String deadLetterTopic(String inputTopic) {
        return inputTopic + "-dead-letters";
    }
}
