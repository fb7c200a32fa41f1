package dev.cdclab.streams.testing;

import dev.cdclab.change.EmptyTableHeaders;
import dev.cdclab.change.IntervalMarker;
import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetChangeCodec;
import dev.cdclab.change.NetChangeRecord;
import dev.cdclab.change.TableEvent;
import dev.cdclab.streams.NetChangeConfig;
import dev.cdclab.streams.topology.NetChangeStats;
import dev.cdclab.streams.topology.NetChangeTopology;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/** The net-change topology in a TopologyTestDriver, with readers for what it emits. */
public final class TopologyHarness implements AutoCloseable {
    private final TopologyTestDriver driver;
    private final TestInputTopic<byte[], byte[]> input;
    private final TestOutputTopic<byte[], byte[]> output;
    private final TestOutputTopic<byte[], byte[]> deadLetters;
    private final NetChangeStats stats = new NetChangeStats();
    private final List<NetChange> changes = new ArrayList<>();
    private final List<IntervalMarker> markers = new ArrayList<>();
    private final List<TableEvent> tableEvents = new ArrayList<>();
    private final List<NetChangeRecord> all = new ArrayList<>();
    private final DebeziumEvents events;
    private long lsn = 1000;
    private long heartbeatTx = 1_000_000;

    /** How long before now the records piped are appended; null: 10 ms after their commit. */
    private Duration appendedAgo;

    /**
     * @param settings net-change settings on top of bootstrap servers and a temp state dir
     */
    public TopologyHarness(Map<String, String> settings) {
        this(settings, false);
    }

