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
                    "^\\s+CDCLAB_ADMIN_TOKEN=(\\S+) (?:CDCLAB_WAREHOUSE_PASSWORD=(\\S+) )?"
                            + "(?:CDCLAB_QUERY_PASSWORD=(\\S+) )?\\./cdc-lab (streams|sink)(.*)$");
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
            Map<String, List<String>> commands =
                    up(running, printed, endpoints, "--partitions", "2");
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
                            new ObjectMapper().readTree(endpoints.toFile()),
                            printed);
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
                            "--admin-token-file",
                            dir.resolve("admin-token").toString(),
                            "--format",
                            "csv",
                            "SELECT count(*) AS n FROM " + table);
            assertThat(sql.code()).as(sql.out()).isZero();
            assertThat(sql.out()).contains("n\n40\n");

            // the DuckDB file is the sink process's alone: verify says so instead of waiting
            TestHelper.CliResult refused =
                    TestHelper.cdcLabWithErrors("verify", "--endpoints-file", endpoints.toString());
            assertThat(refused.code()).as(refused.out()).isNotZero();
            assertThat(refused.err()).contains("DuckDB admits one process");
        } finally {
            System.setOut(original);
            CdcLab.stopRunning();
        }
        for (CompletableFuture<Integer> r : running) {
            assertThat(r.get()).isZero();
        }
        assertThat(Files.exists(endpoints)).isTrue();
    }

    @Test
    void verifyWaitsForSinksOfTheirOwnThenComparesTheirPostgresWarehouse() throws Exception {
        Path endpoints = dir.resolve("endpoints-pg.json");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream original = System.out;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        List<CompletableFuture<Integer>> running = new ArrayList<>();
        try {
            Map<String, List<String>> commands =
                    up(
                            running,
                            printed,
                            endpoints,
                            "--partitions",
                            "2",
                            "--warehouse",
                            "postgresql");
            String streams = start(running, commands.get("streams"));
            await().atMost(Duration.ofSeconds(120))
                    .ignoreExceptions()
                    .until(() -> get(streams + "/metrics").contains("cdclab_open_interval_keys"));
            // two sinks, a partition each: one commits what both staged
            List<String> sinks = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                String sink = start(running, commands.get("sink"));
                await().atMost(Duration.ofSeconds(120))
                        .ignoreExceptions()
                        .until(() -> get(sink + "/metrics").contains("cdclab_sink_held_changes"));
                sinks.add(sink);
            }
            TestHelper.RunningUp up =
                    new TestHelper.RunningUp(
                            running.get(0),
                            endpoints,
                            new ObjectMapper().readTree(endpoints.toFile()),
                            printed);
            String table = "public.verified_" + Long.toHexString(System.nanoTime());
            try (Connection c = up.source();
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE " + table + " (id int PRIMARY KEY, v int)");
                s.execute("INSERT INTO " + table + " SELECT g, g FROM generate_series(1, 200) g");
                s.execute("UPDATE " + table + " SET v = v + 1 WHERE id % 3 = 0");
                s.execute("DELETE FROM " + table + " WHERE id % 7 = 0");
            }
            System.setOut(original);
            // the source is quiet from here: verify waits on the progress the sinks commit
            TestHelper.CliResult verified =
                    TestHelper.cdcLabWithErrors(
                            "verify", "--endpoints-file", endpoints.toString(), "--timeout", "90s");
            assertThat(verified.code()).as(verified.out() + verified.err()).isZero();
            assertThat(verified.out())
                    .contains("warehouse caught up with the source")
                    .containsPattern(Pattern.quote(table) + "\\s+ok")
                    .contains("verified: ");
            // nothing changed since: only the progress committed while idle can answer
            TestHelper.CliResult again =
                    TestHelper.cdcLabWithErrors(
                            "verify", "--endpoints-file", endpoints.toString(), "--timeout", "30s");
            assertThat(again.code()).as(again.out() + again.err()).isZero();
        } finally {
            System.setOut(original);
            CdcLab.stopRunning();
        }
        for (CompletableFuture<Integer> r : running) {
            assertThat(r.get()).isZero();
        }
    }

    /**
     * Starts {@code up --without streams,sink ARGS} and returns the stage commands it printed, as
     * arguments, with the warehouse password (printed for the environment) as a setting.
     */
    private Map<String, List<String>> up(
            List<CompletableFuture<Integer>> running,
            ByteArrayOutputStream printed,
            Path endpoints,
            String... args) {
        List<String> upArgs =
                new ArrayList<>(
                        List.of(
                                "up",
                                "--without",
                                "streams,sink",
                                "--endpoints-file",
                                endpoints.toString(),
                                "--work-dir",
                                dir.resolve("up-" + endpoints.getFileName()).toString()));
        upArgs.addAll(List.of(args));
        running.add(
                CompletableFuture.supplyAsync(() -> CdcLab.execute(upArgs.toArray(String[]::new))));
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
                List<String> stage = new ArrayList<>(List.of(m.group(4)));
                Matcher s = SETTING.matcher(m.group(5));
                while (s.find()) {
                    stage.add("-D");
                    stage.add(s.group(1));
                }
                // the environment a user's shell would give, as a setting and a token file
                if (m.group(2) != null) {
                    stage.add("-D");
                    stage.add("warehouse.password=" + m.group(2));
                }
                if (m.group(3) != null) {
                    stage.add("-D");
                    stage.add("query.password=" + m.group(3));
                }
                stage.add("--admin-token-file");
                stage.add(tokenFile(m.group(1)).toString());
                commands.put(m.group(4), stage);
            }
        }
        assertThat(commands).as("up printed a streams and a sink command").hasSize(2);
        return commands;
    }

    /** A file holding the stages' admin token, as a user would keep it. */
    private Path tokenFile(String token) {
        Path f = dir.resolve("admin-token");
        try {
            Files.writeString(f, token + "\n");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return f;
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
