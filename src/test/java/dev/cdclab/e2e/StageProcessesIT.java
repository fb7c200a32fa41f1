package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cdclab.cli.CdcLab;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stages as processes of their own, started with the commands {@code up --without streams,sink}
 * prints, each with {@code --admin-port}: two Streams instances from one command line (one {@code
 * state.dir}) share the partitions, their and the sink's {@code /metrics} count what they did, and
 * {@code cdc-lab sql --admin-url} reads the warehouse the sink holds.
 */
@Timeout(420)
class StageProcessesIT {
    private static final Pattern COMMAND =
            Pattern.compile(
                    "^\\s+(?:CDCLAB_WAREHOUSE_PASSWORD=\\.\\.\\. )?\\./cdc-lab (streams|sink)(.*)$");
    private static final Pattern SETTING = Pattern.compile("-D '([^']*)'");

    @TempDir Path dir;
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void eachStageServesItsOwnMetricsAndTheSinkAnswersQueries() throws Exception {
        Path endpoints = dir.resolve("endpoints.json");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream original = System.out;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        List<CompletableFuture<Integer>> running = new ArrayList<>();
        try {
            running.add(
                    CompletableFuture.supplyAsync(
                            () ->
                                    CdcLab.execute(
                                            "up",
                                            "--without",
                                            "streams,sink",
                                            "--partitions",
                                            "2",
                                            "--endpoints-file",
                                            endpoints.toString(),
                                            "--work-dir",
                                            dir.resolve("up").toString())));
            await().atMost(Duration.ofSeconds(180))
                    .until(
                            () ->
                                    printed.toString(StandardCharsets.UTF_8).contains("Ctrl-C")
                                            || running.get(0).isDone());
            assertThat(running.get(0).isDone()).as("up exited early").isFalse();
            Map<String, List<String>> commands = new HashMap<>();
            for (String line : printed.toString(StandardCharsets.UTF_8).split("\n")) {
                Matcher m = COMMAND.matcher(line);
                if (m.matches()) {
                    List<String> args = new ArrayList<>(List.of(m.group(1)));
                    Matcher s = SETTING.matcher(m.group(2));
                    while (s.find()) {
                        args.add("-D");
                        args.add(s.group(1));
                    }
                    commands.put(m.group(1), args);
                }
            }
            assertThat(commands).as("up printed a streams and a sink command").hasSize(2);
            // as a user would: the net-change app first (it creates the topic the sink reads),
            // twice from the same command line: one state.dir, an instance directory each
            String streams = start(running, commands.get("streams"));
            await().atMost(Duration.ofSeconds(120))
                    .ignoreExceptions()
                    .until(() -> get(streams + "/metrics").contains("cdclab_open_interval_keys"));
            String streams2 = start(running, commands.get("streams"));
            await().atMost(Duration.ofSeconds(120))
                    .ignoreExceptions()
                    .until(() -> get(streams2 + "/metrics").contains("cdclab_open_interval_keys"));
            String sink = start(running, commands.get("sink"));
            await().atMost(Duration.ofSeconds(120))
                    .ignoreExceptions()
                    .until(() -> get(sink + "/metrics").contains("cdclab_sink_held_changes"));

            TestHelper.RunningUp up =
                    new TestHelper.RunningUp(
                            running.get(0),
                            endpoints,
                            new ObjectMapper().readTree(endpoints.toFile()));
            String table = "public.staged_" + Long.toHexString(System.nanoTime());
            try (Connection c = up.source();
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE " + table + " (id int PRIMARY KEY, v text)");
                s.execute(
                        "INSERT INTO "
                                + table
                                + " SELECT g, 'v' || g FROM generate_series(1, 40) g");
            }
            String tableLabel = "table=\"" + table + "\"";
            await().atMost(Duration.ofSeconds(90))
                    .until(
                            () ->
                                    get(sink + "/metrics")
                                            .contains(
                                                    "cdclab_changes_applied_total{"
                                                            + tableLabel
                                                            + "} 40.0"));
            // the two instances share the partitions, and between them read every change
            assertThat(
                            captured(get(streams + "/metrics"), tableLabel)
                                    + captured(get(streams2 + "/metrics"), tableLabel))
                    .isEqualTo(40);
            assertThat(get(streams + "/metrics")).contains("kafka_stream_");
            assertThat(get(sink + "/metrics"))
                    .containsPattern("cdclab_commit_to_warehouse_seconds_count \\d+")
                    .contains("kafka_consumer_");

            System.setOut(original);
            TestHelper.CliRun sql =
                    TestHelper.cdcLab(
                            "sql",
                            "--admin-url",
                            sink,
                            "--format",
                            "csv",
                            "SELECT count(*) AS n FROM " + table);
            assertThat(sql.code()).as(sql.out()).isZero();
            assertThat(sql.out()).contains("n\n40\n");
        } finally {
            System.setOut(original);
            CdcLab.stopRunning();
        }
        for (CompletableFuture<Integer> r : running) {
            assertThat(r.get()).isZero();
        }
        assertThat(Files.exists(endpoints)).isTrue();
    }

    /** Runs a stage command on a free admin port; returns its admin URL. */
    private static String start(List<CompletableFuture<Integer>> running, List<String> command)
            throws Exception {
        int port = freePort();
        List<String> args = new ArrayList<>(command);
        args.add("--admin-port");
        args.add(Integer.toString(port));
        running.add(
                CompletableFuture.supplyAsync(() -> CdcLab.execute(args.toArray(String[]::new))));
        return "http://127.0.0.1:" + port;
    }

    private static double captured(String scrape, String tableLabel) {
        Matcher m =
                Pattern.compile(
                                "^cdclab_changes_captured_total\\{"
                                        + Pattern.quote(tableLabel)
                                        + "\\} (\\S+)$",
                                Pattern.MULTILINE)
                        .matcher(scrape);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    private String get(String url) throws Exception {
        HttpResponse<String> r =
                http.send(
                        HttpRequest.newBuilder(URI.create(url)).build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
