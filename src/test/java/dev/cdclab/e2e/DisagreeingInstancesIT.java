package dev.cdclab.e2e;

import static dev.cdclab.e2e.TestHelper.tx;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdclab.junit.CdcLabExtension;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.streams.NetChangeApp;
import dev.cdclab.streams.NetChangeConfig;
import java.nio.file.Files;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two Streams instances of one application, one cutting a window per transaction and the other
 * fixed one-second intervals: the sink cannot gate their windows together, so it stops with an
 * error that names both settings instead of applying anything under a mixed bound.
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
}
