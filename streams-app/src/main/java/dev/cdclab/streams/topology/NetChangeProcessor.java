package dev.cdclab.streams.topology;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cdclab.change.ChangeKeyFields;
import dev.cdclab.change.IntervalMarker;
import dev.cdclab.change.MalformedRecordException;
import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetChangeCodec;
import dev.cdclab.change.NetChangeMode;
import dev.cdclab.change.Schemas;
import dev.cdclab.change.SourcePosition;
import dev.cdclab.change.TableEvent;
import dev.cdclab.streams.debezium.ChangeEvent;
import dev.cdclab.streams.debezium.DebeziumEventReader;
import dev.cdclab.streams.fold.Interval;
import dev.cdclab.streams.fold.NetChangeFolder;
import dev.cdclab.streams.fold.PendingChange;
import dev.cdclab.streams.fold.PendingCodec;
import dev.cdclab.streams.fold.WindowPolicy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Folds Debezium change events into per-key, per-window state. Its partition arrives in source
 * commit order, so what it has seen tells which windows are complete (see {@link WindowPolicy}):
 * their net changes are emitted, and an {@link IntervalMarker} on every output partition says so,
 * at most once per {@code marker.interval}.
 *
 * <p>The open intervals' state lives decoded in a map of the processor's own and is written through
 * to the changelogged store, which restores the map after a restart or rebalance: each change costs
 * one hash lookup and one store write, never a decode.
 *
 * <p>That map and its store are bounded by {@code state.heap.bytes} (encoded bytes): a key first
 * seen past it lives only in the RocksDB overflow store, on disk, until its interval closes; then
 * the closed range of that store is read back in chunks and merged with the map's entries in key
 * order. A huge transaction or an initial snapshot of one interval so costs disk, not heap.
 *
 * <p>Under {@code at_least_once} a closed window's state stays in the stores until Streams has
 * committed the input past the change that closed it, which it does only once the window's output
 * is acknowledged ({@link CommittedInput}). If that output never reaches Kafka (a crash, or the
 * net-change partition offline past the producer's delivery timeout), the task restored from its
 * changelogs still has the window's state and emits it again; forgotten at the close, it would be
 * lost, since the replay from the last commit holds only the window's last changes.
 */
final class NetChangeProcessor implements Processor<byte[], byte[], byte[], byte[]> {
    private static final Logger LOG = LoggerFactory.getLogger(NetChangeProcessor.class);

    /** Overflow entries read per range scan while closing. */
    private static final int OVERFLOW_CHUNK = 2000;

    private final String heartbeatTable;
    private final String ddlTable;

    /** {@code <schema>.} of the heartbeat table: cdc-lab's own tables, never the warehouse's. */
    private final String labSchema;

    private final WindowPolicy policy;
    private final FoldWhenBehind behind;
    private final long markerIntervalNanos;
    private final NetChangeMode mode;
    private final int tasks;
    private final String windows;
    private final DebeziumEventReader reader;
    private final NetChangeStats stats;

    /** Under at_least_once: closed windows' state is kept until their output is committed. */
    private final boolean keepUntilCommitted;

    /**
     * Closes whose state is kept, oldest first: the offset of the change that closed them, and
     * {@link #keptThrough} after them.
     */
    private final ArrayDeque<long[]> kept = new ArrayDeque<>();

    /**
     * Every window starting at or before this is closed, and its state may still be in the stores
     * (until committed); {@link Long#MIN_VALUE} when none is.
     */
    private long keptThrough = Long.MIN_VALUE;

    /** Where {@link #keptThrough} is kept in the task's progress store. */
    private static final int KEPT_THROUGH_KEY = Integer.MIN_VALUE;

    /**
     * The log position of a snapshot that read tables whole, until it has settled; {@link
     * Long#MIN_VALUE} when none is settling. Debezium reads a snapshot taken on an existing slot
     * (its offsets lost or deleted) at READ COMMITTED, one {@code SELECT} per table after it read
     * that position: its rows can hold transactions committed after the position, which the log
     * then delivers again. Applied apart, such a transaction would set its rows back to an older
     * state beside rows the snapshot read newer. So no window closes past the position until a
     * heartbeat logged after it arrives: Debezium writes one only once the snapshot has read every
     * table, so the rows and every change the log delivers before it become visible together.
     */
    private long settleAfter = Long.MIN_VALUE;

    /** Where {@link #settleAfter} is kept in the task's progress store. */
    private static final int SETTLE_AFTER_KEY = Integer.MIN_VALUE + 1;

    /** The last transaction the log delivered naming no commit before it, and its window key. */
    private String firstStreamed = "";

    private long firstStreamedKey;

    /**
     * Where {@link #firstStreamedKey} and {@link #firstStreamed} are kept in the task's schema
     * store: a task restarted in the middle of that transaction gives the rest of it the same
     * window.
     */
    private static final long FIRST_STREAMED_KEY = -4L;

    /**
     * Once the heartbeat after a settling snapshot came, the bound through which every window
     * holding a change delivered before it is complete: the snapshot settles when the windows close
     * that far, all of them at once. {@link Long#MIN_VALUE} until then.
     */
    private long settleUntil = Long.MIN_VALUE;

    /** When a snapshot began to settle (wall clock), to warn while no heartbeat comes. */
    private long settlingSinceMs;

    /**
     * True when a restored task found closed windows' state: emitted again with the next change.
     */
    private boolean emitKeptAgain;

    /** This task's partition of the change topic, once a change has been read. */
    private TopicPartition input;

    private ProcessorContext<byte[], byte[]> context;
    private KeyValueStore<Bytes, byte[]> pending;
    private KeyValueStore<Integer, Long> progress;
    private KeyValueStore<Long, byte[]> schemaStore;
    private final Map<Long, Schemas.Described> schemas = new HashMap<>();
    private final long heapBytes;
    private final Map<Bytes, Cached> open = new HashMap<>();
    private KeyValueStore<Bytes, byte[]> overflow;
    private long cachedBytes;
    private long overflowKeys;
    private int task;
    private long closedThrough;

    /** The newest commit time seen. */
    private long newestCommitMs = Long.MIN_VALUE;

    /** The commit time the closed windows reach, for markers. */
    private long closedSourceMs = Long.MIN_VALUE;

    /** The newest window key seen: the open window of rows without a place of their own. */
    private long openKey = Long.MIN_VALUE;

    /** This task's count of keys in open intervals, read by the metrics. */
    private AtomicLong openKeys;

    /** True when windows closed since the last marker. */
    private boolean markerDue;

    private long lastMarkerNanos;
    private long lastTimestamp;
    private long lastLateWarning;

    /**
     * The newest log position this task's partition has shown. A row an incremental snapshot reads
     * has none: it goes right after this one (Debezium reads it between two of its signal rows,
     * which are logged; a re-snapshot moves every partition's heartbeat past where it began first).
     */
    private String lastPosition;

    /** Where {@link #lastPosition} is kept in the task's schema store. */
    private static final long LAST_POSITION_KEY = -1L;

    /**
     * The table a re-snapshot is reading, as the heartbeat row's {@code reading} column says; null
     * when none. While it is read, the keys the log changes are kept ({@link #changedWhileReading})
     * and a row read again for one of them is dropped: the log's change is at least as new. A
     * transaction whose commit is logged before Debezium's window opens can still be invisible to
     * the chunk's {@code SELECT} (it becomes visible after its commit record is flushed), and its
     * row read again would otherwise replace its change with the value before it.
     */
    private String reading;

    /** Where {@link #reading} is kept in the task's schema store. */
    private static final long READING_KEY = -2L;

    /**
     * Key in {@code schemaStore} of {@link #snapshotFirst}'s record while it is held: the offset
     * past it may be committed before anything ends it, and a restarted task must still end it.
     */
    private static final long SNAPSHOT_FIRST_KEY = -3L;

    private static final byte[] NOTHING = new byte[0];

    private KeyValueStore<Bytes, byte[]> changedWhileReading;
    private long droppedWhileReading;

    /**
     * With windows per transaction, the start of the window that folds the transactions read while
     * this task is behind ({@link FoldWhenBehind}); {@link Long#MIN_VALUE} when none is held. While
     * one is, {@link #closedThrough} stays at its start, so no marker moves past it.
     */
    private long heldFrom = Long.MIN_VALUE;

    /**
     * The newest transaction (window key) in the held window: it is complete once a later one
     * shows. Each held change's interval ends past the newest key when it was folded, so a restored
     * task knows it.
     */
    private long heldNewest = Long.MIN_VALUE;

    /** Commit time of the first change of the held window. */
    private long heldSinceMs;

    /** Windows held since this task fell behind, and the raw changes they folded (for the log). */
    private long heldWindows;

    private long heldRaw;

    private long lastBehindLog;
    private boolean behindLogged;

    /** Per table without a key, the log position of the snapshot whose rows this task passes on. */
    private final Map<String, String> snapshotsStarted = new HashMap<>();

    /**
     * The first row of a snapshot, when this task read it and its table's reading has not ended
     * here since: the table may have no other row, and then no row is marked last of it. The next
     * record of anything else ends it. Kept in {@code schemaStore} too, so a restart does not lose
     * it.
     */
    private ChangeEvent snapshotFirst;

    NetChangeProcessor(
            String heartbeatTable,
            String ddlTable,
            WindowPolicy policy,
            FoldWhenBehind behind,
            Duration markerInterval,
            NetChangeMode mode,
            int tasks,
            DebeziumEventReader reader,
            long heapBytes,
            NetChangeStats stats,
            boolean keepUntilCommitted) {
        this.heartbeatTable = heartbeatTable;
        this.ddlTable = ddlTable;
        this.labSchema = heartbeatTable.substring(0, heartbeatTable.indexOf('.') + 1);
        this.policy = policy;
        this.behind = behind;
        this.markerIntervalNanos = markerInterval.toNanos();
        this.mode = mode;
        this.tasks = tasks;
        this.windows = policy.settings() + " mode=" + mode.name().toLowerCase(Locale.ROOT);
        this.reader = reader;
        this.heapBytes = heapBytes;
        this.stats = stats;
        this.keepUntilCommitted = keepUntilCommitted;
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        this.context = context;
        this.pending = context.getStateStore(NetChangeTopology.PENDING_STORE);
        this.overflow = context.getStateStore(NetChangeTopology.OVERFLOW_STORE);
        this.progress = context.getStateStore(NetChangeTopology.PROGRESS_STORE);
        this.schemaStore = context.getStateStore(NetChangeTopology.SCHEMA_STORE);
        this.changedWhileReading = context.getStateStore(NetChangeTopology.REREAD_STORE);
        this.task = context.taskId().partition();
        this.openKeys = stats.openKeysOf(task);
        Long restored = progress.get(task);
        this.closedThrough = restored == null ? Long.MIN_VALUE : restored;
        this.openKey = closedThrough;
        this.markerDue = false;
        // a marker due while no change arrives goes out on time anyway
        context.schedule(
                Duration.ofNanos(Math.max(markerIntervalNanos, 1_000_000)),
                PunctuationType.WALL_CLOCK_TIME,
                ts -> {
                    forgetCommitted();
                    emitMarkerIfDue(true);
                    warnIfUnsettled();
                });
        byte[] last = schemaStore.get(LAST_POSITION_KEY);
        this.lastPosition = last == null ? null : new String(last, StandardCharsets.UTF_8);
        byte[] table = schemaStore.get(READING_KEY);
        this.reading = table == null ? null : new String(table, StandardCharsets.UTF_8);
        byte[] first = schemaStore.get(SNAPSHOT_FIRST_KEY);
        this.snapshotFirst = first == null ? null : heldFirst(first);
        byte[] streamed = schemaStore.get(FIRST_STREAMED_KEY);
        if (streamed == null) {
            firstStreamed = "";
        } else {
            String s = new String(streamed, StandardCharsets.UTF_8);
            int space = s.indexOf(' ');
            firstStreamedKey = Long.parseLong(s.substring(0, space));
            firstStreamed = s.substring(space + 1);
        }
        // init runs again when a task is revived: the store is the truth
        open.clear();
        schemas.clear();
        cachedBytes = 0;
        overflowKeys = 0;
        kept.clear();
        Long settle = progress.get(SETTLE_AFTER_KEY);
        settleAfter = settle == null ? Long.MIN_VALUE : settle;
        settlingSinceMs = System.currentTimeMillis();
        Long keptStart = progress.get(KEPT_THROUGH_KEY);
        keptThrough = keptStart == null ? Long.MIN_VALUE : keptStart;
        emitKeptAgain = false;
        try (KeyValueIterator<Bytes, byte[]> it = pending.all()) {
            while (it.hasNext()) {
                KeyValue<Bytes, byte[]> kv = it.next();
                if (PendingCodec.intervalStart(kv.value) <= keptThrough) {
                    emitKeptAgain = true;
                    continue;
                }
                open.put(
                        kv.key,
                        new Cached(PendingCodec.decode(kv.value, this::schema), kv.value.length));
                cachedBytes += kv.value.length;
            }
        }
        heldFrom = Long.MIN_VALUE;
        heldNewest = Long.MIN_VALUE;
        heldSinceMs = Long.MAX_VALUE;
        for (Cached c : open.values()) {
            restoreHeld(c.change().interval().startMs(), c.change().interval().endMs());
            heldSinceMs = Math.min(heldSinceMs, c.change().commitMs());
        }
        if (settleAfter > closedThrough
                && heldFrom == Long.MIN_VALUE
                && policy instanceof WindowPolicy.TransactionWindows) {
            // stopped between a snapshot's first row and the marker after it: close up to the
            // snapshot again, claiming no source time
            close(settleAfter, Long.MIN_VALUE);
        }
        if (heldSinceMs == Long.MAX_VALUE) {
            heldSinceMs = 0;
        }
        try (KeyValueIterator<Bytes, byte[]> it = overflow.all()) {
            while (it.hasNext()) {
                KeyValue<Bytes, byte[]> kv = it.next();
                if (PendingCodec.intervalStart(kv.value) <= keptThrough) {
                    emitKeptAgain = true;
                    continue;
                }
                restoreHeld(
                        PendingCodec.intervalStart(kv.value), PendingCodec.intervalEnd(kv.value));
                overflowKeys++;
            }
        }
        countOpenKeys();
    }

    /**
     * With windows per transaction, state is only ever kept for a held window: a restored task
     * holds it again, until a transaction past its newest one shows.
     */
    private void restoreHeld(long start, long end) {
        if (policy instanceof WindowPolicy.TransactionWindows) {
            heldFrom = heldFrom == Long.MIN_VALUE ? start : Math.min(heldFrom, start);
            heldNewest = Math.max(heldNewest, end - 1);
        }
    }

    /** A decoded open-interval state and the size of its encoding. */
    private record Cached(PendingChange change, int bytes) {}

    @Override
    public void process(Record<byte[], byte[]> record) {
        ChangeEvent ev;
        try {
            ev = reader.emptyTable(record.headers(), record.timestamp());
            if (ev == null) {
                ev = reader.read(record.key(), record.value(), record.timestamp());
            }
        } catch (MalformedRecordException e) {
            deadLetter(record, e.getMessage());
            return;
        }
        if (input == null) {
            context.recordMetadata()
                    .ifPresent(md -> input = new TopicPartition(md.topic(), md.partition()));
        }
        forgetCommitted();
        if (emitKeptAgain) {
            emitKeptAgain();
        }
        if (ev == null) {
            return;
        }
        if (ev.noCommitBefore()) {
            ev = placeFirstStreamed(ev);
        }
        // a row an incremental snapshot read and a table a snapshot found empty carry the time
        // Debezium sent them, not a commit: it can be after transactions the log has yet to
        // deliver, which counted as a commit time it would claim are applied
        boolean committed =
                ev.position() != null && ev.snapshotRow() != ChangeEvent.SnapshotRow.EMPTY_TABLE;
        if (ev.position() == null) {
            if (lastPosition == null) {
                deadLetter(
                        record,
                        "a row of an incremental snapshot arrived before any log position was seen"
                                + " on its partition; read the table again");
                return;
            }
            if (ev.table().equals(reading)
                    && changedWhileReading.get(Bytes.wrap(readingKey(ev))) != null) {
                droppedWhileReading++;
                return;
            }
            long offset = context.recordMetadata().map(RecordMetadata::offset).orElse(0L);
            ev = ev.at(SourcePosition.withOffset(lastPosition, offset));
        } else {
            lastPosition = ev.position();
            if (ev.table().equals(reading) && !ev.truncate()) {
                changedWhileReading.put(Bytes.wrap(readingKey(ev)), NOTHING);
            }
        }
        if (ev.snapshotRow() != ChangeEvent.SnapshotRow.NONE) {
            settleFrom(ev);
        } else if (settleAfter != Long.MIN_VALUE) {
            settleAt(ev);
        }
        if (policy instanceof WindowPolicy.TransactionWindows) {
            holdOrRelease(ev, record);
        }
        if (snapshotFirst != null
                && !(ev.table().equals(snapshotFirst.table())
                        && ev.snapshotRow() != ChangeEvent.SnapshotRow.NONE)) {
            tableRead(snapshotFirst, record);
        }
        if (ev.table().equals(heartbeatTable)) {
            stats.countHeartbeat();
            // where a row an incremental snapshot reads next is placed, after a restart too
            schemaStore.put(LAST_POSITION_KEY, lastPosition.getBytes(StandardCharsets.UTF_8));
            followReading(ev);
        } else if (ev.table().equals(ddlTable)) {
            ddl(ev, record);
        } else if (ev.table().startsWith(labSchema)) {
            // the connector's own bookkeeping (its signal table): moves the watermark only
            stats.countHeartbeat();
        } else if (ev.snapshotRow() == ChangeEvent.SnapshotRow.EMPTY_TABLE) {
            tableRead(ev, record);
        } else if (ev.truncate()) {
            truncate(ev, record);
        } else if (ev.tooLarge()) {
            tooLarge(ev, record);
        } else if (ev.keyless()) {
            passKeyless(ev, record);
        } else {
            fold(ev, record);
            switch (ev.snapshotRow()) {
                case FIRST -> holdFirst(ev, record);
                case LAST_OF_TABLE -> tableRead(ev, record);
                default -> {}
            }
        }
        if (committed) {
            newestCommitMs = Math.max(newestCommitMs, ev.commitMs());
        }
        if (ev.windowKey() > openKey) {
            openKey = ev.windowKey();
        }
        lastTimestamp = record.timestamp();
        long bound = policy.bound(ev, newestCommitMs);
        if (settleUntil != Long.MIN_VALUE && bound >= settleUntil) {
            LOG.info("Snapshot settled on partition {} at {}", task, ev.position());
            settleAfter = Long.MIN_VALUE;
            settleUntil = Long.MIN_VALUE;
            progress.delete(SETTLE_AFTER_KEY);
        }
        if (bound > closedThrough && heldFrom == Long.MIN_VALUE && settleAfter == Long.MIN_VALUE) {
            // every transaction before this one is in a closed window, and so is every one
            // acknowledged before the newest commit time seen: a source takes a transaction's
            // commit time before it logs the commit, and acknowledges it after
            close(bound, policy instanceof WindowPolicy.FixedIntervals ? bound : newestCommitMs);
        }
        emitMarkerIfDue(false);
    }

    /**
     * A row (or empty table) of a snapshot reading tables whole: every window before it closes, and
     * none after its position until it settles ({@link #settleAfter}).
     */
    private void settleFrom(ChangeEvent ev) {
        long key = ev.windowKey();
        if (key == Long.MIN_VALUE || key <= settleAfter) {
            return;
        }
        if (settleAfter == Long.MIN_VALUE) {
            // closed through the snapshot's window now, so that the close that ends the settling
            // never claims the snapshot rows' time for windows it leaves open
            boolean fixed = policy instanceof WindowPolicy.FixedIntervals;
            long bound =
                    fixed && newestCommitMs == Long.MIN_VALUE
                            ? Long.MIN_VALUE
                            : policy.bound(ev, newestCommitMs);
            if (bound > closedThrough && heldFrom == Long.MIN_VALUE) {
                close(bound, fixed ? bound : newestCommitMs);
            }
            settlingSinceMs = System.currentTimeMillis();
            LOG.info(
                    "Snapshot at {} read on partition {}: its rows become visible with the changes"
                            + " logged while it read, at the first heartbeat after it",
                    ev.position(),
                    task);
        }
        settleAfter = key;
        // a snapshot after the heartbeat that would have settled an earlier one waits for its own
        settleUntil = Long.MIN_VALUE;
        progress.put(SETTLE_AFTER_KEY, key);
    }

    /**
     * Places a change of the first transaction the log delivers after a snapshot, or after a start
     * without one: Debezium names no commit before it, so its changes carry their own LSNs and
     * would fall in as many windows. All of them go in one: right after the position of a snapshot
     * still settling (a change made before that position would otherwise sort before the snapshot's
     * rows, where the warehouse drops it as replaced), else at its first change's.
     */
    private ChangeEvent placeFirstStreamed(ChangeEvent ev) {
        if (!ev.transaction().equals(firstStreamed)) {
            firstStreamed = ev.transaction();
            firstStreamedKey = settleAfter != Long.MIN_VALUE ? settleAfter + 1 : ev.windowKey();
            schemaStore.put(
                    FIRST_STREAMED_KEY,
                    (firstStreamedKey + " " + firstStreamed).getBytes(StandardCharsets.UTF_8));
            if (settleAfter != Long.MIN_VALUE) {
                LOG.info(
                        "Transaction {}, the first the log delivered after the snapshot at {}:"
                                + " placed right after the snapshot's rows",
                        ev.transaction(),
                        SourcePosition.postgres(settleAfter));
            }
        }
        return ev.following(firstStreamedKey);
    }

    /**
     * At the first heartbeat logged after a settling snapshot's position, sets where it settles:
     * once the windows holding every change delivered so far can close (at once with windows per
     * transaction; once grace has passed the heartbeat's interval with fixed intervals, whose
     * earlier intervals can hold transactions the snapshot's rows already show).
     */
    private void settleAt(ChangeEvent ev) {
        // a change's window key is the commit before its transaction: the first one the log
        // delivers after the snapshot may have the snapshot's own position
        if (settleUntil == Long.MIN_VALUE
                && ev.table().equals(heartbeatTable)
                && !ev.snapshot()
                && ev.windowKey() != Long.MIN_VALUE
                && ev.windowKey() >= settleAfter) {
            settleUntil = policy.boundOfAllSeen(ev, Math.max(newestCommitMs, ev.commitMs()));
        }
    }

    /** Warns every 30 s while a snapshot waits for its heartbeat. */
    private void warnIfUnsettled() {
        if (settleAfter != Long.MIN_VALUE
                && System.currentTimeMillis() - settlingSinceMs > 30_000) {
            settlingSinceMs = System.currentTimeMillis();
            LOG.warn(
                    "A snapshot at {} waits for a heartbeat from {} logged after it; none came in"
                            + " 30 s. Is Debezium's heartbeat.action.query writing that table?",
                    settleAfter,
                    heartbeatTable);
        }
    }

    /**
     * At the first change of a transaction, with windows per transaction: releases the held window
     * (every transaction in it is complete) when the task has caught up or the window spans {@code
     * behind.window}, and starts holding one when the change was read {@code behind.lag} after its
     * append.
     */
    private void holdOrRelease(ChangeEvent ev, Record<byte[], byte[]> record) {
        long key = ev.windowKey();
        if (key == Long.MIN_VALUE
                || settleAfter != Long.MIN_VALUE
                || (heldFrom == Long.MIN_VALUE && !behind.enabled())) {
            return;
        }
        long lagMs = System.currentTimeMillis() - record.timestamp();
        if (heldFrom != Long.MIN_VALUE && key > heldNewest) {
            boolean caughtUp = !behind.behind(lagMs);
            if (caughtUp || ev.commitMs() - heldSinceMs >= behind.windowMs()) {
                heldWindows++;
                stats.countHeldWindow();
                close(key, newestCommitMs);
                heldFrom = Long.MIN_VALUE;
                if (caughtUp) {
                    if (behindLogged) {
                        LOG.info(
                                "Caught up: {} windows folded {} raw changes while behind",
                                heldWindows,
                                heldRaw);
                    }
                    behindLogged = false;
                    heldWindows = 0;
                    heldRaw = 0;
                }
            }
        }
        if (heldFrom == Long.MIN_VALUE && behind.behind(lagMs) && key >= closedThrough) {
            // at most one start and end of a spell behind every 10 s, with its counts
            if (heldWindows == 0 && System.currentTimeMillis() - lastBehindLog >= 10_000) {
                lastBehindLog = System.currentTimeMillis();
                behindLogged = true;
                LOG.info(
                        "Reading changes {} ms after their append: folding transactions into"
                                + " windows of up to {} ms until caught up",
                        lagMs,
                        behind.windowMs());
            }
            close(key, newestCommitMs);
            heldFrom = closedThrough;
            heldNewest = key;
            heldSinceMs = ev.commitMs();
        }
    }

    private static byte[] readingKey(ChangeEvent ev) {
        return ev.tableKey().getBytes(StandardCharsets.UTF_8);
    }

    /** Starts or ends keeping the keys the log changes, as the heartbeat row's column says. */
    private void followReading(ChangeEvent ev) {
        JsonNode column = ev.after() == null ? null : ev.after().get("reading");
        String table = column == null || !column.isTextual() ? null : column.asText();
        if (Objects.equals(table, reading)) {
            return;
        }
        if (reading != null) {
            LOG.info(
                    "Re-snapshot of {} ended: {} rows read again were older than changes the log"
                            + " delivered meanwhile, and were dropped",
                    reading,
                    droppedWhileReading);
        }
        List<Bytes> kept = new ArrayList<>();
        try (KeyValueIterator<Bytes, byte[]> it = changedWhileReading.all()) {
            it.forEachRemaining(kv -> kept.add(kv.key));
        }
        kept.forEach(changedWhileReading::delete);
        droppedWhileReading = 0;
        reading = table;
        if (table == null) {
            schemaStore.delete(READING_KEY);
        } else {
            schemaStore.put(READING_KEY, table.getBytes(StandardCharsets.UTF_8));
        }
    }

    /**
     * A {@code TRUNCATE} goes to every partition of the net changes as a table event of its
     * interval: the warehouse empties the table as of its position, inside that interval's
     * transaction, and applies the changes after it.
     */
    private void truncate(ChangeEvent ev, Record<byte[], byte[]> record) {
        stats.countTruncate();
        Interval interval = intervalOf(ev);
        forwardTableEvent(TableEvent.Kind.TRUNCATE, ev, ev.position(), interval, record);
        LOG.info("TRUNCATE of {} at {}: passed on to the warehouse", ev.table(), ev.position());
    }

    /**
     * A row cdc-lab's event trigger logged for a rename or drop becomes a table event at its
     * position; a row logged when a table was read again ({@code snapshot}) becomes one at the
     * position the reading began, which it carries. Rows read by a snapshot are history from before
     * capture started, and ignored.
     */
    private void ddl(ChangeEvent ev, Record<byte[], byte[]> record) {
        if (ev.op() != 'c' || ev.after() == null) {
            return;
        }
        JsonNode kind = ev.after().get("kind");
        JsonNode name = ev.after().get("name");
        JsonNode newName = ev.after().get("new_name");
        if (kind == null || name == null || !name.isTextual()) {
            return;
        }
        TableEvent.Kind k =
                switch (kind.asText()) {
                    case "rename" -> TableEvent.Kind.RENAME;
                    case "drop" -> TableEvent.Kind.DROP;
                    case "snapshot" -> TableEvent.Kind.SNAPSHOT;
                    case "rename_column" -> TableEvent.Kind.RENAME_COLUMN;
                    case "add_column" -> TableEvent.Kind.ADD_COLUMN;
                    case "alter_type" -> TableEvent.Kind.ALTER_COLUMN_TYPE;
                    case "key_change" -> TableEvent.Kind.KEY_CHANGE;
                    default -> null;
                };
        boolean needsDetail = k == TableEvent.Kind.RENAME || k == TableEvent.Kind.SNAPSHOT;
        if (k == null || (needsDetail && (newName == null || !newName.isTextual()))) {
            return;
        }
        JsonNode column = ev.after().get("old_column");
        JsonNode newColumn = ev.after().get("new_column");
        if (k == TableEvent.Kind.RENAME_COLUMN
                && (column == null
                        || !column.isTextual()
                        || newColumn == null
                        || !newColumn.isTextual())) {
            return;
        }
        boolean typed = k == TableEvent.Kind.ADD_COLUMN || k == TableEvent.Kind.ALTER_COLUMN_TYPE;
        if (typed && (newColumn == null || !newColumn.isTextual())) {
            return;
        }
        String detail = null;
        if (typed) {
            com.fasterxml.jackson.databind.node.ObjectNode d =
                    com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
            for (String f :
                    List.of(
                            "type_name",
                            "type_mod",
                            "type_text",
                            "default_text",
                            "volatile_default",
                            "old_type_text")) {
                JsonNode v = ev.after().get(f);
                if (v != null && !v.isNull()) {
                    d.set(f, v);
                }
            }
            detail = d.toString();
        }
        Interval interval = intervalOf(ev);
        TableEvent event =
                new TableEvent(
                        k,
                        name.asText(),
                        k == TableEvent.Kind.SNAPSHOT ? newName.asText() : ev.position(),
                        ev.transaction(),
                        ev.commitMs(),
                        interval.startMs(),
                        interval.endMs(),
                        k == TableEvent.Kind.RENAME ? newName.asText() : null,
                        k == TableEvent.Kind.RENAME_COLUMN
                                ? column.asText()
                                : typed ? newColumn.asText() : null,
                        k == TableEvent.Kind.RENAME_COLUMN ? newColumn.asText() : null,
                        detail);
        context.forward(
                new Record<>(
                        NetChangeCodec.key(event),
                        NetChangeCodec.encode(event),
                        record.timestamp()),
                NetChangeTopology.NET_CHANGES_SINK);
        LOG.info(
                "{} of {} at {}: passed on to the warehouse",
                k == TableEvent.Kind.RENAME
                        ? "RENAME to " + newName.asText()
                        : k == TableEvent.Kind.RENAME_COLUMN
                                ? "RENAME COLUMN " + column.asText() + " to " + newColumn.asText()
                                : typed
                                        ? k.code() + " " + newColumn.asText() + " " + detail
                                        : k.code(),
                name.asText(),
                event.position());
    }

    /**
     * A row over {@code max.row.bytes}, which capture sent without its images: dead-lettered with
     * its table, key and size, and passed on as a table event of its window, so that the warehouse
     * marks the table diverged. Everything else goes on.
     */
    private void tooLarge(ChangeEvent ev, Record<byte[], byte[]> record) {
        String key = ev.keyless() ? "(no key)" : ev.key().toString();
        deadLetter(
                record,
                "row of "
                        + ev.table()
                        + " key "
                        + key
                        + " at "
                        + ev.position()
                        + " is "
                        + ev.tooLargeBytes()
                        + " bytes, over max.row.bytes: not applied");
        Interval interval = intervalOf(ev);
        TableEvent event =
                new TableEvent(
                        TableEvent.Kind.ROW_TOO_LARGE,
                        ev.table(),
                        ev.position(),
                        ev.transaction(),
                        ev.commitMs(),
                        interval.startMs(),
                        interval.endMs(),
                        null,
                        key,
                        Long.toString(ev.tooLargeBytes()));
        context.forward(
                new Record<>(
                        NetChangeCodec.key(event),
                        NetChangeCodec.encode(event),
                        record.timestamp()),
                NetChangeTopology.NET_CHANGES_SINK);
    }

    /**
     * A change of a table without a key cannot be folded: it is passed on as it is, to be applied
     * in source order. Changes can share a log position (the rows of one {@code COPY} page, every
     * row of a snapshot), so each gets its change-topic offset after it: the table's events share
     * one partition, in source order. A table event before the first row of a snapshot replaces
     * whatever an earlier, interrupted snapshot of the table wrote.
     */
    private void passKeyless(ChangeEvent ev, Record<byte[], byte[]> record) {
        stats.countRaw(ev.table(), ev.snapshot());
        stats.countKeyless();
        Interval interval = intervalOf(ev);
        if (ev.snapshot() && !ev.position().equals(snapshotsStarted.get(ev.table()))) {
            snapshotsStarted.put(ev.table(), ev.position());
            forwardTableEvent(
                    TableEvent.Kind.SNAPSHOT,
                    ev,
                    ev.position() + SourcePosition.OFFSET_SEPARATOR,
                    interval,
                    record);
        }
        long nth = lsnEvent(record);
        long place =
                nth > 0 && !ev.snapshot()
                        ? nth
                        : context.recordMetadata().map(RecordMetadata::offset).orElse(0L);
        String position = SourcePosition.withOffset(ev.position(), place);
        emit(NetChangeFolder.keyless(ev, interval, position, System.currentTimeMillis()), record);
    }

    /**
     * Which of the changes at its log position a change of a table without a key is, as capture
     * marks it ({@link ChangeKeyFields#LSN_EVENT_HEADER}); 0 when unmarked. Debezium sends a change
     * again after a restart with the same count at another offset of the change topic, so the
     * count, not the offset, tells it from the changes around it: the warehouse applies it once.
     */
    private static long lsnEvent(Record<byte[], byte[]> record) {
        org.apache.kafka.common.header.Header h =
                record.headers().lastHeader(ChangeKeyFields.LSN_EVENT_HEADER);
        if (h == null || h.value() == null) {
            return 0;
        }
        try {
            return Long.parseLong(new String(h.value(), StandardCharsets.UTF_8).trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * After the last row a snapshot read of a table with a key, a table event just before the
     * snapshot's position: a row the warehouse holds from before the snapshot that it did not read
     * again is gone from the source. (A connector stopped before it first committed its offsets
     * reads every table again, and rows deleted in between would otherwise stay.) A table the
     * snapshot found empty gets the same event, from the record saying so.
     */
    private void tableRead(ChangeEvent last, Record<byte[], byte[]> record) {
        if (snapshotFirst != null) {
            snapshotFirst = null;
            schemaStore.delete(SNAPSHOT_FIRST_KEY);
        }
        forwardTableEvent(
                TableEvent.Kind.SNAPSHOT,
                last,
                SourcePosition.commitStart(last.position()),
                place(last),
                record);
    }

    /** Holds the snapshot's first row, in the store too: its record, read again on a restart. */
    private void holdFirst(ChangeEvent ev, Record<byte[], byte[]> record) {
        snapshotFirst = ev;
        byte[] key = record.key();
        byte[] value = record.value();
        int keyLength = key == null ? -1 : key.length;
        ByteBuffer b = ByteBuffer.allocate(12 + Math.max(keyLength, 0) + value.length);
        b.putLong(record.timestamp()).putInt(keyLength);
        if (key != null) {
            b.put(key);
        }
        b.put(value);
        schemaStore.put(SNAPSHOT_FIRST_KEY, b.array());
    }

    private ChangeEvent heldFirst(byte[] held) {
        ByteBuffer b = ByteBuffer.wrap(held);
        long timestamp = b.getLong();
        int keyLength = b.getInt();
        byte[] key = null;
        if (keyLength >= 0) {
            key = new byte[keyLength];
            b.get(key);
        }
        byte[] value = new byte[b.remaining()];
        b.get(value);
        return reader.read(key, value, timestamp);
    }

    private void forwardTableEvent(
            TableEvent.Kind kind,
            ChangeEvent ev,
            String position,
            Interval interval,
            Record<byte[], byte[]> record) {
        TableEvent event =
                new TableEvent(
                        kind,
                        ev.table(),
                        position,
                        ev.transaction(),
                        ev.commitMs(),
                        interval.startMs(),
                        interval.endMs());
        context.forward(
                new Record<>(
                        NetChangeCodec.key(event),
                        NetChangeCodec.encode(event),
                        record.timestamp()),
                NetChangeTopology.NET_CHANGES_SINK);
    }

    /**
     * The interval of the change's transaction, or, when that one is closed already, the earliest
     * one still open (counted as late).
     */
    private Interval intervalOf(ChangeEvent ev) {
        Interval interval = policy.assign(ev, openKey);
        if (!policy.isClosed(interval, closedThrough)) {
            return interval;
        }
        stats.countLate();
        if (replayInItsOwnWindow(ev)) {
            return interval;
        }
        long now = System.currentTimeMillis();
        if (now - lastLateWarning > 10_000) {
            lastLateWarning = now;
            LOG.warn(
                    "Change to {} committed at {} arrived after its interval closed (closed"
                            + " through {}); folded into the next open interval. Raise"
                            + " 'grace' if this repeats.",
                    ev.tableKey(),
                    ev.commitMs(),
                    closedThrough);
        }
        return policy.earliestOpen(closedThrough);
    }

    /** As {@link #intervalOf}, for an event placed after a change already counted. */
    private Interval place(ChangeEvent ev) {
        Interval interval = policy.assign(ev, openKey);
        return policy.isClosed(interval, closedThrough) && !replayInItsOwnWindow(ev)
                ? policy.earliestOpen(closedThrough)
                : interval;
    }

    /**
     * Whether a change whose window is closed keeps that window: with a window per transaction (its
     * partition in commit order) such a change is read again after the task was restored, and its
     * first copy may never have reached Kafka (its partition offline past the delivery timeout,
     * while the marker closing the window reached the others). Moved to a later window, it would
     * split its transaction across two warehouse transactions; in its own, the marker that closes
     * it on its partition comes after it.
     */
    private boolean replayInItsOwnWindow(ChangeEvent ev) {
        return policy instanceof WindowPolicy.TransactionWindows
                && ev.windowKey() != Long.MIN_VALUE;
    }

    private void fold(ChangeEvent ev, Record<byte[], byte[]> record) {
        stats.countRaw(ev.table(), ev.snapshot());
        Interval interval = intervalOf(ev);
        boolean late = ev.commitMs() < interval.startMs();
        if (heldFrom != Long.MIN_VALUE) {
            // a change of a transaction before the held window is a replay of one emitted already
            late = ev.windowKey() != Long.MIN_VALUE && ev.windowKey() < heldFrom;
            heldNewest = Math.max(heldNewest, ev.windowKey());
            interval = new Interval(heldFrom, heldNewest + 1, 0);
            heldRaw++;
        } else if (mode == NetChangeMode.OFF || policy instanceof WindowPolicy.TransactionWindows) {
            // a window per transaction holds nothing worth folding here: the sink folds every
            // window it applies at once, and nothing is kept that a crash could lose
            emit(
                    NetChangeFolder.passThrough(ev, interval, System.currentTimeMillis(), mode),
                    record);
            return;
        }
        Schemas.Described schema = ev.schema();
        if (!schemas.containsKey(schema.id())) {
            schemaStore.put(schema.id(), schema.json());
            schemas.put(schema.id(), schema);
        }
        Bytes key = Bytes.wrap(PendingCodec.key(interval, ev.tableKey()));
        Cached cached = open.get(key);
        PendingChange prev = cached == null ? null : cached.change();
        boolean overflowed = false;
        if (cached == null && overflowKeys > 0) {
            byte[] stored = overflow.get(key);
            if (stored != null) {
                prev = PendingCodec.decode(stored, this::schema);
                overflowed = true;
            }
        }
        PendingChange next = NetChangeFolder.fold(prev, ev, interval, late);
        byte[] encoded = PendingCodec.encode(next);
        if (overflowed) {
            overflow.put(key, encoded);
        } else if (cached != null || cachedBytes + encoded.length <= heapBytes) {
            open.put(key, new Cached(next, encoded.length));
            cachedBytes += encoded.length - (cached == null ? 0 : cached.bytes());
            pending.put(key, encoded);
        } else {
            overflow.put(key, encoded);
            overflowKeys++;
            stats.countOverflowed();
        }
        countOpenKeys();
    }

    private void countOpenKeys() {
        openKeys.lazySet(open.size() + overflowKeys);
    }

    /**
     * Emits the net changes of every window the bound completes; the marker saying so follows.
     *
     * @param sourceMs the commit time the closed windows reach
     */
    private void close(long bound, long sourceMs) {
        if (bound <= closedThrough) {
            return;
        }
        if (!open.isEmpty() || overflowKeys > 0) {
            // a held window ends where it closes, whatever its changes' intervals say
            emitClosedWindows(
                    policy.maxClosedStart(bound),
                    heldFrom != Long.MIN_VALUE ? bound : Long.MIN_VALUE);
        }
        closedThrough = bound;
        closedSourceMs = Math.max(closedSourceMs, sourceMs);
        stats.closedThrough(closedSourceMs);
        countOpenKeys();
        markerDue = true;
    }

    /**
     * Emits and forgets the state of every window starting at or before {@code maxStart}, as
     * windows ending at {@code endMs} unless that is {@link Long#MIN_VALUE}.
     */
    private void emitClosedWindows(long maxStart, long endMs) {
        List<Map.Entry<Bytes, Cached>> done = new ArrayList<>();
        for (Map.Entry<Bytes, Cached> e : open.entrySet()) {
            if (e.getValue().change().interval().startMs() <= maxStart) {
                done.add(e);
            }
        }
        // key order (interval, then table and key), as a scan of the store would give
        done.sort(Map.Entry.comparingByKey());
        long now = System.currentTimeMillis();
        ArrayDeque<Map.Entry<Bytes, Cached>> cachedDone = new ArrayDeque<>(done);
        boolean emitted = !done.isEmpty();
        if (overflowKeys > 0) {
            // every key below the first one of the interval starting after maxStart
            Bytes to = Bytes.wrap(PendingCodec.lowerBound(maxStart + 1));
            long before = overflowKeys;
            forEachBetween(
                    overflow,
                    afterKept(),
                    to,
                    kv -> {
                        while (!cachedDone.isEmpty()
                                && cachedDone.peekFirst().getKey().compareTo(kv.key) < 0) {
                            emitClosed(cachedDone.pollFirst().getValue().change(), endMs, now);
                        }
                        emitClosed(PendingCodec.decode(kv.value, this::schema), endMs, now);
                        if (!keepUntilCommitted) {
                            overflow.delete(kv.key);
                        }
                        overflowKeys--;
                    });
            emitted |= overflowKeys < before;
        }
        cachedDone.forEach(e -> emitClosed(e.getValue().change(), endMs, now));
        for (Map.Entry<Bytes, Cached> e : done) {
            if (!keepUntilCommitted) {
                pending.delete(e.getKey());
            }
            cachedBytes -= e.getValue().bytes();
        }
        done.forEach(e -> open.remove(e.getKey()));
        if (keepUntilCommitted && emitted) {
            keep(maxStart);
        }
    }

    /** The first store key after the kept windows: null when none is kept. */
    private Bytes afterKept() {
        return keptThrough == Long.MIN_VALUE
                ? null
                : Bytes.wrap(PendingCodec.lowerBound(keptThrough + 1));
    }

    /**
     * Keeps the state of every window starting at or before {@code maxStart}, just emitted, until
     * the input is committed past the change being processed.
     */
    private void keep(long maxStart) {
        keptThrough = Math.max(keptThrough, maxStart);
        progress.put(KEPT_THROUGH_KEY, keptThrough);
        kept.addLast(
                new long[] {
                    context.recordMetadata().map(RecordMetadata::offset).orElseThrow(), keptThrough
                });
    }

    /** Deletes the kept state of every close whose output Streams has committed. */
    private void forgetCommitted() {
        if (kept.isEmpty() || input == null) {
            return;
        }
        long committed = CommittedInput.of(input);
        long through = Long.MIN_VALUE;
        while (!kept.isEmpty() && kept.peekFirst()[0] < committed) {
            through = kept.pollFirst()[1];
        }
        if (through != Long.MIN_VALUE) {
            deleteThrough(through);
        }
    }

    /** Deletes the state of every window starting at or before {@code through}. */
    private void deleteThrough(long through) {
        Bytes to = Bytes.wrap(PendingCodec.lowerBound(through + 1));
        forEachBetween(pending, null, to, kv -> pending.delete(kv.key));
        forEachBetween(overflow, null, to, kv -> overflow.delete(kv.key));
    }

    /**
     * A task restored with closed windows' state cannot tell whether their output reached Kafka: it
     * emits them again (the warehouse ignores a change it has applied), and keeps them until that
     * is committed; under exactly_once_v2 (after a run under at_least_once) it forgets them in the
     * transaction that emits them.
     */
    private void emitKeptAgain() {
        emitKeptAgain = false;
        Bytes to = afterKept();
        long now = System.currentTimeMillis();
        long[] count = {0};
        Consumer<KeyValue<Bytes, byte[]>> again =
                kv -> {
                    emitClosed(PendingCodec.decode(kv.value, this::schema), Long.MIN_VALUE, now);
                    count[0]++;
                };
        forEachBetween(pending, null, to, again);
        forEachBetween(overflow, null, to, again);
        if (count[0] > 0) {
            if (keepUntilCommitted) {
                keep(keptThrough);
            } else {
                deleteThrough(keptThrough);
            }
            markerDue = true;
            LOG.info(
                    "Task {} emitted again the net changes of {} keys of windows closed before it"
                            + " was restored, whose output may not have reached Kafka",
                    task,
                    count[0]);
        }
    }

    /**
     * Calls {@code action} on every entry of {@code store} from {@code from} (null: the first) to
     * below {@code to}, in key order, read in chunks so that the action may delete them.
     */
    private static void forEachBetween(
            KeyValueStore<Bytes, byte[]> store,
            Bytes from,
            Bytes to,
            Consumer<KeyValue<Bytes, byte[]>> action) {
        List<KeyValue<Bytes, byte[]>> chunk = new ArrayList<>(OVERFLOW_CHUNK);
        do {
            chunk.clear();
            try (KeyValueIterator<Bytes, byte[]> it = store.range(from, to)) {
                while (chunk.size() < OVERFLOW_CHUNK && it.hasNext()) {
                    chunk.add(it.next());
                }
            }
            chunk.forEach(action);
            if (!chunk.isEmpty()) {
                // the smallest key after the last one read
                byte[] last = chunk.get(chunk.size() - 1).key.get();
                from = Bytes.wrap(Arrays.copyOf(last, last.length + 1));
            }
        } while (chunk.size() == OVERFLOW_CHUNK);
    }

    /**
     * The marker of the windows closed since the last one, once {@code marker.interval} has passed
     * (or at once when it is zero): windows cut at every transaction close a thousand times a
     * second, and the sink needs to hear of them far less often.
     */
    private void emitMarkerIfDue(boolean punctuation) {
        if (!markerDue) {
            return;
        }
        long now = System.nanoTime();
        if (now - lastMarkerNanos < markerIntervalNanos) {
            return;
        }
        markerDue = false;
        lastMarkerNanos = now;
        progress.put(task, closedThrough);
        IntervalMarker marker =
                new IntervalMarker(task, tasks, closedThrough, closedSourceMs, windows);
        long ts = punctuation ? System.currentTimeMillis() : lastTimestamp;
        context.forward(
                new Record<>(NetChangeCodec.key(marker), NetChangeCodec.encode(marker), ts),
                NetChangeTopology.NET_CHANGES_SINK);
    }

    private void emitClosed(PendingChange p, long endMs, long now) {
        if (endMs != Long.MIN_VALUE) {
            p = p.endingAt(endMs);
        }
        Optional<NetChange> change = NetChangeFolder.close(p, mode, now);
        if (change.isPresent()) {
            emit(change.get(), null);
        } else {
            stats.countVanished(p.table(), p.rawChanges());
        }
    }

    private Schemas.Described schema(long id) {
        Schemas.Described d = schemas.get(id);
        if (d == null) {
            byte[] json = schemaStore.get(id);
            if (json == null) {
                return null;
            }
            d = new Schemas.Described(Schemas.fromJson(json), id, json);
            schemas.put(id, d);
        }
        return d;
    }

    private void emit(NetChange change, Record<byte[], byte[]> source) {
        long ts = source == null ? change.commitMs() : source.timestamp();
        context.forward(
                new Record<>(NetChangeCodec.key(change), NetChangeCodec.encode(change), ts),
                NetChangeTopology.NET_CHANGES_SINK);
        stats.countNet(change.table());
    }

    private void deadLetter(Record<byte[], byte[]> record, String reason) {
        stats.countDeadLetter();
        RecordMetadata md = context.recordMetadata().orElse(null);
        LOG.error(
                "Unreadable change event at {}-{}@{}: {}; sent to the dead-letter topic",
                md == null ? "?" : md.topic(),
                md == null ? -1 : md.partition(),
                md == null ? -1 : md.offset(),
                reason);
        Record<byte[], byte[]> out = new Record<>(record.key(), record.value(), record.timestamp());
        out.headers().add("cdclab.error", reason.getBytes(StandardCharsets.UTF_8));
        if (md != null) {
            out.headers()
                    .add(
                            "cdclab.source",
                            (md.topic() + "-" + md.partition() + "@" + md.offset())
                                    .getBytes(StandardCharsets.UTF_8));
        }
        context.forward(out, NetChangeTopology.DEAD_LETTER_SINK);
    }

    @Override
    public void close() {
        stats.forgetTask(task);
    }
}
