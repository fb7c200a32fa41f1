package dev.cdclab.streams;

import static dev.cdclab.config.ConfigOption.booleanOption;
import static dev.cdclab.config.ConfigOption.durationOption;
import static dev.cdclab.config.ConfigOption.enumOption;
import static dev.cdclab.config.ConfigOption.intOption;
import static dev.cdclab.config.ConfigOption.longOption;
import static dev.cdclab.config.ConfigOption.stringOption;

import dev.cdclab.change.NetChangeMode;
import dev.cdclab.config.ConfigOption;
import dev.cdclab.config.Configuration;
import dev.cdclab.config.RunNames;
import dev.cdclab.instance.GroupMembership;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Options of the net-change Streams app; keys under {@code kafka.} go to Kafka Streams as-is. */
public final class NetChangeConfig {
    /** Prefix of keys passed unchanged to Kafka Streams (and its clients). */
    public static final String KAFKA_PREFIX = "kafka.";

    /** Processing guarantees offered. */
    public enum Guarantee {
        AT_LEAST_ONCE,
        EXACTLY_ONCE_V2
    }

    /** Where the per-interval fold state lives. */
    public enum StateStoreType {
        ROCKSDB,
        IN_MEMORY
    }

    public static final ConfigOption<String> BOOTSTRAP_SERVERS =
            stringOption("bootstrap.servers")
                    .required()
                    .description("Kafka bootstrap servers, host:port[,host:port...].")
                    .build();
    public static final ConfigOption<String> APPLICATION_ID =
            stringOption("application.id")
                    .defaultValue("cdclab-net-changes")
                    .check(s -> s.matches("[A-Za-z0-9._-]+"), "must be [A-Za-z0-9._-]+")
                    .description(
                            "Kafka Streams application id; instances with the same id share the"
                                    + " work.")
                    .build();
    public static final ConfigOption<String> TOPIC_PREFIX =
            stringOption("source.topic.prefix")
                    .defaultValue("cdclab")
                    .check(s -> !s.isBlank(), "must not be blank")
                    .description(
                            "Debezium topic.prefix of the capture connector; changes are read"
                                    + " from <prefix>.changes.")
                    .build();
    public static final ConfigOption<String> NET_CHANGES_TOPIC =
            stringOption("net.changes.topic")
                    .defaultValue("cdclab.net-changes")
                    .description("Topic the net changes and interval markers are written to.")
                    .build();
    public static final ConfigOption<Duration> INTERVAL =
            durationOption("interval")
                    .defaultValue(Duration.ZERO)
                    .check(d -> !d.isNegative(), "must be >= 0")
                    .description(
                            "0 (default): a window per source transaction, closed as soon as a"
                                    + " later transaction (or a heartbeat) shows on the partition,"
                                    + " with no grace; the sink folds every window waiting into"
                                    + " one warehouse transaction, so windows grow exactly when"
                                    + " the warehouse falls behind. A duration: fixed windows of"
                                    + " source commit time, closed once the partition's newest"
                                    + " commit passes their end by 'grace' (the white paper's"
                                    + " intervals).")
                    .build();
    public static final ConfigOption<Duration> GRACE =
            durationOption("grace")
                    .defaultValue(Duration.ofMillis(100))
                    .check(d -> !d.isNegative(), "must be >= 0")
                    .description(
                            "Fixed intervals: how far past an interval's end a partition must have"
                                    + " seen the source commit before the interval closes;"
                                    + " absorbs commit-timestamp jitter between concurrent"
                                    + " transactions.")
                    .build();
    public static final ConfigOption<Duration> BEHIND_LAG =
            durationOption("behind.lag")
                    .defaultValue(Duration.ofMillis(200))
                    .check(d -> !d.isNegative(), "must be >= 0")
                    .description(
                            "Windows per transaction with one partition: a change read this long"
                                    + " after Kafka appended it means the app is behind, and it"
                                    + " folds the transactions that follow into one window,"
                                    + " emitted at the first transaction boundary that finds it"
                                    + " caught up or the window spanning 'behind.window'; net"
                                    + " changes so save work exactly when the pipeline is"
                                    + " overloaded. 0: never fold. With more partitions every"
                                    + " transaction keeps its own window (tasks folding"
                                    + " differently could split a transaction between warehouse"
                                    + " transactions).")
                    .build();
    public static final ConfigOption<Duration> BEHIND_WINDOW =
            durationOption("behind.window")
                    .defaultValue(Duration.ofSeconds(1))
                    .check(d -> d.toMillis() >= 1, "must be >= 1ms")
                    .description(
                            "The longest window, in source commit time, the app folds while"
                                    + " behind (see 'behind.lag').")
                    .build();
    public static final ConfigOption<Duration> MARKER_INTERVAL =
            durationOption("marker.interval")
                    .defaultValue(Duration.ofMillis(5))
                    .check(d -> !d.isNegative(), "must be >= 0")
                    .description(
                            "At most one interval marker per task and partition this often: the"
                                    + " sink applies windows when their markers arrive, so this"
                                    + " bounds the wait it adds.")
                    .build();
    public static final ConfigOption<NetChangeMode> MODE =
            enumOption("mode", NetChangeMode.class)
                    .defaultValue(NetChangeMode.ALL)
                    .description(
                            "all: insert/update/delete per key and interval; all_with_merge:"
                                    + " insert and update reported as upsert; off: every raw change"
                                    + " passed on.")
                    .build();
    public static final ConfigOption<Integer> PARTITIONS =
            intOption("partitions")
                    .defaultValue(1)
                    .check(n -> n >= 1, "must be >= 1")
                    .description(
                            "Partitions of <prefix>.changes (one Streams task each); the"
                                    + " net-change topic is created with as many.")
                    .build();
    public static final ConfigOption<Integer> REPLICATION_FACTOR =
            intOption("replication.factor")
                    .defaultValue(-1)
                    .check(n -> n == -1 || n >= 1, "must be -1 (broker default) or >= 1")
                    .description("Replication factor of topics this app creates.")
                    .build();
    public static final ConfigOption<Guarantee> GUARANTEE =
            enumOption("processing.guarantee", Guarantee.class)
                    .defaultValue(Guarantee.AT_LEAST_ONCE)
                    .description(
                            "Kafka Streams processing guarantee. at_least_once is the default:"
                                    + " the sink's log-position check makes replays harmless, and"
                                    + " a closed window's state is kept until Streams has committed"
                                    + " its output, so a window whose output never reached Kafka"
                                    + " is emitted again. exactly_once_v2 makes output, state and"
                                    + " input offsets one Kafka transaction.")
                    .build();
    public static final ConfigOption<Duration> COMMIT_INTERVAL =
            durationOption("commit.interval")
                    .defaultValue(Duration.ofMillis(100))
                    .check(d -> d.toMillis() >= 1, "must be >= 1ms")
                    .description(
                            "Kafka Streams commit.interval.ms; under exactly_once_v2 net changes"
                                    + " become visible only at commits.")
                    .build();
    public static final ConfigOption<Duration> SESSION_TIMEOUT = GroupMembership.SESSION_TIMEOUT;
    public static final ConfigOption<Integer> THREADS =
            intOption("num.stream.threads")
                    .defaultValue(1)
                    .check(n -> n >= 1, "must be >= 1")
                    .description("Stream threads in this instance.")
                    .build();
    public static final ConfigOption<String> STATE_DIR =
            stringOption("state.dir")
                    .defaultValue(System.getProperty("java.io.tmpdir") + "/cdclab-streams")
                    .description(
                            "Directory for local state stores; each running instance takes the"
                                    + " lowest free instance-N under it, and a static member id"
                                    + " in the group that goes with it.")
                    .build();
    public static final ConfigOption<StateStoreType> STATE_STORE =
            enumOption("state.store", StateStoreType.class)
                    .defaultValue(StateStoreType.IN_MEMORY)
                    .description(
                            "Store for open intervals (changelogged either way): in_memory is"
                                    + " faster; rocksdb spills to disk for long intervals and huge"
                                    + " transactions.")
                    .build();
    public static final ConfigOption<Long> STATE_HEAP_BYTES =
            longOption("state.heap.bytes")
                    .defaultValue(32L * 1024 * 1024)
                    .check(n -> n >= 0, "must be >= 0")
                    .description(
                            "Encoded bytes of open-interval state a task keeps decoded on the heap"
                                    + " (and in 'state.store'). Keys first seen past it go to a"
                                    + " RocksDB overflow store on disk (changelogged too) and are"
                                    + " read back when their interval closes, so a huge"
                                    + " transaction or snapshot does not exhaust the heap; 0"
                                    + " sends every key there.")
                    .build();
    public static final ConfigOption<Boolean> STATE_CACHE =
            booleanOption("state.cache")
                    .defaultValue(false)
                    .description(
                            "Kafka Streams' record cache in front of the open-interval store. The"
                                    + " fold keeps its state decoded in memory and writes each"
                                    + " change through; the cache would save changelog writes of"
                                    + " keys changed twice in a commit interval, for a sorted-map"
                                    + " update per change.")
                    .build();
    public static final ConfigOption<String> PLACEHOLDER =
            stringOption("unavailable.value.placeholder")
                    .defaultValue("__debezium_unavailable_value")
                    .description(
                            "The connector's unavailable.value.placeholder (unchanged TOASTed"
                                    + " values).")
                    .build();
    public static final ConfigOption<String> GENERATOR_COLUMN =
            stringOption("generator.column")
                    .defaultValue("gen_commit_us")
                    .description(
                            "Column holding the load generator's commit timestamp (epoch"
                                    + " microseconds); carried along for latency measurement.")
                    .build();
    public static final ConfigOption<String> HEARTBEAT_TABLE =
            stringOption("heartbeat.table")
                    .defaultValue("cdc_lab.heartbeat")
                    .description(
                            "Source table whose updates (one row per partition) only advance the"
                                    + " watermark; never folded or written to the warehouse.")
                    .build();
    public static final ConfigOption<String> DDL_TABLE =
            stringOption("ddl.table")
                    .defaultValue("cdc_lab.ddl_events")
                    .description(
                            "Source table where cdc-lab's event triggers log table renames and"
                                    + " drops; its inserts become table events the warehouse"
                                    + " follows, and it is never written to the warehouse.")
                    .build();
    public static final ConfigOption<Boolean> CREATE_TOPICS =
            booleanOption("create.topics")
                    .defaultValue(true)
                    .description(
                            "Create the changes, net-change and dead-letter topics if missing."
                                    + " Either way the changes topic must exist with"
                                    + " `partitions` partitions, or the app does not start.")
                    .build();

