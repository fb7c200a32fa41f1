package dev.cdclab.chaos;

import dev.cdclab.capture.CaptureConfig;
import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetChangeCodec;
import dev.cdclab.change.NetChangeRecord;
import dev.cdclab.config.RunNames;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.orchestration.infra.ChildJvm;
import dev.cdclab.orchestration.infra.InfraSpec;
import dev.cdclab.orchestration.infra.ServiceFaults;
import dev.cdclab.orchestration.infra.WarehouseServer;
import dev.cdclab.orchestration.verify.VerificationResult;
import dev.cdclab.sink.SinkConfig;
import dev.cdclab.streams.NetChangeConfig;
import dev.cdclab.streams.debezium.ChangeEvent;
import dev.cdclab.streams.debezium.DebeziumEventReader;
import dev.cdclab.wait.Poll;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One scenario's pipeline, built to be hurt: the embedded source and broker, Connect, Streams and
 * the sink each in a process of its own (so each can be killed), a PostgreSQL warehouse (so it can
 * be read while another process writes it), a writer that keeps the source busy, and watchers that
 * record every failure the pipeline reports and every row that goes back in time.
 */
public final class ChaosLab implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChaosLab.class);

    /** The busy table: versions only go up, ids are never reused. */
    static final String ITEMS = "chaos_items";

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration RECOVERY_TIMEOUT = Duration.ofSeconds(180);

    private final Path work;
    private final String stageMain;
    private final Options options;
    private final List<AutoCloseable> started = new ArrayList<>();
    private final AtomicReference<String> failure = new AtomicReference<>();
    private final AtomicLong regressions = new AtomicLong();
    private final AtomicLong tornReads = new AtomicLong();
    private final AtomicLong consistentReads = new AtomicLong();
    private final AtomicLong markers = new AtomicLong();
    private final List<Long> recoveries = new CopyOnWriteArrayList<>();
    private final List<Long> sinceFaults = new CopyOnWriteArrayList<>();
    private volatile boolean watching = true;
    private WarehouseServer warehouse;
    private Pipeline pipeline;
    // read by the health watcher while a scenario restarts a process
    private final List<ChildJvm> streams = new CopyOnWriteArrayList<>();
    private final List<ChildJvm> sinks = new CopyOnWriteArrayList<>();
    private ChaosWriter writer;
    private int faults;
    // when the first fault since the last recovery was injected; -1 when none has been since
    private long roundStartNanos = -1;

    /**
     * What a scenario's pipeline is started with.
     *
     * @param instances Streams processes, and sink processes, sharing the partitions
     * @param partitions partitions of the change and net-change topics
     * @param kafkaNodes nodes of the Kafka cluster (3: every topic replicated 3 times)
     */
    public record Options(
            NetChangeConfig.Guarantee guarantee,
            List<String> sourceSql,
            List<String> sinkJvm,
            Map<String, String> capture,
            int instances,
            int partitions,
            int kafkaNodes) {
        static Options defaults() {
            return new Options(
                    NetChangeConfig.Guarantee.AT_LEAST_ONCE,
                    List.of(),
                    List.of(),
                    Map.of(),
                    1,
                    1,
                    1);
        }

        Options guarantee(NetChangeConfig.Guarantee g) {
            return new Options(g, sourceSql, sinkJvm, capture, instances, partitions, kafkaNodes);
        }

        Options sql(String... statements) {
            return new Options(
                    guarantee,
                    List.of(statements),
                    sinkJvm,
                    capture,
                    instances,
                    partitions,
                    kafkaNodes);
        }

        Options sinkJvm(String... jvmOptions) {
            return new Options(
                    guarantee,
                    sourceSql,
                    List.of(jvmOptions),
                    capture,
                    instances,
                    partitions,
                    kafkaNodes);
        }

        Options capture(String key, String value) {
            Map<String, String> m = new java.util.LinkedHashMap<>(capture);
            m.put(key, value);
            return new Options(guarantee, sourceSql, sinkJvm, m, instances, partitions, kafkaNodes);
        }

        /** {@code n} Streams processes and {@code n} sink processes sharing the partitions. */
        Options scaledOut(int n, int topicPartitions) {
            return new Options(
                    guarantee, sourceSql, sinkJvm, capture, n, topicPartitions, kafkaNodes);
        }

        /** A Kafka cluster of {@code nodes} nodes. */
        Options kafkaNodes(int nodes) {
            return new Options(
                    guarantee, sourceSql, sinkJvm, capture, instances, partitions, nodes);
        }
    }

    private ChaosLab(Path work, String stageMain, Options options) {
        this.work = work;
        this.stageMain = stageMain;
        this.options = options;
    }

    /** Starts everything and waits until a row written now reaches the warehouse. */
    static ChaosLab start(Path work, String runId, String stageMain, Options options) {
        ChaosLab lab = new ChaosLab(work, stageMain, options);
        try {
            lab.startAll(runId);
        } catch (RuntimeException e) {
            lab.close();
            throw e;
        }
        return lab;
    }

    private void startAll(String runId) {
        warehouse =
                WarehouseServer.start(
                        work.resolve("warehouse"), work.resolve("logs/warehouse.log"), true);
        started.add(warehouse);
        Pipeline.Builder b =
                Pipeline.builder()
                        .infrastructure(InfraSpec.embeddedForFaults(options.kafkaNodes()))
                        .workDir(work)
                        .runId(runId)
                        .shutdownHooks(false)
                        .interval(Duration.ofMillis(500))
                        .partitions(options.partitions())
                        .guarantee(options.guarantee())
                        .warehouseUrl(warehouse.jdbcUrl())
                        .sink(SinkConfig.WAREHOUSE_USER.key(), warehouse.user())
                        .sink(SinkConfig.WAREHOUSE_PASSWORD.key(), warehouse.password())
                        .without(List.of(Pipeline.Stage.STREAMS, Pipeline.Stage.SINK))
                        .beforeCapture(
                                src -> {
                                    try (Connection c = src.connect();
                                            Statement s = c.createStatement()) {
                                        s.execute(
                                                "CREATE TABLE "
                                                        + ITEMS
                                                        + " (id int PRIMARY KEY, version bigint NOT"
                                                        + " NULL, body text)");
                                        s.execute(
                                                "CREATE TABLE chaos_marker (id bigint PRIMARY KEY,"
                                                        + " at timestamptz NOT NULL DEFAULT now())");
                                        for (String sql : options.sourceSql()) {
                                            s.execute(sql);
                                        }
                                    }
                                });
        options.capture().forEach(b::capture);
        pipeline = b.build();
        started.add(pipeline);
        pipeline.start();
        for (int i = 0; i < options.instances(); i++) {
            streams.add(
                    stage(
                            instanceName("streams", i),
                            "streams",
                            pipeline.netChangeConfig().raw().toProperties(),
                            Map.of(),
                            List.of()));
        }
        awaitTopic(netChangeTopic(), READY_TIMEOUT);
        for (int i = 0; i < options.instances(); i++) {
            sinks.add(startSink(i, options.sinkJvm()));
        }
        try {
            writer = new ChaosWriter(pipeline.source());
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the accounts table: " + e.getMessage());
        }
        started.add(writer);
        Thread health = new Thread(this::watchHealth, "chaos-health");
        health.setDaemon(true);
        health.start();
        Thread versions = new Thread(this::watchVersions, "chaos-versions");
        versions.setDaemon(true);
        versions.start();
        Thread totals = new Thread(this::watchTotals, "chaos-totals");
        totals.setDaemon(true);
        totals.start();
        awaitMarker(READY_TIMEOUT);
    }

    /** Waits until the Streams process has created its output topic (the sink needs it). */
    private void awaitTopic(String topic, Duration timeout) {
        Properties p = new Properties();
        p.put("bootstrap.servers", pipeline.infrastructure().kafkaBootstrapServers());
        Poll poll = Poll.within(timeout).every(Duration.ofMillis(200));
        try (org.apache.kafka.clients.admin.Admin admin =
                org.apache.kafka.clients.admin.Admin.create(p)) {
            while (!admin.listTopics().names().get().contains(topic)) {
                if (!streams.get(0).alive() || poll.expired()) {
                    throw new IllegalStateException(
                            "the Streams process did not create "
                                    + topic
                                    + " (see "
                                    + streams.get(0).logFile()
                                    + ")");
                }
                poll.pause();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("cannot list topics: " + e.getMessage(), e);
        }
    }

    private ChildJvm startSink(int instance, List<String> jvm) {
        return stage(
                instanceName("sink", instance),
                "sink",
                pipeline.sinkConfig().raw().toProperties(),
                Map.of("CDCLAB_WAREHOUSE_PASSWORD", warehouse.password()),
                jvm);
    }

    /** The first instance has the stage's name; the others a number after it. */
    private static String instanceName(String stage, int instance) {
        return instance == 0 ? stage : stage + "-" + (instance + 1);
    }

    private ChildJvm stage(
            String name,
            String command,
            Map<String, String> settings,
            Map<String, String> env,
            List<String> jvm) {
        ChildJvm child =
                StageProcess.of(name, command, stageMain, work, settings, List.of(), env, jvm);
        started.add(child);
        return child.start();
    }

    // ---- faults ------------------------------------------------------------------------------

    ServiceFaults services() {
        return pipeline.infrastructure()
                .faults()
                .orElseThrow(() -> new IllegalStateException("no fault injection here"));
    }

    ChildJvm streamsProcess() {
        return streams.get(0);
    }

    ChildJvm sinkProcess() {
        return sinks.get(0);
    }

    /** Streams process {@code i} of {@link Options#instances()}, counted from 0. */
    ChildJvm streamsProcess(int i) {
        return streams.get(i);
    }

    /** Sink process {@code i} of {@link Options#instances()}, counted from 0. */
    ChildJvm sinkProcess(int i) {
        return sinks.get(i);
    }

    /** Counts one injected fault. */
    void fault(String what) {
        if (roundStartNanos < 0) {
            roundStartNanos = System.nanoTime();
        }
        faults++;
        LOG.info("fault {}: {}", faults, what);
    }

    int faults() {
        return faults;
    }

    ChaosWriter writer() {
        return writer;
    }

    Pipeline pipeline() {
        return pipeline;
    }

    Connection source() throws SQLException {
        return pipeline.source().connect();
    }

    Connection warehouse() throws SQLException {
        return warehouse.connect();
    }

    String slot() {
        return pipeline.captureConfig().get(CaptureConfig.SLOT);
    }

    String changeTopic() {
        return RunNames.changeTopic(pipeline.captureConfig().get(CaptureConfig.TOPIC_PREFIX));
    }

    String netChangeTopic() {
        return pipeline.netChangeConfig().get(NetChangeConfig.NET_CHANGES_TOPIC);
    }

    /** Sends raw bytes to a topic, as a broken producer would. */
    void produce(String topic, byte[] key, byte[] value) throws Exception {
        Properties p = new Properties();
        p.put(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                pipeline.infrastructure().kafkaBootstrapServers());
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topic, key, value)).get();
        }
    }

    /** The first failure the pipeline reported (null if none): connector failed, capture lost. */
    String failure() {
        return failure.get();
    }

    // ---- measuring ---------------------------------------------------------------------------

    /**
     * Waits until the pipeline has recovered from the faults injected so far: a marker row
     * committed now reaches the warehouse. A scenario calls it between rounds of faults, so that
     * each round's recovery is its own; the runner calls it after the last. It also times the round
     * from its first fault until the marker is in the warehouse.
     */
    void awaitRecovery() {
        long ms = awaitMarker(RECOVERY_TIMEOUT);
        recoveries.add(ms);
        if (roundStartNanos >= 0) {
            long sinceFault = (System.nanoTime() - roundStartNanos) / 1_000_000;
            sinceFaults.add(sinceFault);
            roundStartNanos = -1;
            LOG.info(
                    "recovered after {} fault(s) in {} ms, {} ms after the round's first fault",
                    faults,
                    ms,
                    sinceFault);
        } else {
            LOG.info("recovered after {} fault(s) in {} ms", faults, ms);
        }
    }

    /**
     * The member ids in the net-change app's and the sinks' consumer groups now. A scenario takes
     * them before it kills processes, to tell when the restarted ones have joined again.
     */
    Set<String> groupMembers() {
        Set<String> ids = new HashSet<>();
        try (Admin admin = groupAdmin()) {
            for (ConsumerGroupDescription g : describeGroups(admin).values()) {
                g.members().forEach(m -> ids.add(m.consumerId()));
            }
        }
        return ids;
    }

    /**
     * Waits until both groups are stable with every process in them again, at least one of each
     * under a member id not in {@code before}: a restarted process joins under a new one. A marker
     * getting through says only that the others took over; a round that kills the others before the
     * restarted ones are back takes a whole stage down.
     */
    void awaitRejoined(Set<String> before) {
        long t0 = System.nanoTime();
        Poll poll = Poll.within(RECOVERY_TIMEOUT).every(Duration.ofMillis(100));
        try (Admin admin = groupAdmin()) {
            Map<String, ConsumerGroupDescription> groups;
            while (!rejoined(groups = describeGroups(admin), before)) {
                if (poll.expired()) {
                    throw new IllegalStateException(
                            "the restarted processes did not join their groups within "
                                    + RECOVERY_TIMEOUT.toSeconds()
                                    + " s: "
                                    + groups);
                }
                poll.pause();
            }
        }
        LOG.info(
                "restarted processes back in their groups {} ms after the recovery",
                (System.nanoTime() - t0) / 1_000_000);
    }

    private boolean rejoined(Map<String, ConsumerGroupDescription> groups, Set<String> before) {
        for (ConsumerGroupDescription g : groups.values()) {
            long fresh = g.members().stream().filter(m -> !before.contains(m.consumerId())).count();
            if (g.groupState() != GroupState.STABLE
                    || g.members().size() < options.instances()
                    || fresh == 0) {
                return false;
            }
        }
        return true;
    }

    /** A Kafka admin client of this lab's cluster; the caller closes it. */
    private Admin groupAdmin() {
        Properties p = new Properties();
        p.put("bootstrap.servers", pipeline.infrastructure().kafkaBootstrapServers());
        return Admin.create(p);
    }

    /** The net-change app's and the sinks' consumer groups. */
    private Map<String, ConsumerGroupDescription> describeGroups(Admin admin) {
        List<String> ids =
                List.of(
                        pipeline.netChangeConfig().get(NetChangeConfig.APPLICATION_ID),
                        pipeline.sinkConfig().get(SinkConfig.GROUP_ID));
        try {
            return admin.describeConsumerGroups(ids).all().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(
                    "cannot describe the consumer groups: " + e.getMessage(), e);
        }
    }

    /** The longest of the recoveries measured, ms; -1 if none was. */
    long slowestRecovery() {
        return recoveries.stream().mapToLong(Long::longValue).max().orElse(-1);
    }

    /** The longest time from a round's first fault to its marker, ms; -1 if none was measured. */
    long longestSinceFault() {
        return sinceFaults.stream().mapToLong(Long::longValue).max().orElse(-1);
    }

    /**
     * Commits a marker row at the source and waits until the warehouse has it.
     *
     * @return how long that took, ms
     */
    private long awaitMarker(Duration timeout) {
        long id = markers.incrementAndGet();
        // rows with keys on every partition: the marker arrives only when every partition flows
        int rows = 8 * options.partitions();
        long t0 = System.nanoTime();
        Poll poll = Poll.within(timeout).every(Duration.ofMillis(100));
        while (true) {
            try (Connection c = source();
                    Statement s = c.createStatement()) {
                s.execute(
                        "INSERT INTO chaos_marker (id) SELECT "
                                + id
                                + " * 1000 + g FROM generate_series(1, "
                                + rows
                                + ") g");
                break;
            } catch (SQLException e) {
                if (poll.expired()) {
                    throw new IllegalStateException(
                            "source did not take a marker: " + e.getMessage());
                }
                poll.pause();
            }
        }
        while (!poll.expired()) {
            if (failure.get() != null) {
                throw new IllegalStateException("pipeline failed: " + failure.get());
            }
            try (Connection c = warehouse();
                    Statement s = c.createStatement();
                    ResultSet rs =
                            s.executeQuery(
                                    "SELECT count(*) FROM public.chaos_marker WHERE id / 1000 = "
                                            + id)) {
                if (rs.next() && rs.getLong(1) == rows) {
                    return (System.nanoTime() - t0) / 1_000_000;
                }
            } catch (SQLException e) {
                // the table is created with its first row
            }
            poll.pause();
        }
        throw new IllegalStateException(
                "a marker row did not reach the warehouse within " + timeout.toSeconds() + " s");
    }

    /**
     * Stops the writer and waits until the warehouse holds exactly the source's busy table.
     *
     * @return rows that differ at the end: missing, at another version, or back from the dead
     */
    long quietAndCount(Duration timeout) throws SQLException {
        writer.stop();
        Poll poll = Poll.within(timeout).every(Duration.ofMillis(500));
        long differing;
        do {
            differing = differingRows();
            if (differing == 0 || failure.get() != null) {
                return differing;
            }
            poll.pause();
        } while (!poll.expired());
        return differing;
    }

    private long differingRows() throws SQLException {
        Map<Integer, String> src = rows(this::source);
        Map<Integer, String> wh;
        try {
            wh = rows(this::warehouse);
        } catch (SQLException e) {
            wh = Map.of();
        }
        long diff = 0;
        for (var e : src.entrySet()) {
            if (!e.getValue().equals(wh.get(e.getKey()))) {
                diff++;
            }
        }
        for (Integer id : wh.keySet()) {
            if (!src.containsKey(id)) {
                diff++;
            }
        }
        return diff;
    }

    private interface Connector {
        Connection open() throws SQLException;
    }

    private static Map<Integer, String> rows(Connector db) throws SQLException {
        Map<Integer, String> out = new HashMap<>();
        try (Connection c = db.open();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT id, version, md5(coalesce(body, '-')) FROM public."
                                        + ITEMS)) {
            while (rs.next()) {
                out.put(rs.getInt(1), rs.getLong(2) + "/" + rs.getString(3));
            }
        }
        return out;
    }

    /** Times a warehouse row was seen at an older version than before, or back after deletion. */
    long regressions() {
        return regressions.get();
    }

    VerificationResult verify() throws SQLException {
        return pipeline.verify();
    }

    /**
     * Change events and net changes delivered more than once: the same row change (table, key,
     * source position) on the change topic, the same net change on the net-change topic.
     */
    long duplicatesDelivered() {
        DebeziumEventReader reader =
                new DebeziumEventReader(DebeziumEventReader.DEFAULT_PLACEHOLDER, null);
        Set<String> seen = new HashSet<>();
        long dup = 0;
        for (ConsumerRecord<byte[], byte[]> r : readAll(changeTopic())) {
            try {
                ChangeEvent e = reader.read(r.key(), r.value(), r.timestamp());
                if (e != null && !seen.add(e.table() + "/" + e.key() + "@" + e.position())) {
                    dup++;
                }
            } catch (RuntimeException ignored) {
                // not a change event (a malformed record a scenario sent); the DLQ counts it
            }
        }
        seen.clear();
        for (ConsumerRecord<byte[], byte[]> r : readAll(netChangeTopic())) {
            try {
                NetChangeRecord rec = NetChangeCodec.decode(r.value());
                if (rec instanceof NetChange c
                        && !seen.add(
                                c.tableKey() + "@" + c.lastPosition() + "#" + c.intervalEndMs())) {
                    dup++;
                }
            } catch (RuntimeException ignored) {
                // a malformed record a scenario sent
            }
        }
        return dup;
    }

    /** Starts the sink process again, with these extra JVM options instead of the first ones. */
    void restartSink(String... jvmOptions) {
        sinks.get(0).stop();
        sinks.set(0, startSink(0, List.of(jvmOptions)));
    }

    /** The sum of a topic's end offsets. */
    long endOffset(String topic) {
        Properties p = new Properties();
        p.put(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                pipeline.infrastructure().kafkaBootstrapServers());
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            var parts = c.partitionsFor(topic, Duration.ofSeconds(10));
            return c
                    .endOffsets(
                            parts.stream()
                                    .map(i -> new TopicPartition(topic, i.partition()))
                                    .toList())
                    .values()
                    .stream()
                    .mapToLong(Long::longValue)
                    .sum();
        }
    }

    /** Records on a topic (e.g. a dead-letter topic); 0 when it does not exist. */
    long recordsOn(String topic) {
        return readAll(topic).size();
    }

    private List<ConsumerRecord<byte[], byte[]>> readAll(String topic) {
        Properties p = new Properties();
        p.put(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                pipeline.infrastructure().kafkaBootstrapServers());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            var parts = c.partitionsFor(topic, Duration.ofSeconds(10));
            if (parts == null || parts.isEmpty()) {
                return out;
            }
            List<TopicPartition> tps =
                    parts.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps);
            Poll poll = Poll.within(Duration.ofSeconds(60));
            while (!poll.expired() && tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    out.add(r);
                }
            }
        } catch (org.apache.kafka.common.KafkaException e) {
            LOG.warn("Could not read {}: {}", topic, e.getMessage());
        }
        return out;
    }

    // ---- watchers ----------------------------------------------------------------------------

    private List<ChildJvm> children() {
        List<ChildJvm> all = new ArrayList<>(streams);
        all.addAll(sinks);
        return all;
    }

    private void watchHealth() {
        while (watching) {
            try {
                pipeline.checkHealthy();
                for (ChildJvm child : children()) {
                    int code = child.exitCode();
                    if (code > 0 && code != 137) {
                        failure.compareAndSet(null, child.name() + ": " + lastError(child));
                    }
                }
            } catch (RuntimeException e) {
                if (failure.compareAndSet(null, e.getMessage())) {
                    LOG.warn("pipeline reported: {}", e.getMessage());
                }
            }
            sleep(1000);
        }
    }

    /** The error line the stage's command printed, or its exit code. */
    private static String lastError(ChildJvm child) {
        try {
            List<String> lines = java.nio.file.Files.readAllLines(child.logFile());
            for (int i = lines.size() - 1; i >= 0; i--) {
                if (lines.get(i).startsWith("cdc-lab: error: ")) {
                    return lines.get(i).substring("cdc-lab: error: ".length());
                }
            }
        } catch (java.io.IOException e) {
            // fall through
        }
        return "process ended with exit code " + child.exitCode();
    }

    private void watchVersions() {
        Map<Integer, Long> newest = new HashMap<>();
        Set<Integer> deleted = new HashSet<>();
        while (watching) {
            try {
                Map<Integer, Long> now = new HashMap<>();
                try (Connection c = warehouse();
                        Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT id, version FROM public." + ITEMS)) {
                    while (rs.next()) {
                        now.put(rs.getInt(1), rs.getLong(2));
                    }
                }
                for (var e : now.entrySet()) {
                    Long before = newest.get(e.getKey());
                    if ((before != null && e.getValue() < before) || deleted.contains(e.getKey())) {
                        regressions.incrementAndGet();
                        LOG.warn(
                                "warehouse row {} went back: version {} after {}{}",
                                e.getKey(),
                                e.getValue(),
                                before,
                                deleted.contains(e.getKey()) ? " (deleted before)" : "");
                        deleted.remove(e.getKey());
                    }
                    newest.merge(e.getKey(), e.getValue(), Math::max);
                }
                for (Integer id : newest.keySet()) {
                    if (!now.containsKey(id)) {
                        deleted.add(id);
                    }
                }
            } catch (SQLException e) {
                // not created yet, or the warehouse is busy
            }
            sleep(300);
        }
    }

    /**
     * Reads the accounts' count and total in the warehouse, continuously, each read in a REPEATABLE
     * READ transaction of its own. Every source transaction keeps both, so once the accounts are
     * there any other count or total is part of a transaction made visible without the rest.
     */
    private void watchTotals() {
        String sql =
                "SELECT count(*), coalesce(sum(balance), 0) FROM public." + ChaosWriter.ACCOUNTS;
        while (watching) {
            try (Connection c = warehouse()) {
                c.setAutoCommit(false);
                c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                try (Statement s = c.createStatement()) {
                    while (watching) {
                        long count;
                        long total;
                        try (ResultSet rs = s.executeQuery(sql)) {
                            rs.next();
                            count = rs.getLong(1);
                            total = rs.getLong(2);
                        }
                        c.commit();
                        if (count == ChaosWriter.ACCOUNT_COUNT && total == ChaosWriter.TOTAL) {
                            consistentReads.incrementAndGet();
                        } else if (count > 0) {
                            tornReads.incrementAndGet();
                            LOG.warn(
                                    "warehouse read shows part of a transaction: {} accounts"
                                            + " holding {} (expected {} holding {})",
                                    count,
                                    total,
                                    ChaosWriter.ACCOUNT_COUNT,
                                    ChaosWriter.TOTAL);
                        }
                        sleep(20);
                    }
                }
            } catch (SQLException e) {
                // not created yet, or the warehouse is busy
                sleep(300);
            }
        }
    }

    /** Reads of the warehouse that showed part of a source transaction. */
    long tornReads() {
        return tornReads.get();
    }

    /** Reads of the warehouse that showed whole transactions only. */
    long consistentReads() {
        return consistentReads.get();
    }

    /** Holds a fault (or the writer) for {@code ms}: {@link Poll#sleep}. */
    static void sleep(long ms) {
        Poll.sleep(Duration.ofMillis(ms));
    }

    @Override
    public void close() {
        watching = false;
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                LOG.warn(
                        "Stopping {}: {}",
                        started.get(i).getClass().getSimpleName(),
                        e.getMessage());
            }
        }
        started.clear();
    }
}
