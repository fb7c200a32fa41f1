package dev.cdclab.sink;

import dev.cdclab.change.IntervalMarker;
import dev.cdclab.change.IntervalRecord;
import dev.cdclab.change.MalformedRecordException;
import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetChangeCodec;
import dev.cdclab.change.NetChangeRecord;
import dev.cdclab.change.TableEvent;
import dev.cdclab.config.OneLineError;
import dev.cdclab.config.RowLimit;
import dev.cdclab.instance.GroupMembership;
import dev.cdclab.sink.gate.IntervalGate;
import dev.cdclab.sink.latency.LatencyRecorder;
import dev.cdclab.sink.warehouse.ReadOnlyQuery;
import dev.cdclab.sink.warehouse.StagingArea;
import dev.cdclab.sink.warehouse.WarehouseWriter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes net changes and loads them into the warehouse: changes wait in an {@link IntervalGate}
 * until their interval is closed everywhere, then each batch is applied in one warehouse
 * transaction and only then are the Kafka offsets committed.
 *
 * <p>When the held records pass {@code interval.buffer.bytes}, the earliest interval held is
 * written ahead into the open warehouse transaction and dropped from memory (its offsets stay
 * uncommitted, its latency stage times are kept compactly); that transaction commits, with the rest
 * of its interval, once the bound reaches it, so readers still see the interval at once. A failure
 * rolls it back and the records are read again.
 *
 * <p>Sinks that share the topic's partitions (a PostgreSQL warehouse) do not apply what they
 * release: each stages it in the warehouse ({@link StagingArea}), and the one holding the committer
 * lock applies every interval staged on all partitions in one transaction. A sink that reads every
 * partition, holds the lock and finds nothing staged applies directly, as above.
 */
