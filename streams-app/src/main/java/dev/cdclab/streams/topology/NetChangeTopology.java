package dev.cdclab.streams.topology;

import dev.cdclab.change.NetChangeCodec;
import dev.cdclab.change.NetChangeMode;
import dev.cdclab.config.RowLimit;
import dev.cdclab.instance.GroupMembership;
import dev.cdclab.streams.NetChangeConfig;
import dev.cdclab.streams.NetChangeConfig.StateStoreType;
import dev.cdclab.streams.debezium.DebeziumEventReader;
import dev.cdclab.streams.fold.WindowPolicy;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.Stores;

/**
 * The net-change topology, as a pure factory.
 *
 * <pre>
 * &lt;prefix&gt;.changes ──► net-change-fold ──► net changes, then interval markers (every partition)
 *                               └──► dead letters
 * </pre>
 *
 * <p>One task per partition of the changes topic; the partition's own commit times (data and
 * heartbeat events) tell the task when an interval is complete.
 */
public final class NetChangeTopology {
    /**
     * The store of the open windows' state (its changelog is {@code
     * <application.id>-net-change-pending-changelog}).
     */
    public static final String PENDING_STORE = "net-change-pending";

    static final String OVERFLOW_STORE = "net-change-overflow";
    static final String PROGRESS_STORE = "net-change-progress";
    static final String SCHEMA_STORE = "net-change-schemas";
    static final String REREAD_STORE = "net-change-reread";

    /**
     * Topic settings of every store's changelog. A restarted instance restores its in-memory stores
     * from the changelog's start, and the log cleaner never compacts the segment being written,
     * which rolls only when a record arrives past its bounds: with Kafka's defaults (segments of 1
     * GiB or 7 days, tombstones kept a day) the restore grows with the time the application has run
     * and with what it wrote while behind. Segments of 16 MiB or a minute, and tombstones kept a
     * minute once compacted, bound it to the live keys and the last segment. A tombstone removed
     * while a restore reads past it can bring back a closed window's change; emitted again, it is
     * older than what the warehouse holds and is ignored.
     */
    public static final Map<String, String> CHANGELOG_TOPIC_CONFIG =
            Map.of(
                    TopicConfig.SEGMENT_BYTES_CONFIG, Integer.toString(16 << 20),
                    TopicConfig.SEGMENT_MS_CONFIG, "60000",
                    TopicConfig.DELETE_RETENTION_MS_CONFIG, "60000");

    static final String NET_CHANGES_SINK = "net-changes";
    static final String DEAD_LETTER_SINK = "dead-letters";

    private NetChangeTopology() {}

    /** Builds the topology; counters go nowhere. */
    public static Topology buildTopology(NetChangeConfig config) {
        return buildTopology(config, new NetChangeStats());
    }

