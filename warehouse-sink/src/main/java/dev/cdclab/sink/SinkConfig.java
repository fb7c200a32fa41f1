package dev.cdclab.sink;

import static dev.cdclab.config.ConfigOption.durationOption;
import static dev.cdclab.config.ConfigOption.enumOption;
import static dev.cdclab.config.ConfigOption.intOption;
import static dev.cdclab.config.ConfigOption.longOption;
import static dev.cdclab.config.ConfigOption.stringOption;

import dev.cdclab.config.ConfigOption;
import dev.cdclab.config.Configuration;
import dev.cdclab.config.RunNames;
import dev.cdclab.instance.GroupMembership;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Options of the warehouse sink; keys under {@code kafka.} go to its Kafka consumer as-is. */
public final class SinkConfig {
    /** Prefix of keys passed unchanged to the Kafka consumer. */
    public static final String KAFKA_PREFIX = "kafka.";

    public static final ConfigOption<String> BOOTSTRAP_SERVERS =
            stringOption("bootstrap.servers")
                    .required()
                    .description("Kafka bootstrap servers, host:port[,host:port...].")
                    .build();
    public static final ConfigOption<String> GROUP_ID =
            stringOption("group.id")
                    .defaultValue("cdclab-warehouse-sink")
                    .description(
                            "Consumer group; sink instances in one group share the partitions"
                                    + " (needs a warehouse that takes concurrent writers).")
                    .build();
    public static final ConfigOption<String> GROUP_INSTANCE_ID =
            stringOption("group.instance.id")
                    .description(
                            "Static group membership: this instance's id in the group, the same"
                                    + " when it restarts, so that it takes its partitions back at"
                                    + " once. Unset, the sink is a dynamic member; the sink"
                                    + " command sets one per machine, directory and running"
                                    + " instance.")
                    .build();
    public static final ConfigOption<Duration> SESSION_TIMEOUT = GroupMembership.SESSION_TIMEOUT;
    public static final ConfigOption<String> TOPIC =
            stringOption("net.changes.topic")
                    .defaultValue("cdclab.net-changes")
                    .description("Topic of net changes and interval markers.")
                    .build();
    public static final ConfigOption<String> WAREHOUSE_URL =
            stringOption("warehouse.url")
                    .defaultValue("jdbc:duckdb:warehouse.duckdb")
                    .check(
                            s -> s.startsWith("jdbc:duckdb:") || s.startsWith("jdbc:postgresql:"),
                            "must be a jdbc:duckdb: or jdbc:postgresql: URL")
                    .description(
                            "JDBC URL of the warehouse (DuckDB file or PostgreSQL database). DuckDB"
                                    + " runs one thread unless the URL sets more (;threads=N),"
                                    + " and is checkpointed beside the writer once its log holds"
                                    + " three quarters of checkpoint_threshold"
                                    + " (;checkpoint_threshold=SIZE, 48MiB by default);"
                                    + " its checkpoints leave dictionary encoding out unless the"
                                    + " URL names the methods to leave out"
                                    + " (;disabled_compression_methods=LIST).")
                    .build();
    public static final ConfigOption<String> WAREHOUSE_USER =
            stringOption("warehouse.user")
                    .description("Warehouse user, for PostgreSQL warehouses.")
                    .build();
    public static final ConfigOption<String> WAREHOUSE_PASSWORD =
            stringOption("warehouse.password")
                    .secret()
                    .description(
                            "Warehouse password; prefer the CDCLAB_WAREHOUSE_PASSWORD environment"
                                    + " variable.")
                    .build();
    public static final ConfigOption<String> QUERY_USER =
            stringOption("query.user")
                    .description(
                            "PostgreSQL warehouses: the role the admin endpoint's read-only SQL"
                                    + " (/query, cdc-lab sql) connects as; one without write"
                                    + " grants. cdc-lab creates one in a warehouse it starts;"
                                    + " default the warehouse user, in read-only transactions.")
                    .build();
    public static final ConfigOption<String> QUERY_PASSWORD =
            stringOption("query.password")
                    .secret()
                    .description(
                            "Password of query.user; prefer the CDCLAB_QUERY_PASSWORD environment"
                                    + " variable.")
                    .build();
    public static final ConfigOption<Integer> MAX_POLL_RECORDS =
            intOption("max.poll.records")
                    .defaultValue(5000)
                    .check(n -> n >= 1, "must be >= 1")
                    .description("Records fetched per poll.")
                    .build();
    public static final ConfigOption<Duration> POLL_TIMEOUT =
            durationOption("poll.timeout")
                    .defaultValue(Duration.ofMillis(50))
                    .check(d -> d.toMillis() >= 1, "must be >= 1ms")
                    .description("How long one poll waits for records.")
                    .build();
    public static final ConfigOption<Duration> OFFSET_COMMIT_INTERVAL =
            durationOption("offset.commit.interval")
                    .defaultValue(Duration.ofSeconds(1))
                    .check(d -> !d.isNegative(), "must be >= 0")
                    .description(
                            "How often the sink commits its Kafka offsets while changes flow; 0"
                                    + " commits after every warehouse transaction. The rows'"
                                    + " log positions make a replay from an older offset"
                                    + " harmless, so a longer interval only means more to read"
                                    + " again after a crash; offsets are also committed when"
                                    + " partitions are revoked and when the sink stops.")
                    .build();
    public static final ConfigOption<Long> BUFFER_BYTES =
            longOption("interval.buffer.bytes")
                    .defaultValue(32L * 1024 * 1024)
                    .check(n -> n >= 0, "must be >= 0")
                    .description(
                            "Bytes of net-change records held in memory until their interval is"
                                    + " closed everywhere. Past it, the earliest interval's"
                                    + " changes are written ahead into an open warehouse"
                                    + " transaction once every partition has been read through"
                                    + " that interval (until then only the partitions behind are"
                                    + " read), and it commits (offsets after it) once that"
                                    + " interval closes: a huge transaction streams through in"
                                    + " bounded memory and still appears at once.")
                    .build();

