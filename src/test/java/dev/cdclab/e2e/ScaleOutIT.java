package dev.cdclab.e2e;

import static dev.cdclab.e2e.TestPipelines.caughtUpAndVerified;
import static dev.cdclab.e2e.TestPipelines.tx;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.load.dialect.PostgresDialect;
import dev.cdclab.load.run.LoadRunner;
import dev.cdclab.load.workload.Workload;
import dev.cdclab.load.workload.WorkloadOptions;
import dev.cdclab.load.workload.Workloads;
import dev.cdclab.pipeline.EmbeddedPipeline;
import dev.cdclab.pipeline.verify.VerificationResult;
import dev.cdclab.streams.NetChangeApp;
import dev.cdclab.streams.NetChangeConfig;
import java.nio.file.Files;
import java.sql.Connection;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Scale-out through Kafka Streams: 4 partitions shared by two instances with one application id
 * give the warehouse the source has, including primary-key updates that move rows between
 * partitions; and the same under exactly_once_v2.
 */
@Timeout(420)
class ScaleOutIT {

    @Test
    void twoStreamsInstancesWithOneApplicationIdGiveTheSameWarehouse() throws Exception {
        Workload mix =
                Workloads.create(
                        "mix", new PostgresDialect(), new WorkloadOptions(11, 2_000, -1, -1, 100));
        try (EmbeddedPipeline p =
                TestPipelines.start(
                        "scaleout",
                        b ->
                                b.partitions(4)
                                        .beforeCapture(
                                                src -> {
                                                    try (Connection c = src.connect()) {
                                                        mix.createSchema(c);
                                                        mix.prefill(c, n -> {});
                                                    }
                                                }))) {
            NetChangeConfig first = p.netChangeConfig();
            NetChangeConfig second =
                    new NetChangeConfig(
                            first.raw()
                                    .with(
                                            NetChangeConfig.STATE_DIR,
                                            Files.createTempDirectory("second-instance")
                                                    .toString()));
            try (NetChangeApp other = new NetChangeApp(second)) {
                other.start(Duration.ofSeconds(60));
                tx(p, "CREATE TABLE movers (id int PRIMARY KEY, v text)");
                tx(p, "INSERT INTO movers SELECT g, 'v' || g FROM generate_series(1, 400) g");
                new LoadRunner(
                                mix,
                                p::sourceConnection,
                                new LoadRunner.Options(4, 150, Duration.ofSeconds(8), 0))
                        .run();
                // primary-key updates: delete of the old key and create of the new one, in
                // different partitions
                tx(p, "UPDATE movers SET id = id + 10000, v = 'moved' WHERE id % 3 = 0");
                VerificationResult v = caughtUpAndVerified(p);
                assertThat(v.matches()).as(v.summary()).isTrue();
                assertThat(p.streams().stats().rawChanges())
                        .as("first instance worked")
                        .isPositive();
                assertThat(other.stats().rawChanges()).as("second instance worked").isPositive();
                assertThat(p.streams().stats().late() + other.stats().late()).isZero();
            }
        }
    }

    @Test
    void exactlyOnceV2OnTheSingleEmbeddedBroker() throws Exception {
        try (EmbeddedPipeline p =
                TestPipelines.start(
                        "eos",
                        b ->
                                b.partitions(2)
                                        .guarantee(NetChangeConfig.Guarantee.EXACTLY_ONCE_V2))) {
            tx(p, "CREATE TABLE eos (id int PRIMARY KEY, n int)");
            tx(p, "INSERT INTO eos SELECT g, 0 FROM generate_series(1, 500) g");
            for (int i = 0; i < 10; i++) {
                tx(p, "UPDATE eos SET n = n + 1 WHERE id % 7 = " + i % 7);
            }
            tx(p, "DELETE FROM eos WHERE id > 450");
            VerificationResult v = caughtUpAndVerified(p);
            assertThat(v.matches()).as(v.summary()).isTrue();
        }
    }
}