    /** Builds the topology, counting into {@code stats}. */
    public static Topology buildTopology(NetChangeConfig config, NetChangeStats stats) {
        WindowPolicy policy =
                WindowPolicy.of(
                        config.get(NetChangeConfig.INTERVAL), config.get(NetChangeConfig.GRACE));
        int tasks = config.get(NetChangeConfig.PARTITIONS);
        // one task only: tasks that folded different transactions together could split one
        // between warehouse transactions
        FoldWhenBehind behind =
                policy instanceof WindowPolicy.TransactionWindows
                                && tasks == 1
                                && config.get(NetChangeConfig.MODE) != NetChangeMode.OFF
                        ? FoldWhenBehind.of(
                                config.get(NetChangeConfig.BEHIND_LAG),
                                config.get(NetChangeConfig.BEHIND_WINDOW))
                        : FoldWhenBehind.NEVER;
        String placeholder = config.get(NetChangeConfig.PLACEHOLDER);
        String generatorColumn = config.get(NetChangeConfig.GENERATOR_COLUMN);

        Topology t = new Topology();
        t.addSource(
                "change-events",
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer(),
                config.changeTopic());
        t.addProcessor(
                "net-change-fold",
                () ->
                        new NetChangeProcessor(
                                config.get(NetChangeConfig.HEARTBEAT_TABLE),
                                config.get(NetChangeConfig.DDL_TABLE),
                                policy,
                                behind,
                                config.get(NetChangeConfig.MARKER_INTERVAL),
                                config.get(NetChangeConfig.MODE),
                                tasks,
                                new DebeziumEventReader(placeholder, generatorColumn),
                                config.get(NetChangeConfig.STATE_HEAP_BYTES),
                                stats,
                                config.get(NetChangeConfig.GUARANTEE)
                                        == NetChangeConfig.Guarantee.AT_LEAST_ONCE),
                "change-events");
        KeyValueBytesStoreSupplier pendingSupplier =
                config.get(NetChangeConfig.STATE_STORE) == StateStoreType.ROCKSDB
                        ? Stores.persistentKeyValueStore(PENDING_STORE)
                        : Stores.inMemoryKeyValueStore(PENDING_STORE);
        var pending =
                Stores.keyValueStoreBuilder(pendingSupplier, Serdes.Bytes(), Serdes.ByteArray())
                        .withLoggingEnabled(CHANGELOG_TOPIC_CONFIG);
        t.addStateStore(
                config.get(NetChangeConfig.STATE_CACHE)
                        ? pending.withCachingEnabled()
                        : pending.withCachingDisabled(),
                "net-change-fold");
        // open-interval state past state.heap.bytes: on disk whatever state.store says
        t.addStateStore(
                Stores.keyValueStoreBuilder(
                                Stores.persistentKeyValueStore(OVERFLOW_STORE),
                                Serdes.Bytes(),
                                Serdes.ByteArray())
                        .withCachingDisabled()
                        .withLoggingEnabled(CHANGELOG_TOPIC_CONFIG),
                "net-change-fold");
        t.addStateStore(
                Stores.keyValueStoreBuilder(
                                Stores.inMemoryKeyValueStore(PROGRESS_STORE),
                                Serdes.Integer(),
                                Serdes.Long())
                        .withLoggingEnabled(CHANGELOG_TOPIC_CONFIG),
                "net-change-fold");
        t.addStateStore(
                Stores.keyValueStoreBuilder(
                                Stores.inMemoryKeyValueStore(SCHEMA_STORE),
                                Serdes.Long(),
                                Serdes.ByteArray())
                        .withLoggingEnabled(CHANGELOG_TOPIC_CONFIG),
                "net-change-fold");
        // keys the log changes while a re-snapshot reads their table
        t.addStateStore(
                Stores.keyValueStoreBuilder(
                                Stores.inMemoryKeyValueStore(REREAD_STORE),
                                Serdes.Bytes(),
                                Serdes.ByteArray())
                        .withLoggingEnabled(CHANGELOG_TOPIC_CONFIG),
                "net-change-fold");
        t.addSink(
                NET_CHANGES_SINK,
                config.get(NetChangeConfig.NET_CHANGES_TOPIC),
                new ByteArraySerializer(),
                new ByteArraySerializer(),
                markersEverywhere(),
                "net-change-fold");
        t.addSink(
                DEAD_LETTER_SINK,
                config.deadLetterTopic(),
                new ByteArraySerializer(),
                new ByteArraySerializer(),
                "net-change-fold");
        return t;
    }

