package dev.cdclab.orchestration.infra;

import dev.cdclab.embedded.ConnectWorker;
import dev.cdclab.embedded.LoopbackPorts;
import dev.cdclab.wait.Poll;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.runtime.Connect;

/**
 * The embedded Connect worker in a JVM of its own, so that it can be killed ({@code kill -9}) and
 * started again on the same REST port, offsets and configs in Kafka as a real worker keeps them.
 */
final class ConnectWorkerProcess implements AutoCloseable {
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

    private final ChildJvm jvm;
    private final String restUrl;

    private ConnectWorkerProcess(ChildJvm jvm, String restUrl) {
        this.jvm = jvm;
        this.restUrl = restUrl;
    }

    static ConnectWorkerProcess start(ConnectWorker.Builder worker, Path workDir) {
        int port = LoopbackPorts.free();
        Map<String, String> props = new HashMap<>(worker.workerProperties());
        props.put("listeners", "http://127.0.0.1:" + port);
        Path file = workDir.resolve("connect-worker.properties");
        ChildJvm.writeSettings(file, props, "Kafka Connect worker of cdc-lab, in its own process");
        ChildJvm jvm =
                new ChildJvm(
                        "connect",
                        ConnectWorkerProcess.class.getName(),
                        List.of(
                                file.toAbsolutePath().toString(),
                                workDir.resolve("logs/connect.log").toAbsolutePath().toString()),
                        workDir,
                        Map.of(),
                        List.of("-Xmx768m", "-XX:+UseSerialGC"));
        ConnectWorkerProcess w = new ConnectWorkerProcess(jvm, "http://127.0.0.1:" + port);
        try {
            w.startAgain();
        } catch (RuntimeException e) {
            jvm.kill();
            throw e;
        }
        return w;
    }

    String restUrl() {
        return restUrl;
    }

    /** {@code kill -9} of the worker. */
    void kill() {
        jvm.kill();
    }

    /** Starts the worker again and waits until its REST API answers. */
    void startAgain() {
        jvm.start();
        HttpClient http = HttpClient.newHttpClient();
        Poll poll = Poll.within(READY_TIMEOUT).every(Duration.ofMillis(200));
        while (!poll.expired()) {
            if (!jvm.alive()) {
                throw new IllegalStateException(
                        "Kafka Connect process ended with exit code "
                                + jvm.exitCode()
                                + " (see "
                                + jvm.logFile()
                                + ")");
            }
            try {
                HttpResponse<Void> r =
                        http.send(
                                HttpRequest.newBuilder(URI.create(restUrl + "/connectors"))
                                        .timeout(Duration.ofSeconds(2))
                                        .build(),
                                HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while Connect starts", e);
            }
            poll.pause();
        }
        throw new IllegalStateException(
                "Kafka Connect process did not answer within " + READY_TIMEOUT.toSeconds() + " s");
    }

    boolean alive() {
        return jvm.alive();
    }

    @Override
    public void close() {
        jvm.stop();
    }

    /** Entry point of the worker process: {@code <worker.properties> <log file>}. */
    public static void main(String[] args) throws IOException {
        Map<String, String> props = ChildJvm.readSettings(Path.of(args[0]), Path.of(args[1]));
        Connect<?> connect = new ConnectDistributed().startConnect(props);
        connect.awaitStop();
    }
}
