package dev.cdclab.e2e;

import static dev.cdclab.e2e.TestHelper.tx;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.junit.CdcLabExtension;
import dev.cdclab.load.dialect.PostgresDialect;
import dev.cdclab.load.run.LoadRunner;
import dev.cdclab.load.workload.Workload;
import dev.cdclab.load.workload.WorkloadOptions;
import dev.cdclab.load.workload.Workloads;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.orchestration.verify.VerificationResult;
import dev.cdclab.streams.NetChangeApp;
import dev.cdclab.streams.NetChangeConfig;
import java.nio.file.Files;
import java.sql.Connection;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scale-out through Kafka Streams: 4 partitions shared by two instances with one application id
 * give the warehouse the source has, including primary-key updates that move rows between
 * partitions.
 */
@Timeout(420)
class ScaleOutIT {
    private static final Workload MIX =
            Workloads.create(
                    "mix", new PostgresDialect(), new WorkloadOptions(11, 2_000, -1, -1, 100));

    @RegisterExtension
    static CdcLabExtension lab =
            CdcLabExtension.embedded()
                    .interval(Duration.ofMillis(500))
                    .partitions(4)
                    .configure(
                            b ->
                                    b.beforeCapture(
                                            src -> {
                                                try (Connection c = src.connect()) {
                                                    MIX.createSchema(c);
                                                    MIX.prefill(c, n -> {});
                                                }
                                            }));

    @Test
    void twoStreamsInstancesWithOneApplicationIdGiveTheSameWarehouse() throws Exception {
        Pipeline p = lab.pipeline();
        NetChangeConfig first = p.netChangeConfig();
        NetChangeConfig second =
                new NetChangeConfig(
                        first.raw()
                                .with(
                                        NetChangeConfig.STATE_DIR,
                                        Files.createTempDirectory("second-instance").toString()));
        try (NetChangeApp other = new NetChangeApp(second)) {
            other.start(Duration.ofSeconds(60));
            tx(lab.source(), "CREATE TABLE movers (id int PRIMARY KEY, v text)");
            tx(
                    lab.source(),
                    "INSERT INTO movers SELECT g, 'v' || g FROM generate_series(1, 400) g");
            new LoadRunner(
                            MIX,
                            p::sourceConnection,
                            new LoadRunner.Options(4, 150, Duration.ofSeconds(8), 0))
                    .run();
            // primary-key updates: delete of the old key and create of the new one, in
            // different partitions
            tx(lab.source(), "UPDATE movers SET id = id + 10000, v = 'moved' WHERE id % 3 = 0");
            lab.awaitCaughtUp(Duration.ofSeconds(90));
            VerificationResult v = lab.verify();
            assertThat(v.matches()).as(v.summary()).isTrue();
            assertThat(p.streams().stats().rawChanges()).as("first instance worked").isPositive();
            assertThat(other.stats().rawChanges()).as("second instance worked").isPositive();
            assertThat(p.streams().stats().late() + other.stats().late()).isZero();
        }
    }
}