    public static final ConfigOption<ErrorTolerance> ERRORS_TOLERANCE =
            enumOption("errors.tolerance", ErrorTolerance.class)
                    .defaultValue(ErrorTolerance.ALL)
                    .description(
                            "A net-change record the sink cannot read: all (default) sends it to"
                                    + " the dead-letter topic with its reason, counts it and goes on;"
                                    + " none stops the sink. Either way its offset is committed"
                                    + " only after the dead letter is acknowledged.")
                    .build();
    public static final ConfigOption<String> DEAD_LETTER_TOPIC =
            stringOption("errors.deadletterqueue.topic.name")
                    .description(
                            "Dead-letter topic for unreadable net-change records (default: the"
                                    + " net-change topic's name + \"-dead-letters\"); created"
                                    + " when first needed.")
                    .build();

    public static final ConfigOption<TruncateHandling> TRUNCATE =
            enumOption("truncate", TruncateHandling.class)
                    .defaultValue(TruncateHandling.PROPAGATE)
                    .description(
                            "A TRUNCATE at the source: propagate (default) empties the warehouse"
                                    + " table as of the truncate's log position, in its interval's"
                                    + " transaction, and applies the changes after it; skip leaves"
                                    + " the warehouse table as it is and marks it diverged (verify"
                                    + " and the report say so); stop stops the sink before that"
                                    + " interval, with nothing of it applied.")
                    .build();

    public static final ConfigOption<Duration> TOMBSTONE_RETENTION =
            durationOption("tombstone.retention")
                    .defaultValue(Duration.ofHours(1))
                    .check(d -> !d.isNegative(), "must be >= 0")
                    .description(
                            "How long (in source commit time, behind the newest change applied)"
                                    + " the warehouse keeps the position of each deleted key, so"
                                    + " that a replayed older change cannot bring the row back."
                                    + " Replays reach back as far as the capture's last flushed"
                                    + " offset (Kafka Connect's offset.flush.interval.ms) and the"
                                    + " Streams app's last commit; older tombstones are removed"
                                    + " about once a minute. 0 keeps them all.")
                    .build();

    /** What the sink does with a source {@code TRUNCATE}. */
    public enum TruncateHandling {
        /** empty the warehouse table as of the truncate's position. */
        PROPAGATE,
        /** leave the warehouse table, marked diverged. */
        SKIP,
        /** stop the sink. */
        STOP
    }

    /** What the sink does with a record it cannot read, as Connect's {@code errors.tolerance}. */
    public enum ErrorTolerance {
        /** stop the sink. */
        NONE,
        /** dead-letter the record and go on. */
        ALL
    }

    /** Every option, in documentation order. */
    public static final List<ConfigOption<?>> OPTIONS =
            List.of(
                    BOOTSTRAP_SERVERS,
                    dev.cdclab.config.RowLimit.MAX_ROW_BYTES,
                    GROUP_ID,
                    GROUP_INSTANCE_ID,
                    SESSION_TIMEOUT,
                    TOPIC,
                    WAREHOUSE_URL,
                    WAREHOUSE_USER,
                    WAREHOUSE_PASSWORD,
                    QUERY_USER,
                    QUERY_PASSWORD,
                    MAX_POLL_RECORDS,
                    POLL_TIMEOUT,
                    OFFSET_COMMIT_INTERVAL,
                    BUFFER_BYTES,
                    ERRORS_TOLERANCE,
                    DEAD_LETTER_TOPIC,
                    TRUNCATE,
                    TOMBSTONE_RETENTION);

    private final Configuration config;

    public SinkConfig(Configuration config) {
        this.config = config;
    }

    /** Builds and validates a configuration from raw key/value pairs. */
    public static SinkConfig of(Map<String, String> raw) {
        return new SinkConfig(builder().setAll(raw).build());
    }

    /** A builder over the sink's options (accepting {@code kafka.*} pass-through keys). */
    public static Configuration.Builder builder() {
        return Configuration.builder(OPTIONS).allowPrefix(KAFKA_PREFIX);
    }

    public <T> T get(ConfigOption<T> option) {
        return config.get(option);
    }

    public Configuration raw() {
        return config;
    }

    /** The password from config, else from {@code CDCLAB_WAREHOUSE_PASSWORD}. */
    public String password() {
        String p = config.get(WAREHOUSE_PASSWORD);
        return p != null ? p : System.getenv("CDCLAB_WAREHOUSE_PASSWORD");
    }

    /** The query role's password from config, else from {@code CDCLAB_QUERY_PASSWORD}. */
    public String queryPassword() {
        String p = config.get(QUERY_PASSWORD);
        return p != null ? p : System.getenv("CDCLAB_QUERY_PASSWORD");
    }

    /** The dead-letter topic of unreadable net-change records. */
    public String deadLetterTopic() {
        String t = config.get(DEAD_LETTER_TOPIC);
        return t != null && !t.isBlank() ? t : RunNames.deadLetterTopic(config.get(TOPIC));
    }

    public Map<String, String> kafkaOverrides() {
        return config.passthrough(KAFKA_PREFIX);
    }
}