    /**
     * Kafka Streams settings for this app: low-latency defaults, then {@code kafka.*} overrides.
     */
    public static Properties streamsProperties(NetChangeConfig config) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, config.get(NetChangeConfig.APPLICATION_ID));
        p.put(
                StreamsConfig.BOOTSTRAP_SERVERS_CONFIG,
                config.get(NetChangeConfig.BOOTSTRAP_SERVERS));
        p.put(
                StreamsConfig.PROCESSING_GUARANTEE_CONFIG,
                config.get(NetChangeConfig.GUARANTEE) == NetChangeConfig.Guarantee.EXACTLY_ONCE_V2
                        ? StreamsConfig.EXACTLY_ONCE_V2
                        : StreamsConfig.AT_LEAST_ONCE);
        p.put(
                StreamsConfig.COMMIT_INTERVAL_MS_CONFIG,
                config.get(NetChangeConfig.COMMIT_INTERVAL).toMillis());
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, config.get(NetChangeConfig.THREADS));
        p.put(StreamsConfig.STATE_DIR_CONFIG, config.get(NetChangeConfig.STATE_DIR));
        p.put(
                StreamsConfig.REPLICATION_FACTOR_CONFIG,
                config.get(NetChangeConfig.REPLICATION_FACTOR));
        // Streams defaults producers to linger.ms=100; every net change would wait for it
        p.put(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), 5);
        p.put(StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG), "lz4");
        p.put(StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG), 262144);
        // a net change, a changelog record or a dead letter as large as the largest row makes;
        // the changelogs Streams creates take them too
        long rowBytes = config.get(RowLimit.MAX_ROW_BYTES);
        p.put(
                StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG),
                (int) RowLimit.messageBytes(rowBytes));
        p.put(
                StreamsConfig.producerPrefix(ProducerConfig.BUFFER_MEMORY_CONFIG),
                RowLimit.producerBufferBytes(rowBytes));
        p.put(
                StreamsConfig.topicPrefix(TopicConfig.MAX_MESSAGE_BYTES_CONFIG),
                (int) RowLimit.messageBytes(rowBytes));
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        // wait up to 10 ms for 64 KB rather than one request per trickle of records
        p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.FETCH_MIN_BYTES_CONFIG), 65536);
        p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), 10);
        GroupMembership.consumerSettings(config.get(NetChangeConfig.SESSION_TIMEOUT))
                .forEach((k, v) -> p.put(StreamsConfig.mainConsumerPrefix(k), v));
        // with no record to read, the thread waits in poll up to poll.ms (100 ms by default), and
        // a marker held back by marker.interval goes out only when it wakes: wake that often
        p.put(
                StreamsConfig.POLL_MS_CONFIG,
                Math.max(1L, config.get(NetChangeConfig.MARKER_INTERVAL).toMillis()));
        config.kafkaOverrides().forEach(p::put);
        if (config.get(NetChangeConfig.GUARANTEE) == NetChangeConfig.Guarantee.AT_LEAST_ONCE) {
            // tells the fold when a closed window's output is committed (its state goes then)
            String key =
                    StreamsConfig.mainConsumerPrefix(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG);
            Object given = p.get(key);
            if (given == null) {
                given =
                        p.get(
                                StreamsConfig.consumerPrefix(
                                        ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG));
            }
            String ours = CommittedInput.class.getName();
            p.put(key, given == null || given.toString().isBlank() ? ours : given + "," + ours);
        }
        return p;
    }

    /** Partitioner that writes every record to all partitions (watermarks). */
    static <K, V> StreamPartitioner<K, V> everyPartition() {
        return new StreamPartitioner<>() {
            @Override
            public Optional<Set<Integer>> partitions(
                    String topic, K key, V value, int numPartitions) {
                Set<Integer> all = new HashSet<>();
                for (int i = 0; i < numPartitions; i++) {
                    all.add(i);
                }
                return Optional.of(all);
            }
        };
    }

    /**
     * Net changes by key hash (like the default partitioner); markers and table events to every
     * partition.
     */
    static StreamPartitioner<byte[], byte[]> markersEverywhere() {
        StreamPartitioner<byte[], byte[]> all = everyPartition();
        return new StreamPartitioner<>() {
            @Override
            public Optional<Set<Integer>> partitions(
                    String topic, byte[] key, byte[] value, int numPartitions) {
                if (NetChangeCodec.isBroadcastKey(key)) {
                    return all.partitions(topic, key, value, numPartitions);
                }
                return Optional.of(Set.of(Utils.toPositive(Utils.murmur2(key)) % numPartitions));
            }
        };
    }

    /** Store names, for tests and tools. */
    public static Set<String> storeNames() {
        return Set.of(PENDING_STORE, OVERFLOW_STORE, PROGRESS_STORE, SCHEMA_STORE, REREAD_STORE);
    }
}
