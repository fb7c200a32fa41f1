package dev.cdclab.orchestration.infra;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Admin calls on a Kafka cluster the pipeline does not own: is it there, and tidying up. */
public final class Topics {
    private static final Logger LOG = LoggerFactory.getLogger(Topics.class);

    private Topics() {}

    /**
     * Checks that Kafka answers.
     *
     * @throws InfraUnavailableException when it does not within {@code timeout}
     */
    public static void requireKafka(String bootstrapServers, Duration timeout) {
        try (Admin admin = admin(bootstrapServers, timeout)) {
            admin.describeCluster().nodes().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InfraUnavailableException("interrupted while reaching Kafka", e);
        } catch (Exception e) {
            throw new InfraUnavailableException(
                    "Kafka at "
                            + bootstrapServers
                            + " does not answer within "
                            + timeout.toSeconds()
                            + " s",
                    e);
        }
    }

    /**
     * Waits until {@code topic} exists (a net-change app started beside creates its topics).
     *
     * @throws InfraUnavailableException when it does not within {@code timeout}
     */
    public static void awaitExists(String bootstrapServers, String topic, Duration timeout) {
        dev.cdclab.wait.Poll poll = dev.cdclab.wait.Poll.within(timeout);
        try (Admin admin = admin(bootstrapServers, timeout)) {
            boolean there =
                    poll.until(
                            () -> {
                                try {
                                    return admin.listTopics()
                                            .names()
                                            .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                                            .contains(topic);
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                    return true;
                                } catch (Exception e) {
                                    return false;
                                }
                            });
            if (!there) {
                throw new InfraUnavailableException(
                        "topic " + topic + " does not exist after " + timeout.toSeconds() + " s",
                        null);
            }
        }
    }

    /** Deletes the topics whose names start with one of the prefixes; best effort. */
    public static void delete(String bootstrapServers, List<String> prefixes) {
        delete(bootstrapServers, List.of(), prefixes);
    }

    /** Deletes the named topics and those whose names start with a prefix; best effort. */
    public static void delete(String bootstrapServers, List<String> names, List<String> prefixes) {
        try (Admin admin = admin(bootstrapServers, Duration.ofSeconds(10))) {
            List<String> doomed = new ArrayList<>();
            for (String t : admin.listTopics().names().get(10, TimeUnit.SECONDS)) {
                if (names.contains(t) || prefixes.stream().anyMatch(t::startsWith)) {
                    doomed.add(t);
                }
            }
            if (!doomed.isEmpty()) {
                admin.deleteTopics(doomed).all().get(30, TimeUnit.SECONDS);
                LOG.info("Deleted topics {}", doomed);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warn("Could not delete topics {}: {}", prefixes, e.getMessage());
        }
    }

    private static Admin admin(String bootstrapServers, Duration timeout) {
        int ms = (int) timeout.toMillis();
        return Admin.create(
                Map.of(
                        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrapServers,
                        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                        ms,
                        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                        Math.min(ms, 30_000)));
    }
}
