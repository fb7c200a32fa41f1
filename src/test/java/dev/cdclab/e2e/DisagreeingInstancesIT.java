package dev.cdclab.e2e;

import static dev.cdclab.e2e.TestHelper.tx;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.cdclab.config.Configuration;
import dev.cdclab.config.RunNames;
import dev.cdclab.junit.CdcLabExtension;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.streams.NetChangeApp;
import dev.cdclab.streams.NetChangeConfig;
import java.nio.file.Files;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Instances that disagree. Two Streams instances of one application, one cutting a window per
 * transaction and the other fixed one-second intervals: the sink cannot gate their windows
 * together, so it stops with an error that names both settings instead of applying anything under a
 * mixed bound. An instance whose {@code partitions} is not the change topic's does not start,
 * whether it creates topics or not.
 */
@Timeout(300)
class DisagreeingInstancesIT {
    @RegisterExtension static CdcLabExtension lab = CdcLabExtension.embedded().partitions(2);

    @Test
    void aSinkReadingInstancesWithDifferentWindowSettingsStopsAndNamesBoth() throws Exception {
        Pipeline p = lab.pipeline();
        NetChangeConfig first = p.netChangeConfig();
        assertThat(first.get(NetChangeConfig.INTERVAL)).isZero();
        NetChangeConfig other =
                new NetChangeConfig(
                        first.raw()
                                .with(NetChangeConfig.INTERVAL, Duration.ofSeconds(1))
                                .with(
                                        NetChangeConfig.STATE_DIR,
                                        Files.createTempDirectory("disagreeing").toString()));
        try (NetChangeApp second = new NetChangeApp(other)) {
            second.start(Duration.ofSeconds(60));
            tx(lab.source(), "CREATE TABLE apart (id int PRIMARY KEY, v text)");
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(200))
                    .until(
                            () -> {
                                tx(
                                        lab.source(),
                                        "INSERT INTO apart SELECT (SELECT coalesce(max(id), 0)"
                                                + " FROM apart) + g, 'v' FROM generate_series(1,"
                                                + " 20) g");
                                return p.sink().failure().isPresent();
                            });
            assertThat(p.sink().failure().orElseThrow())
                    .hasMessageContaining("Streams tasks disagree")
                    .hasMessageContaining("interval=0 (a window per transaction)")
                    .hasMessageContaining("interval=1000ms grace=100ms");
            assertThat(first.get(NetChangeConfig.PARTITIONS)).isEqualTo(2);
        }
    }

    @ParameterizedTest(name = "create.topics={0}")
    @ValueSource(booleans = {true, false})
    void anInstanceWhosePartitionsAreNotTheChangeTopicsDoesNotStart(boolean createTopics)
            throws Exception {
        String topic = lab.pipeline().netChangeConfig().changeTopic();
        assertDoesNotStart(
                c ->
                        c.with(NetChangeConfig.PARTITIONS, 3)
                                .with(NetChangeConfig.CREATE_TOPICS, createTopics),
                "topic " + topic + " has 2 partitions but partitions=3");
    }

    @Test
    void anInstanceThatCreatesNoTopicsNamesTheChangeTopicItCannotFind() throws Exception {
        assertDoesNotStart(
                c ->
                        c.with(NetChangeConfig.TOPIC_PREFIX, "cdclab-nowhere")
                                .with(NetChangeConfig.CREATE_TOPICS, false),
                "topic "
                        + RunNames.changeTopic("cdclab-nowhere")
                        + " does not exist (create.topics=false)");
    }

    /** An instance of the pipeline's application, with {@code settings} changed, does not start. */
    private static void assertDoesNotStart(UnaryOperator<Configuration> settings, String message)
            throws Exception {
        Configuration c =
                settings.apply(lab.pipeline().netChangeConfig().raw())
                        .with(
                                NetChangeConfig.STATE_DIR,
                                Files.createTempDirectory("instance").toString());
        try (NetChangeApp app = new NetChangeApp(new NetChangeConfig(c))) {
            assertThatThrownBy(() -> app.start(Duration.ofSeconds(30)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage(message);
        }
    }
}
