package dev.cdclab.streams;

import dev.cdclab.config.RowLimit;
import dev.cdclab.instance.InstanceSlot;
import dev.cdclab.streams.topology.NetChangeStats;
import dev.cdclab.streams.topology.NetChangeTopology;
import dev.cdclab.wait.Poll;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs the net-change topology: creates the topics it owns, then starts Kafka Streams. */
public final class NetChangeApp implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NetChangeApp.class);

    /**
     * How long the topic check waits for Kafka to answer. The start may wait longer (for a group to
     * drop a member it replaces); an address nothing answers at fails within this.
     */
    static final Duration KAFKA_REACH_TIMEOUT = Duration.ofSeconds(30);

    private final NetChangeConfig config;
    private final NetChangeStats stats = new NetChangeStats();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private KafkaStreams streams;
    private KafkaStreamsMetrics streamsMetrics;
    private InstanceSlot slot;

    public NetChangeApp(NetChangeConfig config) {
        this.config = config;
    }

    /**
     * Creates missing topics and starts the Streams instance; returns once it is running.
     *
     * @throws IllegalStateException when Kafka is unreachable or the app fails to start
     */
    public void start(Duration timeout) {
        Properties props = NetChangeTopology.streamsProperties(config);
        slot = InstanceSlot.claim(Path.of(config.get(NetChangeConfig.STATE_DIR)));
        props.put(StreamsConfig.STATE_DIR_CONFIG, slot.path().toString());
        // static membership: restarted in its slot, this instance takes its tasks back at once,
        // and under exactly_once_v2 its producers (named after the process id Streams keeps in
        // the state directory) fence the killed instance's open transactions
        props.putIfAbsent(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, slot.memberId());
        LOG.info(
                "Streams state under {}, group member {}",
                slot.path(),
                props.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG));
        // the topic check waits on the brokers and building KafkaStreams on the CPU: a restarted
        // instance is back sooner with the two side by side
        FutureTask<Void> check =
                new FutureTask<>(
                        () -> {
                            checkTopics(
                                    timeout.compareTo(KAFKA_REACH_TIMEOUT) < 0
                                            ? timeout
                                            : KAFKA_REACH_TIMEOUT,
                                    config.get(NetChangeConfig.CREATE_TOPICS));
                            return null;
                        });
        Thread checker = new Thread(check, "net-change-topic-check");
        checker.setDaemon(true);
        checker.start();
        try {
            streams = new KafkaStreams(NetChangeTopology.buildTopology(config, stats), props);
        } catch (RuntimeException e) {
            check.cancel(true);
            throw e;
        }
        awaitTopicCheck(check);
        streams.setUncaughtExceptionHandler(
                e -> {
                    LOG.error("Net-change Streams app failed", e);
                    failure.compareAndSet(null, reason(e));
                    return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse
                            .SHUTDOWN_CLIENT;
                });
        streams.start();
        Poll poll = Poll.within(timeout).every(Duration.ofMillis(50));
        while (streams.state() != KafkaStreams.State.RUNNING) {
            if (failure.get() != null || streams.state() == KafkaStreams.State.ERROR) {
                throw new IllegalStateException(
                        "net-change app failed to start: " + describe(failure.get()));
            }
            if (poll.expired()) {
                throw new IllegalStateException(
                        "net-change app not running after "
                                + timeout.toSeconds()
                                + "s (state "
                                + streams.state()
                                + ")");
            }
            poll.pause();
        }
        LOG.info("Net-change app {} running", config.get(NetChangeConfig.APPLICATION_ID));
    }

    /** Waits for the topic check; when it failed, releases the unstarted Streams instance. */
    private void awaitTopicCheck(FutureTask<Void> check) {
        try {
            check.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            streams.close();
            throw new IllegalStateException("interrupted while checking topics", e);
        } catch (ExecutionException e) {
            streams.close();
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(describe(e.getCause()), e.getCause());
        }
    }

    /**
     * Creates the topics when {@code create} says so, then checks that the change topic has {@code
     * partitions} partitions: each task's interval markers say how many tasks there are, and a sink
     * gating on fewer than there are would release windows some task has not closed.
     */
    private void checkTopics(Duration timeout, boolean create) {
        Map<String, Object> adminProps =
                Map.of(
                        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                        config.get(NetChangeConfig.BOOTSTRAP_SERVERS),
                        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                        (int) timeout.toMillis(),
                        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                        (int) Math.min(timeout.toMillis(), 30_000));
        int partitions = config.get(NetChangeConfig.PARTITIONS);
        short rf = (short) (int) config.get(NetChangeConfig.REPLICATION_FACTOR);
        Optional<Short> replication = rf < 0 ? Optional.empty() : Optional.of(rf);
        List<NewTopic> wanted = new ArrayList<>();
        if (create) {
            // each topic takes the largest record a row under max.row.bytes makes
            Map<String, String> limits =
                    Map.of(
                            TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
                            Long.toString(
                                    RowLimit.messageBytes(config.get(RowLimit.MAX_ROW_BYTES))));
            wanted.add(
                    new NewTopic(config.changeTopic(), Optional.of(partitions), replication)
                            .configs(limits));
            wanted.add(
                    new NewTopic(
                                    config.get(NetChangeConfig.NET_CHANGES_TOPIC),
                                    Optional.of(partitions),
                                    replication)
                            .configs(limits));
            wanted.add(
                    new NewTopic(config.deadLetterTopic(), Optional.of(1), replication)
                            .configs(limits));
        }
        try (Admin admin = Admin.create(adminProps)) {
            var created = admin.createTopics(wanted).values();
            for (NewTopic t : wanted) {
                try {
                    created.get(t.name()).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                    LOG.info("Created topic {}", t.name());
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) {
                        throw e;
                    }
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException(
                                "cannot create topic " + t.name() + ": " + describe(e.getCause()),
                                e.getCause());
                    }
                }
            }
            TopicDescription changes = describe(admin, config.changeTopic(), timeout, create);
            if (changes.partitions().size() != partitions) {
                throw new IllegalStateException(
                        "topic "
                                + config.changeTopic()
                                + " has "
                                + changes.partitions().size()
                                + " partitions but partitions="
                                + partitions);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(
                    "cannot reach Kafka at "
                            + config.get(NetChangeConfig.BOOTSTRAP_SERVERS)
                            + ": "
                            + (e instanceof ExecutionException
                                    ? describe(e.getCause())
                                    : "no answer within " + timeout.toSeconds() + " s"),
                    e);
        }
    }

    /**
     * Describes a topic. A topic this instance just created may not yet be known to the broker that
     * answers (metadata reaches brokers a moment after the create returns): then it waits.
     */
    private static TopicDescription describe(
            Admin admin, String topic, Duration timeout, boolean created)
            throws InterruptedException, ExecutionException, TimeoutException {
        Poll poll = Poll.within(timeout).every(Duration.ofMillis(100));
        while (true) {
            try {
                return admin.describeTopics(Set.of(topic))
                        .allTopicNames()
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                        .get(topic);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
                if (!created || poll.expired()) {
                    throw new IllegalStateException(
                            "topic "
                                    + topic
                                    + " does not exist"
                                    + (created ? "" : " (create.topics=false)"),
                            e);
                }
                poll.pause();
            }
        }
    }

    public NetChangeStats stats() {
        return stats;
    }

    /**
     * Binds this instance's counters and Kafka Streams' own metrics (its consumers, producers and
     * state stores) to {@code registry}; call after {@link #start}. The Streams metrics go with
     * {@link #close}.
     */
    public void bindTo(MeterRegistry registry) {
        stats.bindTo(registry);
        if (streams != null && streamsMetrics == null) {
            streamsMetrics = new KafkaStreamsMetrics(streams);
            streamsMetrics.bindTo(registry);
        }
    }

    /** The Streams state, or null before {@link #start}. */
    public KafkaStreams.State state() {
        return streams == null ? null : streams.state();
    }

    /** The error that stopped the app, if any. */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure.get());
    }

    @Override
    public void close() {
        if (streamsMetrics != null) {
            streamsMetrics.close();
            streamsMetrics = null;
        }
        if (streams != null) {
            // a static member stays in the group when it closes; leave, so the others take over
            streams.close(
                    CloseOptions.groupMembershipOperation(
                                    CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                            .withTimeout(Duration.ofSeconds(30)));
            streams = null;
        }
        if (slot != null) {
            slot.close();
            slot = null;
        }
    }

    /** What went wrong, without Kafka Streams' "Exception caught in process" wrapping. */
    private static Throwable reason(Throwable e) {
        Throwable t = e;
        while (t instanceof org.apache.kafka.streams.errors.StreamsException
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static String describe(Throwable t) {
        if (t == null) {
            return "unknown error";
        }
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }
}
