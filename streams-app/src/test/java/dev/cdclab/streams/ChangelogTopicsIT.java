package dev.cdclab.streams;

import static dev.cdclab.streams.testing.KafkaTestClients.admin;
import static dev.cdclab.streams.testing.KafkaTestClients.appSettings;
import static dev.cdclab.streams.testing.KafkaTestClients.createTopics;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.embedded.KafkaBroker;
import dev.cdclab.streams.topology.NetChangeTopology;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every state store's changelog is created with segments the log cleaner can compact within a
 * minute and tombstones it drops a minute later, so what a restarted instance restores does not
 * grow with the time the application has run.
 */
@Timeout(180)
class ChangelogTopicsIT {

    @Test
    void everyChangelogRollsAndDropsTombstonesWithinAMinute(@TempDir Path state) throws Exception {
        try (KafkaBroker kafka = KafkaBroker.builder().start()) {
            String run = "changelogs-" + System.nanoTime();
            Map<String, String> settings = appSettings(kafka.bootstrapServers(), run, state);
            NetChangeConfig config = NetChangeConfig.of(settings);
            try (Admin admin = admin(kafka.bootstrapServers())) {
                createTopics(admin, config.changeTopic(), settings.get("net.changes.topic"));
                try (NetChangeApp app = new NetChangeApp(config)) {
                    app.start(Duration.ofSeconds(60));
                }
                Set<String> changelogs =
                        admin.listTopics().names().get().stream()
                                .filter(t -> t.startsWith(run + "-") && t.endsWith("-changelog"))
                                .collect(Collectors.toSet());
                assertThat(changelogs)
                        .as("one per store")
                        .containsExactlyInAnyOrder(
                                run + "-net-change-pending-changelog",
                                run + "-net-change-overflow-changelog",
                                run + "-net-change-progress-changelog",
                                run + "-net-change-schemas-changelog",
                                run + "-net-change-reread-changelog");
                List<ConfigResource> resources =
                        changelogs.stream()
                                .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t))
                                .toList();
                Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all().get();
                for (var e : configs.entrySet()) {
                    Config c = e.getValue();
                    assertThat(c.get(TopicConfig.CLEANUP_POLICY_CONFIG).value())
                            .as(e.getKey().name())
                            .isEqualTo(TopicConfig.CLEANUP_POLICY_COMPACT);
                    NetChangeTopology.CHANGELOG_TOPIC_CONFIG.forEach(
                            (k, v) ->
                                    assertThat(c.get(k).value())
                                            .as(e.getKey().name() + " " + k)
                                            .isEqualTo(v));
                }
            }
        }
    }
}