public final class WarehouseSink implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WarehouseSink.class);

    /**
     * Fault point for {@code cdc-lab chaos}, a system property: with {@code N > 0} the process
     * halts right after its N-th warehouse commit, before committing that commit's offsets.
     */
    public static final String FAULT_HALT_AFTER_COMMITS = "cdclab.fault.sink-halt-after-commits";

    private static final int HALT_AFTER_COMMITS = Integer.getInteger(FAULT_HALT_AFTER_COMMITS, 0);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    private final SinkConfig config;
    private final SinkStats stats = new SinkStats();
    private final LatencyRecorder latency = new LatencyRecorder();
    private final IntervalGate<TopicPartition> gate = new IntervalGate<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean running;

    /** How many of the topic's partitions this sink reads now. */
    private volatile int assigned;

    private WarehouseWriter writer;
    private KafkaConsumer<byte[], byte[]> consumer;
    private KafkaClientMetrics consumerMetrics;
    private Thread thread;
    private DeadLetterWriter deadLetters;

    /** Changes dead-lettered as refused by the warehouse, skipped when read again. */
    private final Set<String> refusedChanges = new HashSet<>();

    private long appliedThrough = Long.MIN_VALUE;

    /** Where released changes go while other sinks share the partitions; null for DuckDB. */
    private StagingArea staging;

    /** True while this sink stages what it releases instead of applying it. */
    private boolean sharing;

    /** As the committer: the interval end through which staged changes are applied. */
    private long committedThrough = Long.MIN_VALUE;

    private int partitionCount;

    /** Interval end of the latest changes written ahead into the open warehouse transaction. */
    private long streamedThrough = Long.MIN_VALUE;

    /** Changes written ahead into the open warehouse transaction. */
    private long streamedChanges;

    private long streamedRows;
    private long streamedMillis;
    private final LatencyRecorder.Pending streamedTimes = new LatencyRecorder.Pending();
    private final Map<String, long[]> streamedTables = new HashMap<>();

    public WarehouseSink(SinkConfig config) {
        this.config = config;
        this.offsetCommitIntervalNanos = config.get(SinkConfig.OFFSET_COMMIT_INTERVAL).toNanos();
    }

    /**
     * Opens the warehouse, checks the topic and starts consuming on a thread of its own.
     *
     * @throws IllegalStateException when the warehouse or Kafka is unreachable
     */
    public void start(Duration timeout) {
        String url = config.get(SinkConfig.WAREHOUSE_URL);
        try {
            writer =
                    new WarehouseWriter(
                                    url,
                                    config.get(SinkConfig.WAREHOUSE_USER),
                                    config.password(),
                                    config.get(SinkConfig.TRUNCATE)
                                            == SinkConfig.TruncateHandling.SKIP)
                            .tombstoneRetention(config.get(SinkConfig.TOMBSTONE_RETENTION))
                            .queryAs(config.get(SinkConfig.QUERY_USER), config.queryPassword());
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot open warehouse " + url + ": " + OneLineError.of(e), e);
        }
        try {
            consumer = new KafkaConsumer<>(consumerProperties());
        } catch (RuntimeException e) {
            closeQuietly();
            throw new IllegalStateException(
                    "cannot create the Kafka consumer: " + OneLineError.of(e), e);
        }
        String topic = config.get(SinkConfig.TOPIC);
        List<PartitionInfo> parts;
        try {
            parts = consumer.partitionsFor(topic, timeout);
        } catch (RuntimeException e) {
            closeQuietly();
            throw new IllegalStateException(
                    "cannot reach Kafka at "
                            + config.get(SinkConfig.BOOTSTRAP_SERVERS)
                            + ": "
                            + OneLineError.of(e),
                    e);
        }
        if (parts == null || parts.isEmpty()) {
            closeQuietly();
            throw new IllegalStateException(
                    "topic " + topic + " does not exist; start the net-change app first");
        }
        partitionCount = parts.size();
        if (writer.admitsSharedCommits()) {
            staging = writer.stagingArea(topic);
        }
        try {
            subscribe(topic);
        } catch (RuntimeException e) {
            closeQuietly();
            throw e;
        }
        running = true;
        thread = new Thread(this::loop, "warehouse-sink");
        thread.setDaemon(true);
        thread.start();
        LOG.info("Warehouse sink reading {} into {} ({})", topic, url, writer.dialectName());
    }

    private void subscribe(String topic) {
        consumer.subscribe(
                List.of(topic),
                new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
                        if (streamedChanges > 0) {
                            rollBackStreamed(revoked);
                        }
                        // the next owner starts where the warehouse is, not a second back
                        try {
                            commitOffsets(true);
                        } catch (RuntimeException e) {
                            LOG.info(
                                    "Offset commit at revocation failed; the next owner reads"
                                            + " again from the last one: {}",
                                    e.getMessage());
                        }
                        gate.revoke(revoked);
                        assigned = consumer.assignment().size() - revoked.size();
                    }

                    @Override
                    public void onPartitionsLost(Collection<TopicPartition> lost) {
                        // no longer a member: a commit would be refused
                        if (streamedChanges > 0) {
                            rollBackStreamed(lost);
                        }
                        gate.revoke(lost);
                        assigned = consumer.assignment().size() - lost.size();
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
                        gate.assign(assigned);
                        WarehouseSink.this.assigned = consumer.assignment().size();
                    }
                });
    }

    private Properties consumerProperties() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.get(SinkConfig.BOOTSTRAP_SERVERS));
        p.put(ConsumerConfig.GROUP_ID_CONFIG, config.get(SinkConfig.GROUP_ID));
        String member = config.get(SinkConfig.GROUP_INSTANCE_ID);
        if (member != null && !member.isBlank()) {
            p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, member);
        }
        p.putAll(GroupMembership.consumerSettings(config.get(SinkConfig.SESSION_TIMEOUT)));
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, config.get(SinkConfig.MAX_POLL_RECORDS));
        p.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 65536);
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10);
        // a sink that is behind takes what waits in few fetches
        p.put(
                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
                (int)
                        Math.max(
                                8L << 20,
                                RowLimit.messageBytes(config.get(RowLimit.MAX_ROW_BYTES))));
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        config.kafkaOverrides().forEach(p::put);
        return p;
    }

    /** The longest wait for a fetch while the log still holds records this round should take. */
    private static final Duration CATCH_UP_POLL = Duration.ofMillis(100);

    private void loop() {
        Duration pollTimeout = config.get(SinkConfig.POLL_TIMEOUT);
        try {
            long limit = config.get(SinkConfig.BUFFER_BYTES);
            while (running) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(pollTimeout);
                // everything the log held when this round began goes into the next warehouse
                // transaction, not only what one fetch brought: the longer the last one took,
                // the more this one folds (up to what memory holds)
                Map<TopicPartition, Long> logEnds = null;
                while (!records.isEmpty()) {
                    for (ConsumerRecord<byte[], byte[]> r : records) {
                        accept(r);
                    }
                    if (gate.heldBytes() >= limit) {
                        break;
                    }
                    if (logEnds == null) {
                        logEnds = logEnds();
                    }
                    records = consumer.poll(Duration.ZERO);
                    if (records.isEmpty() && !reached(logEnds)) {
                        records = consumer.poll(CATCH_UP_POLL);
                    }
                }
                applyReady();
            }
        } catch (WakeupException e) {
            // close() asked us to stop
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
            LOG.error("Warehouse sink stopped", t);
        } finally {
            if (streamedChanges > 0) {
                try {
                    writer.rollback();
                } catch (SQLException | RuntimeException e) {
                    LOG.warn("Rolling back the open warehouse transaction: {}", e.getMessage());
                }
            }
            try {
                commitOffsets(true);
            } catch (RuntimeException e) {
                LOG.warn("Final offset commit failed: {}", e.getMessage());
            }
            running = false;
            stopped.countDown();
        }
    }

    /** The longest wait for the log's end offsets before the round settles for the last fetch's. */
    private static final Duration END_OFFSETS_TIMEOUT = Duration.ofMillis(500);

    /**
     * Where each assigned partition's log ends now, for partitions not yet read to it. The end is
     * asked of the brokers (the last stable offset, as the sink reads committed records only): the
     * records a round's first poll returns come from a fetch the consumer sent as the previous
     * round's poll returned, so the log end that fetch saw misses what arrived during the previous
     * warehouse transaction, which would otherwise wait a whole round more. When the brokers do not
     * answer in time, the last fetch's end serves.
     */
    private Map<TopicPartition, Long> logEnds() {
        Set<TopicPartition> known = new HashSet<>();
        for (TopicPartition tp : consumer.assignment()) {
            if (consumer.currentLag(tp).isPresent()) {
                known.add(tp);
            }
        }
        Map<TopicPartition, Long> ends = new HashMap<>();
        Map<TopicPartition, Long> now;
        try {
            now = consumer.endOffsets(known, END_OFFSETS_TIMEOUT);
        } catch (TimeoutException e) {
            now = new HashMap<>();
            for (TopicPartition tp : known) {
                now.put(tp, consumer.position(tp) + consumer.currentLag(tp).orElse(0));
            }
        }
        for (var e : now.entrySet()) {
            if (e.getValue() != null && consumer.position(e.getKey()) < e.getValue()) {
                ends.put(e.getKey(), e.getValue());
            }
        }
        return ends;
    }

    private boolean reached(Map<TopicPartition, Long> ends) {
        Set<TopicPartition> assigned = consumer.assignment();
        for (var e : ends.entrySet()) {
            if (assigned.contains(e.getKey()) && consumer.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    private void accept(ConsumerRecord<byte[], byte[]> r) {
        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
        NetChangeRecord decoded;
        try {
            decoded = NetChangeCodec.decode(r.value());
        } catch (MalformedRecordException e) {
            deadLetter(r, e.getMessage());
            gate.skip(tp, r.offset());
            return;
        }
        if (decoded instanceof IntervalMarker m) {
            gate.mark(tp, r.offset(), m);
        } else if (decoded instanceof NetChange c
                && !refusedChanges.isEmpty()
                && refusedChanges.contains(identity(c))) {
            // dead-lettered already: read again after a rewind
            gate.skip(tp, r.offset());
        } else {
            gate.add(tp, r.offset(), (IntervalRecord) decoded, r.serializedValueSize());
        }
    }

    /**
     * Sends an unreadable record to the dead-letter topic and waits for the acknowledgement, so its
     * offset is never committed before the dead letter is safe; or stops the sink when errors are
     * not tolerated.
     */
    private void deadLetter(ConsumerRecord<byte[], byte[]> r, String reason) {
        String where = r.topic() + "-" + r.partition() + "@" + r.offset();
        if (config.get(SinkConfig.ERRORS_TOLERANCE) == SinkConfig.ErrorTolerance.NONE) {
            throw new MalformedNetChangeException(
                    "unreadable net-change record " + where + ": " + reason);
        }
        if (deadLetters == null) {
            deadLetters = new DeadLetterWriter(config);
        }
        deadLetters.write(r, reason);
        stats.countMalformed();
        LOG.warn("Dead-lettered unreadable net-change record {}: {}", where, reason);
    }

    private static String identity(NetChange c) {
        return c.table() + "/" + c.key() + "@" + c.lastPosition();
    }

    /**
     * After a write the warehouse failed (and rolled back): when rows hold values it cannot take
     * and errors are tolerated, dead-letter those rows and read every partition again from what the
     * warehouse has committed, without them. Otherwise the failure stands.
     *
     * @return true when the sink rewound and goes on
     */
    private boolean deadLetterRefused(
            List<IntervalRecord> attempted, Map<TopicPartition, Long> restart, Exception failure)
            throws SQLException {
        if (config.get(SinkConfig.ERRORS_TOLERANCE) == SinkConfig.ErrorTolerance.NONE) {
            return false;
        }
        List<WarehouseWriter.Refused> refused = writer.refused(attempted);
        if (refused.isEmpty()) {
            return false;
        }
        if (deadLetters == null) {
            deadLetters = new DeadLetterWriter(config);
        }
        for (WarehouseWriter.Refused r : refused) {
            NetChange c = r.change();
            String reason =
                    "the warehouse refused " + c.table() + " key " + c.key() + ": " + r.reason();
            deadLetters.write(c, reason);
            refusedChanges.add(identity(c));
            stats.countRefused();
            LOG.warn("Dead-lettered a change the warehouse refused: {}", reason);
        }
        LOG.warn(
                "{} change(s) refused by the warehouse ({}); reading again from the last"
                        + " warehouse commit without them",
                refused.size(),
                failure.getMessage());
        restart.forEach(
                (tp, offset) -> {
                    consumer.seek(tp, offset);
                    gate.rewind(tp, offset);
                });
        gate.committed();
        forgetStreamed();
        return true;
    }

    private int warehouseCommits;

    /** {@link IntervalGate#settingsChanges()} when this sink last looked. */
    private int settingsChanges;

    /**
     * Follows the net-change app restarted with other window settings: bounds said before are in
     * another unit, so the applied bound starts again, and changes written ahead under the old
     * settings are rolled back and read again (their interval's end is said in the old unit).
     */
    private void followSettings() {
        if (gate.settingsChanges() == settingsChanges) {
            return;
        }
        settingsChanges = gate.settingsChanges();
        LOG.info(
                "The net-change app's windows changed ({}): bounds from now on are said in their"
                        + " unit",
                gate.settings());
        appliedThrough = Long.MIN_VALUE;
        committedThrough = Long.MIN_VALUE;
        if (streamedChanges > 0) {
            rollBackStreamed(List.of());
        }
    }

    private void applyReady() throws SQLException {
        followSettings();
        if (sharingNow()) {
            stageReady();
            commitStaged();
            long limit = config.get(SinkConfig.BUFFER_BYTES);
            while (gate.heldBytes() > limit && stageAhead()) {
                // until the held records fit
            }
            readLaggingFirst(limit);
            stats.setHeld(gate.held());
            return;
        }
        long bound = gate.bound();
        // what was written ahead commits only at a bound that covers its interval
        if (bound > appliedThrough && bound >= streamedThrough) {
            Map<TopicPartition, Long> restart = gate.committableOffsets();
            List<IntervalRecord> ready = gate.release(bound);
            stopOnTruncateIfAsked(ready);
            long sourceTime = gate.sourceTime();
            if (ready.isEmpty() && streamedChanges == 0) {
                advanceIdle(sourceTime);
            } else {
                long t0 = System.nanoTime();
                WarehouseWriter.Applied applied;
                try {
                    applied = writer.apply(ready, sourceTime);
                } catch (SQLException | RuntimeException e) {
                    if (deadLetterRefused(ready, restart, e)) {
                        return;
                    }
                    throw e;
                }
                recordApplied(ready, applied, t0, sourceTime);
                gate.committed();
                forgetStreamed();
                haltIfAsked();
            }
            appliedThrough = bound;
            commitOffsetsIfDue();
        }
        long limit = config.get(SinkConfig.BUFFER_BYTES);
        while (gate.heldBytes() > limit && writeAhead()) {
            // until the held records fit
        }
        readLaggingFirst(limit);
        stats.setHeld(gate.held());
    }

    /**
     * While too much is held to go on and the earliest interval cannot be written ahead because a
     * partition has not been read through it, reads only the partitions that lag (the consumer may
     * fetch one partition far ahead of another); reads every partition otherwise.
     */
    private void readLaggingFirst(long limit) {
        Set<TopicPartition> lagging = gate.heldBytes() > limit ? gate.lagging() : Set.of();
        Set<TopicPartition> ahead = new HashSet<>();
        if (!lagging.isEmpty()) {
            ahead.addAll(consumer.assignment());
            ahead.removeAll(lagging);
        }
        Set<TopicPartition> paused = consumer.paused();
        if (paused.equals(ahead)) {
            return;
        }
        Set<TopicPartition> resume = new HashSet<>(paused);
        resume.removeAll(ahead);
        consumer.resume(resume);
        consumer.pause(ahead);
        if (!ahead.isEmpty()) {
            LOG.info(
                    "Held net changes passed {} bytes; reading {} on, until it is read through the"
                            + " earliest interval held",
                    limit,
                    lagging);
        }
    }

    /**
     * Moves the warehouse's progress on over a bound with nothing to apply: in memory each time, in
     * the warehouse at most once per {@link #IDLE_PROGRESS_EVERY_NANOS}, so that a reader in
     * another process ({@code cdc-lab verify} against sinks of their own) sees the warehouse
     * complete through the source's clock while the source is quiet.
     */
    private void advanceIdle(long sourceMs) throws SQLException {
        stats.advance(sourceMs);
        if (System.nanoTime() - progressSavedNanos >= IDLE_PROGRESS_EVERY_NANOS) {
            writer.commit(sourceMs);
            progressSavedNanos = System.nanoTime();
        }
    }

    // one small transaction a second at most while idle; none while changes flow
    private static final long IDLE_PROGRESS_EVERY_NANOS = 1_000_000_000L;
    private long progressSavedNanos = System.nanoTime();

    /** Counts and times a committed warehouse transaction, with what was written ahead into it. */
    private void recordApplied(
            List<IntervalRecord> ready,
            WarehouseWriter.Applied applied,
            long startedNanos,
            long sourceTime) {
        stats.applyTook((System.nanoTime() - startedNanos) / 1_000_000 + streamedMillis);
        latency.recordAll(streamedTimes, applied.committedAtMs());
        List<NetChange> changes = changesOf(ready);
        latency.recordAll(changes, applied.committedAtMs());
        Map<String, Long> raw = new HashMap<>();
        streamedTables.forEach((table, n) -> raw.merge(table, n[1], Long::sum));
        for (NetChange c : changes) {
            raw.merge(c.table(), (long) c.rawChanges(), Long::sum);
        }
        raw.forEach(
                (table, r) ->
                        stats.applied(table, applied.netChanges().getOrDefault(table, 0L), r));
        stats.tableEvents(writer.tablesEmptied(), writer.keylessUnmatched());
        stats.batch(applied.rowsWritten() + streamedRows, sourceTime);
        progressSavedNanos = System.nanoTime();
    }

    /**
     * Whether this round stages instead of applying: while other sinks read some of the partitions,
     * or another sink holds the committer lock, and until everything staged has been applied. A
     * transaction written ahead commits first.
     */
    private boolean sharingNow() throws SQLException {
        if (staging == null) {
            return false;
        }
        boolean all = consumer.assignment().size() >= partitionCount;
        if (!sharing) {
            if (streamedChanges == 0 && (!all || !staging.committer())) {
                sharing = true;
                LOG.info(
                        "Sharing {} with other sinks: staging released changes for the committer",
                        config.get(SinkConfig.TOPIC));
            }
        } else if (all && staging.committer() && staging.empty()) {
            sharing = false;
            LOG.info("Reading every partition with nothing staged: applying directly");
        }
        return sharing;
    }

    /**
     * Stages the changes of every interval closed on this sink's partitions, records those
     * partitions as staged through the bound, then commits their offsets.
     */
    private void stageReady() throws SQLException {
        long bound = gate.bound();
        if (bound <= appliedThrough) {
            return;
        }
        List<IntervalGate.Released<TopicPartition>> ready = gate.releaseRead(bound);
        stopOnTruncateIfAsked(ready.stream().map(IntervalGate.Released::change).toList());
        Map<Integer, Long> through = new HashMap<>();
        for (TopicPartition tp : consumer.assignment()) {
            through.put(tp.partition(), bound);
        }
        staging.stage(entries(ready), through, gate.sourceTime(), gate.settings(), false);
        gate.committed();
        appliedThrough = bound;
        commitOffsetsIfDue();
    }

    private static List<StagingArea.Entry> entries(
            List<IntervalGate.Released<TopicPartition>> released) {
        List<StagingArea.Entry> out = new ArrayList<>(released.size());
        for (IntervalGate.Released<TopicPartition> r : released) {
            out.add(
                    new StagingArea.Entry(
                            r.partition().partition(),
                            r.offset(),
                            r.change().intervalEndMs(),
                            r.change().position(),
                            NetChangeCodec.encode(r.change())));
        }
        return out;
    }

    /**
     * Stages the earliest interval held before the bound reaches it, to free the memory it holds: a
     * large transaction passes through a sink that shares the partitions in bounded memory. The
     * committer takes it once every partition is staged through it; staged, it is durable, so its
     * offsets may be committed.
     */
    private boolean stageAhead() throws SQLException {
        IntervalGate.OldestRead<TopicPartition> oldest = gate.releaseOldestRead();
        List<IntervalGate.Released<TopicPartition>> released = oldest.released();
        if (released.isEmpty()) {
            return false;
        }
        stopOnTruncateIfAsked(released.stream().map(IntervalGate.Released::change).toList());
        staging.stage(entries(released), Map.of(), gate.sourceTime(), gate.settings(), true);
        gate.committed();
        LOG.debug(
                "Held net changes passed {} bytes: staged {} of the interval ending at {} ahead",
                config.get(SinkConfig.BUFFER_BYTES),
                released.size(),
                oldest.intervalEndMs());
        return true;
    }

    /** Changes the committer reads from the staging area and writes at a time. */
    static final int COMMIT_CHUNK = 5_000;

    /**
     * As the committer: applies every change staged through the interval end all partitions are
     * staged through, in one warehouse transaction that also removes them from the staging area.
     * They are read and written a chunk at a time, so a large transaction needs no more memory than
     * a chunk. A chunk the warehouse refuses has its refused changes dead-lettered and removed from
     * the staging area; the next round applies the rest.
     */
    private void commitStaged() throws SQLException {
        if (!staging.committer()) {
            return;
        }
        StagingArea.Bound b = staging.bound(partitionCount);
        if (b == null) {
            return;
        }
        if (!b.windows().equals(committedWindows)) {
            committedWindows = b.windows();
            committedThrough = Long.MIN_VALUE;
        }
        // staged under other window settings: by a sink before the net-change app's restart, or
        // by one that had not yet read a marker since it took its partitions (a rebalance); such
        // rows come at any time, so every round looks (an index probe when there are none)
        long adopted = staging.adopt(b);
        if (adopted > 0) {
            LOG.info(
                    "Brought {} staged change(s) over to the window settings in force ({})",
                    adopted,
                    b.windows());
        }
        if (b.throughMs() <= committedThrough) {
            return;
        }
        long t0 = System.nanoTime();
        if (staging.take(b) == 0) {
            advanceIdle(b.sourceMs());
            committedThrough = b.throughMs();
            return;
        }
        long rows = 0;
        LatencyRecorder.Pending times = new LatencyRecorder.Pending();
        Map<String, long[]> tables = new HashMap<>();
        StagingArea.Entry after = null;
        List<StagingArea.Entry> page;
        do {
            page = staging.page(after, COMMIT_CHUNK);
            if (page.isEmpty()) {
                break;
            }
            after = page.get(page.size() - 1);
            List<IntervalRecord> chunk = new ArrayList<>(page.size());
            for (StagingArea.Entry e : page) {
                chunk.add((IntervalRecord) NetChangeCodec.decode(e.record()));
            }
            try {
                rows += writer.write(chunk);
            } catch (SQLException | RuntimeException e) {
                if (deadLetterStaged(page, chunk, e)) {
                    return;
                }
                throw e;
            }
            for (NetChange c : changesOf(chunk)) {
                times.add(c);
                long[] n = tables.computeIfAbsent(c.table(), t -> new long[2]);
                n[0]++;
                n[1] += c.rawChanges();
            }
        } while (page.size() == COMMIT_CHUNK);
        Map<String, Long> folded = writer.foldedSoFar();
        long committedAt = writer.commit(b.sourceMs());
        stats.applyTook((System.nanoTime() - t0) / 1_000_000);
        latency.recordAll(times, committedAt);
        tables.forEach((table, n) -> stats.applied(table, folded.getOrDefault(table, 0L), n[1]));
        stats.tableEvents(writer.tablesEmptied(), writer.keylessUnmatched());
        stats.batch(rows, b.sourceMs());
        progressSavedNanos = System.nanoTime();
        haltIfAsked();
        committedThrough = b.throughMs();
    }

    /** The window settings the committer's bounds were last said in. */
    private String committedWindows = "";

    /**
     * After the warehouse refused a chunk of staged changes (the transaction rolled back, so they
     * are staged still): dead-letters the changes it refuses and removes them from the staging
     * area. False when errors are not tolerated, or the failure was not about values.
     */
    private boolean deadLetterStaged(
            List<StagingArea.Entry> page, List<IntervalRecord> chunk, Exception failure)
            throws SQLException {
        if (config.get(SinkConfig.ERRORS_TOLERANCE) == SinkConfig.ErrorTolerance.NONE) {
            return false;
        }
        List<WarehouseWriter.Refused> refused = writer.refused(chunk);
        if (refused.isEmpty()) {
            return false;
        }
        java.util.Map<IntervalRecord, StagingArea.Entry> entryOf =
                new java.util.IdentityHashMap<>();
        for (int i = 0; i < chunk.size(); i++) {
            entryOf.put(chunk.get(i), page.get(i));
        }
        if (deadLetters == null) {
            deadLetters = new DeadLetterWriter(config);
        }
        List<StagingArea.Entry> drop = new ArrayList<>();
        for (WarehouseWriter.Refused r : refused) {
            NetChange c = r.change();
            String reason =
                    "the warehouse refused " + c.table() + " key " + c.key() + ": " + r.reason();
            deadLetters.write(c, reason);
            stats.countRefused();
            drop.add(entryOf.get(c));
            LOG.warn("Dead-lettered a staged change the warehouse refused: {}", reason);
        }
        staging.discard(drop);
        LOG.warn(
                "{} staged change(s) refused by the warehouse ({}); applying the rest without"
                        + " them",
                refused.size(),
                failure.getMessage());
        return true;
    }

    private static List<NetChange> changesOf(List<IntervalRecord> records) {
        List<NetChange> out = new ArrayList<>(records.size());
        for (IntervalRecord r : records) {
            if (r instanceof NetChange c) {
                out.add(c);
            }
        }
        return out;
    }

    /**
     * With {@code truncate=stop}, a {@code TRUNCATE} stops the sink before its interval: nothing of
     * that interval is applied, and its offsets stay uncommitted.
     */
    private void stopOnTruncateIfAsked(List<IntervalRecord> ready) {
        if (config.get(SinkConfig.TRUNCATE) != SinkConfig.TruncateHandling.STOP) {
            return;
        }
        for (IntervalRecord r : ready) {
            if (r instanceof TableEvent e && e.kind() == TableEvent.Kind.TRUNCATE) {
                throw new TruncateStopException(
                        "TRUNCATE of "
                                + e.table()
                                + " at "
                                + e.position()
                                + " and sink.truncate=stop: the sink stops before that"
                                + " interval; reload the table, or run with sink.truncate=propagate");
            }
        }
    }

    /**
     * Writes the earliest interval held into the open warehouse transaction, to free the memory it
     * holds; the transaction commits when the bound reaches that interval.
     */
    private boolean writeAhead() throws SQLException {
        Map<TopicPartition, Long> restart = gate.committableOffsets();
        IntervalGate.Oldest oldest = gate.releaseOldest();
        if (oldest.changes().isEmpty()) {
            return false;
        }
        stopOnTruncateIfAsked(oldest.changes());
        if (streamedChanges == 0) {
            LOG.info(
                    "Held net changes passed {} bytes: writing the interval ending at {} ahead"
                            + " into the open warehouse transaction",
                    config.get(SinkConfig.BUFFER_BYTES),
                    oldest.intervalEndMs());
        }
        long t0 = System.nanoTime();
        try {
            streamedRows += writer.write(oldest.changes());
        } catch (SQLException | RuntimeException e) {
            if (deadLetterRefused(oldest.changes(), restart, e)) {
                return false;
            }
            throw e;
        }
        streamedMillis += (System.nanoTime() - t0) / 1_000_000;
        streamedThrough = Math.max(streamedThrough, oldest.intervalEndMs());
        streamedChanges += oldest.changes().size();
        for (NetChange c : changesOf(oldest.changes())) {
            streamedTimes.add(c);
            long[] n = streamedTables.computeIfAbsent(c.table(), t -> new long[2]);
            n[0]++;
            n[1] += c.rawChanges();
        }
        return true;
    }

    private void forgetStreamed() {
        streamedThrough = Long.MIN_VALUE;
        streamedChanges = 0;
        streamedRows = 0;
        streamedMillis = 0;
        streamedTimes.clear();
        streamedTables.clear();
    }

    /**
     * Partitions are taken away while changes written ahead are uncommitted: roll the warehouse
     * transaction back and read the partitions kept again from their committed position.
     */
    private void rollBackStreamed(Collection<TopicPartition> revoked) {
        LOG.warn(
                "Partitions revoked with {} changes written ahead uncommitted: rolling back",
                streamedChanges);
        try {
            writer.rollback();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot roll back the warehouse transaction", e);
        }
        Map<TopicPartition, Long> restart = gate.committableOffsets();
        // a revoked partition too: the offset committed for its next owner is where the changes
        // rolled back begin, not past them
        restart.forEach(
                (tp, offset) -> {
                    if (!revoked.contains(tp)) {
                        consumer.seek(tp, offset);
                    }
                    gate.rewind(tp, offset);
                });
        gate.committed();
        forgetStreamed();
    }

    /**
     * Fault injection for {@code cdc-lab chaos} ({@link #FAULT_HALT_AFTER_COMMITS}): the process
     * halts (no shutdown hook) right after its N-th warehouse commit, before the offsets of that
     * commit are committed, so the restarted sink replays what is already in the warehouse.
     */
    private void haltIfAsked() {
        if (HALT_AFTER_COMMITS > 0 && ++warehouseCommits >= HALT_AFTER_COMMITS) {
            LOG.error("{} reached: halting", FAULT_HALT_AFTER_COMMITS);
            Runtime.getRuntime().halt(137);
        }
    }

    private final long offsetCommitIntervalNanos;
    private long offsetsCommittedNanos = System.nanoTime();

    /**
     * Commits the offsets the warehouse has caught up with once {@code offset.commit.interval} has
     * passed since the last commit: one request per warehouse transaction was nearly a tenth of the
     * broker's requests at 500 tx/s.
     */
    private void commitOffsetsIfDue() {
        long now = System.nanoTime();
        if (now - offsetsCommittedNanos >= offsetCommitIntervalNanos) {
            offsetsCommittedNanos = now;
            commitOffsets(false);
        }
    }

    private void commitOffsets(boolean sync) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        gate.committableOffsets().forEach((tp, o) -> offsets.put(tp, new OffsetAndMetadata(o)));
        if (offsets.isEmpty()) {
            return;
        }
        if (sync) {
            consumer.commitSync(offsets);
        } else {
            consumer.commitAsync(
                    offsets,
                    (o, e) -> {
                        if (e != null) {
                            LOG.warn("Offset commit failed (will retry): {}", e.getMessage());
                        }
                    });
        }
    }

    public SinkStats stats() {
        return stats;
    }

    public LatencyRecorder latency() {
        return latency;
    }

    /** The error that stopped the sink, if any. */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure.get());
    }

    /** True while the consuming thread runs. */
    /** How many of the topic's partitions this sink reads now (a rebalance changes it). */
    public int assignedPartitions() {
        return assigned;
    }

    public boolean isRunning() {
        return running;
    }

    /**
     * Runs one read-only SQL statement against the warehouse while the sink writes it (the DuckDB
     * file admits this process only).
     *
     * @throws dev.cdclab.sink.warehouse.ReadOnlyQuery.RefusedException when it would write
     */
    public ReadOnlyQuery.Result query(String sql, int maxRows, Duration timeout)
            throws SQLException {
        if (writer == null) {
            throw new SQLException("the sink has not opened the warehouse yet");
        }
        return writer.query(sql, maxRows, timeout);
    }

    /**
     * Binds the sink's counters, its latency histograms and its Kafka consumer's metrics to {@code
     * registry}; call after {@link #start}. The consumer's metrics go with {@link #close}.
     */
    public void bindTo(MeterRegistry registry) {
        stats.bindTo(registry);
        latency.bindTo(registry);
        if (consumer != null && consumerMetrics == null) {
            consumerMetrics = new KafkaClientMetrics(consumer);
            consumerMetrics.bindTo(registry);
        }
    }

    /** A read connection to the warehouse, usable while the sink writes. */
    public Connection openReader() throws SQLException {
        return writer.openReader();
    }

    @Override
    public void close() {
        if (thread != null) {
            running = false;
            consumer.wakeup();
            try {
                // a warehouse statement in flight is not interruptible by wakeup(); bound the wait
                if (!stopped.await(CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    LOG.warn(
                            "Warehouse sink did not stop within {}; closing under it",
                            CLOSE_TIMEOUT);
                    thread.interrupt();
                } else {
                    thread.join(CLOSE_TIMEOUT.toMillis());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            thread = null;
        }
        closeQuietly();
    }

    private void closeQuietly() {
        if (consumerMetrics != null) {
            consumerMetrics.close();
            consumerMetrics = null;
        }
        if (deadLetters != null) {
            deadLetters.close();
            deadLetters = null;
        }
        if (consumer != null) {
            try {
                // a static member stays in the group when it closes; leave, so the others take
                // over at once
                consumer.close(
                        CloseOptions.groupMembershipOperation(
                                        CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                                .withTimeout(Duration.ofSeconds(5)));
            } catch (RuntimeException e) {
                LOG.warn("Closing the consumer: {}", e.getMessage());
            }
            consumer = null;
        }
        if (writer != null) {
            try {
                writer.close();
            } catch (SQLException e) {
                LOG.warn("Closing the warehouse: {}", e.getMessage());
            }
            writer = null;
        }
    }
}
