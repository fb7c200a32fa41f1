package dev.cdclab.e2e;

import dev.cdclab.orchestration.infra.ContainerImages;
import dev.cdclab.orchestration.infra.LoopbackPorts;
import java.util.List;
import java.util.Map;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The containers tests run: the official images, or the local stand-ins named by {@code
 * CDCLAB_POSTGRES_IMAGE} and {@code CDCLAB_KAFKA_IMAGE}; ports published on 127.0.0.1 only.
 */
final class TestContainers {
    private TestContainers() {}

    static final ContainerImages IMAGES = ContainerImages.fromEnvironment();

    /** A PostgreSQL container ready for logical decoding, as a user's test would declare it. */
    static PostgreSQLContainer postgres() {
        return new PostgreSQLContainer(
                        DockerImageName.parse(IMAGES.postgres())
                                .asCompatibleSubstituteFor("postgres"))
                .withCommand("postgres", "-c", "wal_level=logical")
                .withCreateContainerCmdModifier(LoopbackPorts.only(5432));
    }

    /** A Kafka container. */
    static KafkaContainer kafka() {
        return new KafkaContainer(
                        DockerImageName.parse(IMAGES.kafka())
                                .asCompatibleSubstituteFor("apache/kafka"))
                .withCreateContainerCmdModifier(LoopbackPorts.only(9092));
    }

    /**
     * Null when the image is on this machine or can be pulled; else why not (no registry here,
     * say), for a test to skip with.
     */
    static String whyImageCannotBeHad(String image) {
        var client = DockerClientFactory.instance().client();
        try {
            client.inspectImageCmd(image).exec();
            return null;
        } catch (com.github.dockerjava.api.exception.NotFoundException e) {
            // not here: try to pull it
        }
        DockerImageName name = DockerImageName.parse(image);
        try {
            client.pullImageCmd(name.getUnversionedPart())
                    .withTag(name.getVersionPart())
                    .start()
                    .awaitCompletion(20, java.util.concurrent.TimeUnit.MINUTES);
            client.inspectImageCmd(image).exec();
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while pulling";
        } catch (RuntimeException e) {
            String m = String.valueOf(e.getMessage()).strip();
            int nl = m.indexOf('\n');
            return "not on this machine, and pulling it failed: "
                    + (nl < 0 ? m : m.substring(0, nl));
        }
    }

    /** Containers (running or not) that a cdc-lab run with this id started and left behind. */
    static List<String> leftoversOf(String runId) {
        return DockerClientFactory.instance()
                .client()
                .listContainersCmd()
                .withShowAll(true)
                .withLabelFilter(Map.of("dev.cdclab.run", runId))
                .exec()
                .stream()
                .map(c -> c.getId() + " " + c.getImage() + " " + c.getState())
                .toList();
    }
}