    /**
     * @param settings net-change settings on top of bootstrap servers and a temp state dir
     * @param flat true feeds flat rows (ExtractNewRecordState) instead of Debezium's envelope
     */
    public TopologyHarness(Map<String, String> settings, boolean flat) {
        this.events = new DebeziumEvents(flat);
        Path state;
        try {
            state = Files.createTempDirectory("ttd-state");
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
        Map<String, String> raw = new java.util.HashMap<>(settings);
        raw.put("bootstrap.servers", "unused:9092");
        raw.put("state.dir", state.toString());
        raw.putIfAbsent("application.id", "ttd-" + System.nanoTime());
        // a marker at every close, so tests see them when they happen
        raw.putIfAbsent("marker.interval", "0");
        // records are stamped 10 ms after commit times years ago: to the app they all look far
        // behind, so tests of folding while behind turn it on and say when records are appended
        raw.putIfAbsent("behind.lag", "0");
        NetChangeConfig config = NetChangeConfig.of(raw);
        Properties props = NetChangeTopology.streamsProperties(config);
        driver = new TopologyTestDriver(NetChangeTopology.buildTopology(config, stats), props);
        input =
                driver.createInputTopic(
                        config.changeTopic(), new ByteArraySerializer(), new ByteArraySerializer());
        output =
                driver.createOutputTopic(
                        config.get(NetChangeConfig.NET_CHANGES_TOPIC),
                        new ByteArrayDeserializer(),
                        new ByteArrayDeserializer());
        deadLetters =
                driver.createOutputTopic(
                        config.deadLetterTopic(),
                        new ByteArrayDeserializer(),
                        new ByteArrayDeserializer());
    }

    public DebeziumEvents events() {
        return events;
    }

    public NetChangeStats stats() {
        return stats;
    }

    /**
     * Stamps the records piped from now on as appended {@code ago} before the wall clock, as Kafka
     * would for a reader that far behind; null goes back to 10 ms after their commit.
     */
    public void appendedAgo(Duration ago) {
        this.appendedAgo = ago;
    }

    private long stamp(long commitMs) {
        return appendedAgo == null
                ? commitMs + 10
                : System.currentTimeMillis() - appendedAgo.toMillis();
    }

    /** Pipes one raw record. */
    public void send(byte[] key, byte[] value, long timestampMs) {
        input.pipeInput(new TestRecord<>(key, value, Instant.ofEpochMilli(timestampMs)));
    }

    /** A change to {@code public.items} with the next log position. */
    public long change(
            char op,
            Map<String, Object> before,
            Map<String, Object> after,
            long txId,
            long commitMs) {
        long l = lsn + 1;
        changeAt(op, before, after, txId, commitMs, l);
        return l;
    }

    /**
     * A change to {@code public.items} logged at {@code lsn}, which may lie before positions sent
     * already (a transaction's changes are logged when made, delivered when it commits).
     */
    public void changeAt(
            char op,
            Map<String, Object> before,
            Map<String, Object> after,
            long txId,
            long commitMs,
            long lsn) {
        int id = (Integer) (after != null ? after.get("id") : before.get("id"));
        this.lsn = Math.max(this.lsn, lsn);
        send(
                events.key(id),
                events.change(op, before, after, lsn, txId, commitMs),
                stamp(commitMs));
    }

    /**
     * Sends transaction {@code txId} as the first one the log delivers after a snapshot: Debezium
     * names no commit before it.
     */
    public void followingNoCommit(long txId) {
        events.followingNoCommit(txId);
    }

    /** A change of the keyless {@code public.log} at the next log position, or at {@code lsn}. */
    public long keyless(
            char op,
            Map<String, Object> before,
            Map<String, Object> after,
            long txId,
            long commitMs,
            Long lsnOrNull) {
        long l = lsnOrNull != null ? lsnOrNull : ++lsn;
        send(
                events.keylessKey("public.log"),
                events.keyless(op, before, after, l, txId, commitMs),
                stamp(commitMs));
        return l;
    }

    /**
     * A change of the keyless {@code public.log} at {@code lsn}, the {@code nth} there as capture
     * counts them ({@link dev.cdclab.change.ChangeKeyFields#LSN_EVENT_HEADER}).
     */
    public void keylessNth(
            char op,
            Map<String, Object> before,
            Map<String, Object> after,
            long txId,
            long commitMs,
            long lsn,
            long nth) {
        this.lsn = Math.max(this.lsn, lsn);
        TestRecord<byte[], byte[]> r =
                new TestRecord<>(
                        events.keylessKey("public.log"),
                        events.keyless(op, before, after, lsn, txId, commitMs),
                        Instant.ofEpochMilli(stamp(commitMs)));
        r.headers()
                .add(
                        dev.cdclab.change.ChangeKeyFields.LSN_EVENT_HEADER,
                        Long.toString(nth).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        input.pipeInput(r);
    }

    /**
     * The record capture writes in place of a change to {@code public.items} over {@code
     * max.row.bytes}: the change's event without its images, with the row's size.
     */
    public long tooLarge(char op, Map<String, Object> after, long txId, long commitMs, long bytes) {
        long l = lsn + 1;
        this.lsn = l;
        int id = (Integer) after.get("id");
        byte[] full = events.change(op, null, after, l, txId, commitMs);
        try {
            com.fasterxml.jackson.databind.ObjectMapper m =
                    new com.fasterxml.jackson.databind.ObjectMapper();
            com.fasterxml.jackson.databind.node.ObjectNode event =
                    (com.fasterxml.jackson.databind.node.ObjectNode) m.readTree(full);
            com.fasterxml.jackson.databind.node.ObjectNode payload =
                    (com.fasterxml.jackson.databind.node.ObjectNode) event.get("payload");
            boolean envelope = payload.has("source");
            if (envelope) {
                payload.putNull("before");
                payload.putNull("after");
            } else {
                payload.properties().removeIf(e -> !e.getKey().startsWith("__"));
            }
            payload.put(dev.cdclab.config.RowLimit.TOO_LARGE_FIELD, bytes);
            com.fasterxml.jackson.databind.node.ArrayNode fields =
                    (com.fasterxml.jackson.databind.node.ArrayNode)
                            event.get("schema").get("fields");
            for (java.util.Iterator<com.fasterxml.jackson.databind.JsonNode> it = fields.iterator();
                    it.hasNext(); ) {
                String f = it.next().get("field").asText();
                if (!envelope && !f.startsWith("__")) {
                    it.remove();
                }
            }
            fields.addObject()
                    .put("type", "int64")
                    .put("optional", false)
                    .put("field", dev.cdclab.config.RowLimit.TOO_LARGE_FIELD);
            send(events.key(id), m.writeValueAsBytes(event), stamp(commitMs));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return l;
    }

    /** A row of {@code public.items} a snapshot read at {@code lsn}, marked {@code mark}. */
    public void snapshotRead(Map<String, Object> after, long lsn, long commitMs, String mark) {
        // whatever the log delivers after a snapshot was logged after its position
        this.lsn = Math.max(this.lsn, lsn);
        int id = (Integer) after.get("id");
        send(events.key(id), events.snapshotRead(after, lsn, commitMs, mark), stamp(commitMs));
    }

    /**
     * The record the capture stage writes when the snapshot at {@code lsn} finds {@code table}
     * ({@code schema.table}) empty: a Debezium notification, marked by headers.
     */
    public void emptyTableScanned(String table, long lsn, long commitMs) {
        this.lsn = Math.max(this.lsn, lsn);
        RecordHeaders headers = new RecordHeaders();
        headers.add(EmptyTableHeaders.TABLE, table.getBytes(StandardCharsets.UTF_8));
        headers.add(EmptyTableHeaders.LSN, Long.toString(lsn).getBytes(StandardCharsets.UTF_8));
        byte[] key = "{\"id\":\"n1\"}".getBytes(StandardCharsets.UTF_8);
        byte[] value =
                ("{\"schema\":{\"type\":\"struct\",\"name\":"
                                + "\"io.debezium.connector.common.Notification\"},\"payload\":"
                                + "{\"aggregate_type\":\"Initial Snapshot\","
                                + "\"type\":\"TABLE_SCAN_COMPLETED\"}}")
                        .getBytes(StandardCharsets.UTF_8);
        input.pipeInput(
                new TestRecord<>(key, value, headers, Instant.ofEpochMilli(stamp(commitMs))));
    }

    /** A row of {@code public.items} an incremental snapshot read (no log position). */
    public void incrementalRead(Map<String, Object> after, long commitMs) {
        send(
                events.key((Integer) after.get("id")),
                events.incrementalRead(after, commitMs),
                stamp(commitMs));
    }

    /** The position the event reader gives the change sent at {@code lsn} in {@code txId}. */
    public String position(long txId, long lsn) {
        return events.position(txId, lsn);
    }

    /** The log position the next change would get. */
    public long lsn() {
        return lsn;
    }

    /** A truncate of {@code public.items} with the next log position. */
    public long truncate(long txId, long commitMs) {
        long l = ++lsn;
        send(
                events.keylessKey("public.items"),
                events.truncate("public", "items", l, txId, commitMs),
                stamp(commitMs));
        return l;
    }

    /** A row cdc-lab's event trigger logs: {@code op} c (a new DDL) or r (read by a snapshot). */
    public long ddl(char op, String kind, String name, String newName, long txId, long commitMs) {
        long l = ++lsn;
        send(
                events.ddlKey(l),
                events.ddl(op, l, kind, name, newName, l, txId, commitMs),
                stamp(commitMs));
        return l;
    }

    /** A heartbeat committed at {@code commitMs}: moves the watermark. */
    public void heartbeat(long commitMs) {
        heartbeat(commitMs, null);
    }

    /** A heartbeat saying which table a re-snapshot reads ({@code null}: none). */
    public void heartbeat(long commitMs, String reading) {
        send(
                events.heartbeatKey(1),
                events.heartbeat(1, ++lsn, ++heartbeatTx, commitMs, reading),
                stamp(commitMs));
    }

    /** Net changes emitted so far (drains the output topic). */
    public List<NetChange> changes() {
        drain();
        return changes;
    }

    /** Interval markers emitted so far. */
    public List<IntervalMarker> markers() {
        drain();
        return markers;
    }

    /** Table events emitted so far. */
    public List<TableEvent> tableEvents() {
        drain();
        return tableEvents;
    }

    /** Everything emitted so far, in order. */
    public List<NetChangeRecord> emitted() {
        drain();
        return all;
    }

    /** Records sent to the dead-letter topic, with their headers. */
    public List<TestRecord<byte[], byte[]>> deadLetters() {
        return deadLetters.readRecordsToList();
    }

    private void drain() {
        for (TestRecord<byte[], byte[]> r : output.readRecordsToList()) {
            NetChangeRecord rec = NetChangeCodec.decode(r.value());
            all.add(rec);
            if (rec instanceof NetChange c) {
                changes.add(c);
            } else if (rec instanceof TableEvent e) {
                tableEvents.add(e);
            } else {
                markers.add((IntervalMarker) rec);
            }
        }
    }

    /** Header value as text. */
    public static String header(Headers headers, String key) {
        var h = headers.lastHeader(key);
        return h == null ? null : new String(h.value(), java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        driver.close();
    }
}
