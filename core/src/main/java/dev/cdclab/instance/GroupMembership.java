package dev.cdclab.instance;

import static dev.cdclab.config.ConfigOption.durationOption;

import dev.cdclab.config.ConfigOption;
import java.time.Duration;
import java.util.Map;

/** How the stages' consumers keep their group membership: one setting, declared once. */
public final class GroupMembership {
    /** The group's session timeout; the Streams app and the sink each declare it as theirs. */
    public static final ConfigOption<Duration> SESSION_TIMEOUT =
            durationOption("session.timeout")
                    .defaultValue(Duration.ofSeconds(6))
                    .check(
                            d -> d.toMillis() >= 1000 && d.toMillis() <= Integer.MAX_VALUE,
                            "must be between 1s and 24d")
                    .description(
                            "How long the consumer group waits for a member that stopped"
                                    + " heartbeating (a killed process) before it hands that"
                                    + " member's partitions to the others. Heartbeats go every"
                                    + " 500 ms (a third of it, if shorter): a member learns of a"
                                    + " rebalance from its next heartbeat, and a restarted"
                                    + " instance rejoining starts one. An instance restarted on"
                                    + " the same machine"
                                    + " takes its partitions back at once (static membership)."
                                    + " Brokers admit 6s to 30min by default"
                                    + " (group.min/max.session.timeout.ms).")
                    .build();

    /**
     * The longest heartbeat interval: the other members of a group wait up to one before they
     * rejoin a rebalance, which a restarted instance starts when it takes its slot back.
     */
    private static final int MAX_HEARTBEAT_MS = 500;

    private GroupMembership() {}

    /** Kafka consumer settings for {@code sessionTimeout}: the timeout and its heartbeat. */
    public static Map<String, Object> consumerSettings(Duration sessionTimeout) {
        int ms = (int) sessionTimeout.toMillis();
        return Map.of(
                "session.timeout.ms",
                ms,
                "heartbeat.interval.ms",
                Math.max(1, Math.min(ms / 3, MAX_HEARTBEAT_MS)));
    }
}
