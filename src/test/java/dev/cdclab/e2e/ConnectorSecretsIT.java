package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cdclab.capture.CaptureConfig;
import dev.cdclab.orchestration.Pipeline;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The source password never reaches Kafka Connect's REST API or config topic: on a worker of our
 * own the connector config names a file only this user can read ({@code ${file:...}}), and the
 * worker's FileConfigProvider resolves it.
 */
@Timeout(300)
class ConnectorSecretsIT {
    @TempDir Path dir;

    @Test
    void connectShowsAFileReferenceNotThePassword() throws Exception {
        try (Pipeline p =
                Pipeline.builder()
                        .workDir(dir.resolve("secrets"))
                        .runId("sec" + Long.toString(System.nanoTime() % 100_000, 36))
                        .beforeCapture(
                                src -> {
                                    try (Connection c = src.connect();
                                            Statement s = c.createStatement()) {
                                        s.execute("CREATE TABLE t (id int PRIMARY KEY, v text)");
                                        s.execute("INSERT INTO t VALUES (1, 'a')");
                                    }
                                })
                        .start()) {
            String password = p.source().password();
            assertThat(password).isNotEmpty();
            String name = p.captureConfig().get(CaptureConfig.CONNECTOR_NAME);
            HttpResponse<String> r =
                    HttpClient.newHttpClient()
                            .send(
                                    HttpRequest.newBuilder(
                                                    URI.create(
                                                            p.infrastructure().connectUrl()
                                                                    + "/connectors/"
                                                                    + name
                                                                    + "/config"))
                                            .timeout(Duration.ofSeconds(10))
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).doesNotContain(password);
            JsonNode config = new ObjectMapper().readTree(r.body());
            String ref = config.get("database.password").asText();
            assertThat(ref).startsWith("${file:").endsWith(":password}");
            Path file = Path.of(ref.substring("${file:".length(), ref.lastIndexOf(':')));
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                    .isEqualTo("rw-------");
            java.util.Properties secret = new java.util.Properties();
            try (var in = Files.newBufferedReader(file)) {
                secret.load(in);
            }
            assertThat(secret.getProperty("password")).isNotEmpty();
            assertThat(r.body()).doesNotContain(secret.getProperty("password"));

            // the connector resolved it: a change made now reaches the warehouse
            try (Connection c = p.sourceConnection();
                    Statement s = c.createStatement()) {
                s.execute("INSERT INTO t VALUES (2, 'b')");
            }
            p.awaitCaughtUp(Duration.ofSeconds(60));
            assertThat(p.verify().matches()).isTrue();
        }
    }
}
