package dev.cdclab.capture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cdclab.config.OneLineError;
import dev.cdclab.wait.Poll;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The parts of the Kafka Connect REST API that registering and watching a connector needs. */
public final class ConnectRestClient {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final String baseUrl;
    private final HttpClient http;

    public ConnectRestClient(String baseUrl) {
        this.baseUrl = baseUrl.replaceAll("/+$", "");
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    public String baseUrl() {
        return baseUrl;
    }

    /**
     * Validates a config against the plugin; returns one line per problem ({@code key: message}).
     */
    public List<String> validate(String name, Map<String, String> config) {
        ObjectNode body = MAPPER.createObjectNode();
        config.forEach(body::put);
        body.put("name", name);
        String cls = config.get("connector.class");
        JsonNode r =
                send("PUT", "/connector-plugins/" + cls + "/config/validate", body.toString(), 200);
        List<String> problems = new ArrayList<>();
        for (JsonNode c : r.path("configs")) {
            JsonNode v = c.path("value");
            for (JsonNode err : v.path("errors")) {
                problems.add(v.path("name").asText() + ": " + err.asText());
            }
        }
        return problems;
    }

    /** Creates the connector, or updates its config if it exists. */
    public void put(String name, Map<String, String> config) {
        ObjectNode body = MAPPER.createObjectNode();
        config.forEach(body::put);
        send("PUT", "/connectors/" + name + "/config", body.toString(), 200, 201);
    }

    /** Removes the connector; no error if it does not exist. */
    public void delete(String name) {
        send("DELETE", "/connectors/" + name, null, 204, 200, 404);
    }

    /** Class names of the connector plugins the cluster has; also tells that it answers. */
    public List<String> plugins() {
        List<String> out = new ArrayList<>();
        for (JsonNode p : send("GET", "/connector-plugins", null, 200)) {
            out.add(p.path("class").asText());
        }
        return out;
    }

    /**
     * The connector's committed source offsets ({@code GET /connectors/<name>/offsets}): one entry
     * per source partition, each with its {@code offset} object.
     */
    public List<JsonNode> offsets(String name) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode o :
                send("GET", "/connectors/" + name + "/offsets", null, 200).path("offsets")) {
            out.add(o.path("offset"));
        }
        return out;
    }

    /**
     * Stops the connector and its tasks and keeps its config ({@code PUT /connectors/<name>/stop});
     * its state becomes {@code STOPPED}.
     */
    public void stop(String name) {
        send("PUT", "/connectors/" + name + "/stop", null, 200, 202, 204);
    }

    /** Starts a stopped or paused connector again ({@code PUT /connectors/<name>/resume}). */
    public void resume(String name) {
        send("PUT", "/connectors/" + name + "/resume", null, 200, 202, 204);
    }

    /**
     * Deletes a stopped connector's committed offsets ({@code DELETE /connectors/<name>/offsets}):
     * it starts again as a new connector would, with a snapshot.
     */
    public void resetOffsets(String name) {
        send("DELETE", "/connectors/" + name + "/offsets", null, 200);
    }

    /**
     * Restarts a connector's failed instance and tasks ({@code POST
     * /connectors/<name>/restart?includeTasks=true&onlyFailed=true}): they resume from the
     * committed offsets.
     */
    public void restartFailed(String name) {
        send(
                "POST",
                "/connectors/" + name + "/restart?includeTasks=true&onlyFailed=true",
                null,
                200,
                202,
                204);
    }

    /** Connector state and task states, e.g. {@code RUNNING}. */
    public record Status(String connector, List<String> tasks, String trace) {
        public boolean running() {
            return "RUNNING".equals(connector)
                    && !tasks.isEmpty()
                    && tasks.stream().allMatch("RUNNING"::equals);
        }

        public boolean failed() {
            return "FAILED".equals(connector) || tasks.contains("FAILED");
        }
    }

    public Status status(String name) {
        JsonNode r = send("GET", "/connectors/" + name + "/status", null, 200);
        List<String> tasks = new ArrayList<>();
        String trace = r.path("connector").path("trace").asText(null);
        for (JsonNode t : r.path("tasks")) {
            tasks.add(t.path("state").asText());
            if (trace == null && t.hasNonNull("trace")) {
                trace = t.get("trace").asText();
            }
        }
        return new Status(r.path("connector").path("state").asText(), tasks, trace);
    }

    /**
     * Waits until the connector and its task run.
     *
     * @throws ConnectorFailedException when it fails or the timeout passes
     */
    public void awaitRunning(String name, Duration timeout) {
        Poll poll = Poll.within(timeout).every(Duration.ofMillis(100));
        Status last = null;
        while (!poll.expired()) {
            try {
                last = status(name);
            } catch (ConnectRestException e) {
                if (!e.notFound()) {
                    throw e;
                }
            }
            if (last != null && last.running()) {
                return;
            }
            if (last != null && last.failed()) {
                throw new ConnectorFailedException(
                        "connector "
                                + name
                                + " failed: "
                                + OneLineError.firstLine(last.trace(), "no detail"));
            }
            poll.pause();
        }
        throw new ConnectorFailedException(
                "connector " + name + " not running after " + timeout.toSeconds() + "s: " + last);
    }

    /**
     * Stops the connector ({@link #stop}) and waits until it has: its tasks gone, so that nothing
     * the source commits from then on is read before it starts again.
     *
     * @throws ConnectorFailedException when it is not stopped within the timeout
     */
    public void stopAndAwait(String name, Duration timeout) {
        stop(name);
        Poll poll = Poll.within(timeout).every(Duration.ofMillis(100));
        Status last = null;
        while (!poll.expired()) {
            last = status(name);
            if ("STOPPED".equals(last.connector()) && last.tasks().isEmpty()) {
                return;
            }
            poll.pause();
        }
        throw new ConnectorFailedException(
                "connector " + name + " not stopped after " + timeout.toSeconds() + "s: " + last);
    }

    private JsonNode send(String method, String path, String body, int... ok) {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(URI.create(baseUrl + path))
                        .timeout(Duration.ofSeconds(60))
                        .header("Accept", "application/json");
        if (body != null) {
            b.header("Content-Type", "application/json");
            b.method(method, HttpRequest.BodyPublishers.ofString(body));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        HttpResponse<String> r;
        try {
            r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException e) {
            throw new ConnectRestException(0, "cannot reach Kafka Connect at " + baseUrl, e);
        } catch (IOException e) {
            throw new ConnectRestException(
                    0, "Kafka Connect at " + baseUrl + " did not answer: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectRestException(0, "interrupted", e);
        }
        for (int code : ok) {
            if (r.statusCode() == code) {
                if (r.body() == null || r.body().isBlank() || code == 404) {
                    return MAPPER.createObjectNode();
                }
                try {
                    return MAPPER.readTree(r.body());
                } catch (IOException e) {
                    throw new ConnectRestException(
                            code,
                            method
                                    + " "
                                    + path
                                    + " -> "
                                    + code
                                    + " with a body that is not JSON: "
                                    + OneLineError.firstLine(r.body(), "no detail"),
                            e);
                }
            }
        }
        String message = r.body();
        try {
            message = MAPPER.readTree(r.body()).path("message").asText(r.body());
        } catch (IOException ignored) {
            // keep the raw body
        }
        throw new ConnectRestException(
                r.statusCode(),
                method
                        + " "
                        + path
                        + " -> "
                        + r.statusCode()
                        + ": "
                        + OneLineError.firstLine(message, "no detail"),
                null);
    }
}
