package dev.cdclab.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cdclab.format.JsonText;
import dev.cdclab.orchestration.admin.AdminToken;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where a running {@code cdc-lab up} can be reached, as written to its endpoints file.
 *
 * @param sourceJdbcUrl JDBC URL of the source database
 * @param sourceHost source host
 * @param sourcePort source port
 * @param sourceDatabase source database
 * @param sourceUser source user
 * @param sourcePassword source password
 * @param kafkaBootstrap Kafka bootstrap servers
 * @param connectUrl Kafka Connect REST URL
 * @param warehouseUrl JDBC URL of the warehouse
 * @param warehouseUser user of a PostgreSQL warehouse the pipeline started, else null
 * @param warehousePassword password of a PostgreSQL warehouse the pipeline started, else null
 * @param adminUrl the pipeline's own status and verification endpoint
 * @param adminToken the token its clients show
 */
record Endpoints(
        String sourceJdbcUrl,
        String sourceHost,
        int sourcePort,
        String sourceDatabase,
        String sourceUser,
        String sourcePassword,
        String kafkaBootstrap,
        String connectUrl,
        String warehouseUrl,
        String warehouseUser,
        String warehousePassword,
        String adminUrl,
        String adminToken) {

    Map<String, Object> asMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("source_jdbc_url", sourceJdbcUrl);
        m.put("source_host", sourceHost);
        m.put("source_port", sourcePort);
        m.put("source_database", sourceDatabase);
        m.put("source_user", sourceUser);
        m.put("source_password", sourcePassword);
        m.put("kafka_bootstrap", kafkaBootstrap);
        m.put("connect_url", connectUrl);
        m.put("warehouse_url", warehouseUrl);
        m.put("warehouse_user", warehouseUser);
        m.put("warehouse_password", warehousePassword);
        m.put("admin_url", adminUrl);
        m.put("admin_token", adminToken);
        return m;
    }

    void write(Path file) throws IOException {
        // the temporary file JsonText writes through is the owner's only (rw-------)
        JsonText.write(file, asMap());
        try {
            Files.setPosixFilePermissions(
                    file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException | IOException e) {
            // not a POSIX file system; the password is as protected as the directory
        }
    }

    static Endpoints read(Path file) {
        JsonNode n;
        try {
            n = JsonText.read(file);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "cannot read endpoints file " + file + ": " + e.getMessage());
        }
        String[] required = {
            "source_jdbc_url",
            "source_user",
            "source_password",
            "warehouse_url",
            "admin_url",
            "admin_token"
        };
        for (String k : required) {
            if (!n.hasNonNull(k)) {
                throw new IllegalArgumentException(
                        "endpoints file " + file + " has no '" + k + "'");
            }
        }
        return new Endpoints(
                n.get("source_jdbc_url").asText(),
                n.path("source_host").asText(),
                n.path("source_port").asInt(),
                n.path("source_database").asText(),
                n.get("source_user").asText(),
                n.get("source_password").asText(),
                n.path("kafka_bootstrap").asText(),
                n.path("connect_url").asText(),
                n.get("warehouse_url").asText(),
                n.path("warehouse_user").textValue(),
                n.path("warehouse_password").textValue(),
                n.get("admin_url").asText(),
                n.get("admin_token").asText());
    }

    /**
     * POSTs to the running pipeline's admin endpoint and returns its JSON answer.
     *
     * @param pathAndQuery e.g. {@code /verify?timeout=60s}
     * @param timeout how long the pipeline may take to answer
     * @throws IllegalStateException when nothing answers, or the pipeline answers with an error
     */
    JsonNode post(String pathAndQuery, Duration timeout) throws IOException, InterruptedException {
        return post(adminUrl, adminToken, pathAndQuery, null, timeout);
    }

    /**
     * POSTs {@code body} (none when null) to the admin endpoint at {@code adminUrl}: a pipeline's,
     * or a stage process's.
     *
     * @throws IllegalStateException when nothing answers, or it answers with an error
     */
    static JsonNode post(
            String adminUrl, String token, String pathAndQuery, String body, Duration timeout)
            throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest req =
                HttpRequest.newBuilder(URI.create(adminUrl + pathAndQuery))
                        .timeout(timeout)
                        .header(AdminToken.HEADER, AdminToken.of(token).bearer())
                        .POST(
                                body == null
                                        ? HttpRequest.BodyPublishers.noBody()
                                        : HttpRequest.BodyPublishers.ofString(
                                                body, StandardCharsets.UTF_8))
                        .build();
        HttpResponse<String> r;
        try {
            r = http.send(req, HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException ex) {
            throw new IllegalStateException(
                    "no pipeline answers at " + adminUrl + " (is 'cdc-lab up' running?)");
        } catch (IOException ex) {
            throw new IllegalStateException(
                    "pipeline at " + adminUrl + " did not answer: " + ex.getMessage());
        }
        JsonNode n = JsonText.read(r.body());
        if (n.hasNonNull("error")) {
            throw new IllegalStateException(n.get("error").asText());
        }
        return n;
    }
}