    /** Every option, in documentation order. */
    public static final List<ConfigOption<?>> OPTIONS =
            List.of(
                    BOOTSTRAP_SERVERS,
                    APPLICATION_ID,
                    TOPIC_PREFIX,
                    NET_CHANGES_TOPIC,
                    INTERVAL,
                    GRACE,
                    BEHIND_LAG,
                    BEHIND_WINDOW,
                    MARKER_INTERVAL,
                    MODE,
                    PARTITIONS,
                    REPLICATION_FACTOR,
                    dev.cdclab.config.RowLimit.MAX_ROW_BYTES,
                    GUARANTEE,
                    COMMIT_INTERVAL,
                    SESSION_TIMEOUT,
                    THREADS,
                    STATE_DIR,
                    STATE_STORE,
                    STATE_HEAP_BYTES,
                    STATE_CACHE,
                    PLACEHOLDER,
                    GENERATOR_COLUMN,
                    HEARTBEAT_TABLE,
                    DDL_TABLE,
                    CREATE_TOPICS);

    private final Configuration config;

    public NetChangeConfig(Configuration config) {
        this.config = config;
    }

    /** Builds and validates a configuration from raw key/value pairs. */
    public static NetChangeConfig of(Map<String, String> raw) {
        return new NetChangeConfig(
                Configuration.builder(OPTIONS).allowPrefix(KAFKA_PREFIX).setAll(raw).build());
    }

    /** A builder over this app's options (accepting {@code kafka.*} pass-through keys). */
    public static Configuration.Builder builder() {
        return Configuration.builder(OPTIONS).allowPrefix(KAFKA_PREFIX);
    }

    public Configuration raw() {
        return config;
    }

    public <T> T get(ConfigOption<T> option) {
        return config.get(option);
    }

    /**
     * Topic for change events that could not be read: the change topic's name + "-dead-letters".
     */
    public String deadLetterTopic() {
        return RunNames.deadLetterTopic(changeTopic());
    }

    /**
     * The topic every captured table is routed to by the connector's {@code ByLogicalTableRouter}:
     * {@code <prefix>.changes}.
     */
    public String changeTopic() {
        return RunNames.changeTopic(get(TOPIC_PREFIX));
    }

    /** Kafka Streams and client settings passed through under {@code kafka.}. */
    public Map<String, String> kafkaOverrides() {
        return config.passthrough(KAFKA_PREFIX);
    }
}
