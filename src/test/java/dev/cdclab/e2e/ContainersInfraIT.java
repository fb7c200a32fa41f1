package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cdclab.cli.CdcLab;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * {@code --infra containers} end to end: the source (and Kafka) in containers Testcontainers
 * starts, the rest in process; the warehouse verified against the source, the report naming the
 * images, and no container left behind.
 */
@Testcontainers(disabledWithoutDocker = true)
@Timeout(600)
class ContainersInfraIT {
    @TempDir Path dir;

    @Test
    void runOnAPostgresContainerVerifiesAndRemovesIt() throws Exception {
        Path json = dir.resolve("report.json");
        TestHelper.CliResult r =
                TestHelper.cdcLabWithErrors(
                        "run",
                        "--infra",
                        "containers",
                        "--postgres-image",
                        TestContainers.IMAGES.postgres(),
                        "--duration",
                        "6s",
                        "--rate",
                        "100",
                        "--warmup",
                        "0",
                        "--prefill",
                        "500",
                        "--work-dir",
                        dir.resolve("run").toString(),
                        "--report-json",
                        json.toString());
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("verified: warehouse matches source");
        JsonNode report = new ObjectMapper().readTree(json.toFile());
        assertThat(report.path("infrastructure").path("kind").asText()).isEqualTo("containers");
        assertThat(report.path("infrastructure").path("images").path("source").asText())
                .isEqualTo(TestContainers.IMAGES.postgres());
        assertThat(report.path("source_settings").path("fsync").asText()).isEqualTo("on");
        assertThat(report.path("source_settings").path("synchronous_commit").asText())
                .isEqualTo("on");
        assertThat(report.path("captured_changes").asLong())
                .isEqualTo(report.path("source_changes").asLong());
        assertThat(TestContainers.leftoversOf(report.path("run_id").asText())).isEmpty();
    }

    @Test
    void runWithKafkaInAContainerToo() throws Exception {
        Path json = dir.resolve("report.json");
        TestHelper.CliResult r =
                TestHelper.cdcLabWithErrors(
                        "run",
                        "--infra",
                        "containers",
                        "--kafka-container",
                        "--kafka-image",
                        TestContainers.IMAGES.kafka(),
                        "--duration",
                        "5s",
                        "--rate",
                        "100",
                        "--warmup",
                        "0",
                        "--prefill",
                        "300",
                        "--work-dir",
                        dir.resolve("run").toString(),
                        "--report-json",
                        json.toString());
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        JsonNode report = new ObjectMapper().readTree(json.toFile());
        assertThat(report.path("verified").asBoolean()).isTrue();
        assertThat(report.path("infrastructure").path("images").path("kafka").asText())
                .isEqualTo(TestContainers.IMAGES.kafka());
        assertThat(TestContainers.leftoversOf(report.path("run_id").asText())).isEmpty();
    }

    @Test
    void runOnThreeKafkaContainersKeepsGoingWhenOneIsKilled() throws Exception {
        Path json = dir.resolve("report.json");
        Path work = dir.resolve("run");
        CompletableFuture<TestHelper.CliResult> run =
                CompletableFuture.supplyAsync(
                        () ->
                                TestHelper.cdcLabWithErrors(
                                        "run",
                                        "--infra",
                                        "containers",
                                        "--kafka-container",
                                        "--kafka-image",
                                        TestContainers.IMAGES.kafka(),
                                        "--kafka-brokers",
                                        "3",
                                        "--duration",
                                        "30s",
                                        "--rate",
                                        "100",
                                        "--warmup",
                                        "0",
                                        "--prefill",
                                        "300",
                                        "--work-dir",
                                        work.toString(),
                                        "--report-json",
                                        json.toString()));
        Path log = work.resolve("logs/cdc-lab.log");
        // once capture runs, a node goes, as a broker's host fails, with the snapshot and the
        // load still to flow
        Awaitility.await()
                .atMost(Duration.ofMinutes(5))
                .pollInterval(Duration.ofMillis(500))
                .until(
                        () ->
                                run.isDone()
                                        || (Files.exists(log)
                                                && Files.readString(log)
                                                        .contains("up on containers")));
        assertThat(run.isDone()).as("the run ended before its load").isFalse();
        Matcher ready =
                Pattern.compile("3 Kafka containers \\(.*\\) ready in \\d+ ms at (\\S+)")
                        .matcher(Files.readString(log));
        assertThat(ready.find()).as("the cluster's addresses are logged").isTrue();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", ready.group(1)))) {
            Set<String> topics =
                    admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get();
            assertThat(topics).anyMatch(t -> t.startsWith("cdclab-connect-"));
            admin.describeTopics(topics)
                    .allTopicNames()
                    .get()
                    .values()
                    .forEach(
                            d ->
                                    assertThat(d.partitions())
                                            .as("replicas of every partition of " + d.name())
                                            .allSatisfy(p -> assertThat(p.replicas()).hasSize(3)));
        }
        var docker = DockerClientFactory.instance().client();
        String node2 =
                docker
                        .listContainersCmd()
                        .withLabelFilter(List.of("dev.cdclab.run"))
                        .exec()
                        .stream()
                        .filter(c -> c.getImage().equals(TestContainers.IMAGES.kafka()))
                        .filter(
                                c ->
                                        List.of(
                                                        docker.inspectContainerCmd(c.getId())
                                                                .exec()
                                                                .getConfig()
                                                                .getEnv())
                                                .contains("KAFKA_NODE_ID=2"))
                        .map(c -> c.getId())
                        .findFirst()
                        .orElseThrow();
        docker.killContainerCmd(node2).exec();

        TestHelper.CliResult r = run.get(5, TimeUnit.MINUTES);
        assertThat(r.code())
                .as(() -> r.out() + r.err() + "\nlog, last lines:\n" + TestHelper.tail(log, 60))
                .isZero();
        JsonNode report = new ObjectMapper().readTree(json.toFile());
        assertThat(report.path("verified").asBoolean()).isTrue();
        assertThat(report.path("captured_changes").asLong())
                .isEqualTo(report.path("source_changes").asLong());
        assertThat(Files.readString(work.resolve("logs/kafka-node-2.log")))
                .as("node 2 ran as part of the cluster")
                .contains("Kafka Server started");
        assertThat(TestContainers.leftoversOf(report.path("run_id").asText())).isEmpty();
    }

    @Test
    void anImageThatCannotBeHadIsOneLineAndLeavesNothing() {
        TestHelper.CliResult r =
                TestHelper.cdcLabWithErrors(
                        "run",
                        "--infra",
                        "containers",
                        "--postgres-image",
                        "cdc-lab-test/no-such-image:0",
                        "--duration",
                        "2s",
                        "--warmup",
                        "0",
                        "--work-dir",
                        dir.resolve("run").toString());
        assertThat(r.code()).isEqualTo(CdcLab.FAILED);
        List<String> lines = r.err().lines().toList();
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0))
                .startsWith("cdc-lab: error: image cdc-lab-test/no-such-image:0 cannot be had")
                .contains("--postgres-image")
                .contains("CDCLAB_POSTGRES_IMAGE");
    }
}
