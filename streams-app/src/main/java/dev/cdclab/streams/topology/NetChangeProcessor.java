package dev.cdclab.streams.topology;

import dev.cdclab.change.IntervalMarker;
import dev.cdclab.change.MalformedRecordException;
import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetChangeCodec;
import dev.cdclab.change.NetChangeMode;
import dev.cdclab.change.Schemas;
import dev.cdclab.streams.debezium.ChangeEvent;
import dev.cdclab.streams.debezium.DebeziumEventReader;
import dev.cdclab.streams.fold.Interval;
import dev.cdclab.streams.fold.IntervalClock;
import dev.cdclab.streams.fold.NetChangeFolder;
import dev.cdclab.streams.fold.PendingChange;
import dev.cdclab.streams.fold.PendingCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Folds Debezium change events into per-key, per-interval state. Its partition arrives in source
 * commit order, so the newest commit time seen (data or heartbeat) is a watermark: once it passes
 * an interval's end by the grace, the interval's net changes are emitted, followed by an {@link
 * IntervalMarker} on every output partition.
 *
 * <p>The open intervals' state lives decoded in a map of the processor's own and is written through
 * to the changelogged store, which restores the map after a restart or rebalance: each change costs
 * one hash lookup and one store write, never a decode.
 */
final class NetChangeProcessor implements Processor<byte[], byte[], byte[], byte[]> {
    private static final Logger LOG = LoggerFactory.getLogger(NetChangeProcessor.class);

    private final String heartbeatTable;
    private final long graceMs;
    private final IntervalClock clock;
    private final NetChangeMode mode;
    private final int tasks;
    private final DebeziumEventReader reader;
    private final NetChangeStats stats;
    private ProcessorContext<byte[], byte[]> context;
    private KeyValueStore<Bytes, byte[]> pending;
    private KeyValueStore<Integer, Long> progress;
    private KeyValueStore<Long, byte[]> schemaStore;
    private final Map<Long, Schemas.Described> schemas = new HashMap<>();
    private final Map<Bytes, PendingChange> open = new HashMap<>();
    private int task;
    private long closedThrough;
    private long watermark = Long.MIN_VALUE;
    private long lastLateWarning;

    NetChangeProcessor(
            String heartbeatTable,
            long graceMs,
            IntervalClock clock,
            NetChangeMode mode,
            int tasks,
            DebeziumEventReader reader,
            NetChangeStats stats) {
        this.heartbeatTable = heartbeatTable;
        this.graceMs = graceMs;
        this.clock = clock;
        this.mode = mode;
        this.tasks = tasks;
        this.reader = reader;
        this.stats = stats;
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        this.context = context;
        this.pending = context.getStateStore(NetChangeTopology.PENDING_STORE);
        this.progress = context.getStateStore(NetChangeTopology.PROGRESS_STORE);
        this.schemaStore = context.getStateStore(NetChangeTopology.SCHEMA_STORE);
        this.task = context.taskId().partition();
        Long restored = progress.get(task);
        this.closedThrough = restored == null ? Long.MIN_VALUE : restored;
        // init runs again when a task is revived: the store is the truth
        open.clear();
        schemas.clear();
        try (KeyValueIterator<Bytes, byte[]> it = pending.all()) {
            while (it.hasNext()) {
                KeyValue<Bytes, byte[]> kv = it.next();
                open.put(kv.key, PendingCodec.decode(kv.value, this::schema));
            }
        }
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        ChangeEvent ev;
        try {
            ev = reader.read(record.key(), record.value(), record.timestamp());
        } catch (MalformedRecordException e) {
            deadLetter(record, e.getMessage());
            return;
        }
        if (ev == null) {
            return;
        }
        if (ev.table().equals(heartbeatTable)) {
            stats.countHeartbeat();
        } else {
            fold(ev, record);
        }
        if (ev.commitMs() > watermark) {
            watermark = ev.commitMs();
            long bound = clock.boundary(watermark - graceMs);
            if (bound > closedThrough) {
                close(bound, record.timestamp());
            }
        }
    }

    private void fold(ChangeEvent ev, Record<byte[], byte[]> record) {
        stats.countRaw(ev.table(), ev.snapshot());
        Interval interval = clock.assign(ev.commitMs(), ev.transactionNumber());
        if (clock.isClosed(interval, closedThrough)) {
            interval = clock.earliestOpen(closedThrough, ev.transactionNumber());
            stats.countLate();
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
        }
        if (mode == NetChangeMode.OFF) {
            emit(NetChangeFolder.passThrough(ev, interval, System.currentTimeMillis()), record);
            return;
        }
        Schemas.Described schema = ev.schema();
        if (!schemas.containsKey(schema.id())) {
            schemaStore.put(schema.id(), schema.json());
            schemas.put(schema.id(), schema);
        }
        Bytes key = Bytes.wrap(PendingCodec.key(interval, ev.tableKey()));
        PendingChange next = NetChangeFolder.fold(open.get(key), ev, interval);
        open.put(key, next);
        pending.put(key, PendingCodec.encode(next));
    }

    private void close(long bound, long timestamp) {
        if (bound <= closedThrough) {
            return;
        }
        long maxStart = clock.maxClosedStart(bound);
        List<Map.Entry<Bytes, PendingChange>> done = new ArrayList<>();
        for (Map.Entry<Bytes, PendingChange> e : open.entrySet()) {
            if (e.getValue().interval().startMs() <= maxStart) {
                done.add(e);
            }
        }
        // key order (interval, then table and key), as a scan of the store would give
        done.sort(Map.Entry.comparingByKey());
        long now = System.currentTimeMillis();
        for (Map.Entry<Bytes, PendingChange> e : done) {
            PendingChange p = e.getValue();
            Optional<NetChange> change = NetChangeFolder.close(p, mode, now);
            if (change.isPresent()) {
                emit(change.get(), null);
            } else {
                stats.countVanished(p.table(), p.rawChanges());
            }
        }
        for (Map.Entry<Bytes, PendingChange> e : done) {
            pending.delete(e.getKey());
        }
        done.forEach(e -> open.remove(e.getKey()));
        closedThrough = bound;
        progress.put(task, bound);
        stats.closedThrough(bound);
        IntervalMarker marker = new IntervalMarker(task, tasks, bound);
        context.forward(
                new Record<>(NetChangeCodec.key(marker), NetChangeCodec.encode(marker), timestamp),
                NetChangeTopology.NET_CHANGES_SINK);
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
}
