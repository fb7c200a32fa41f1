package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetChangeCodec;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.streams.NetChangeConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Fixtures for end-to-end tests (after Debezium's TestHelper): SQL in one transaction, topics. */
final class TestHelper {
    private TestHelper() {}

    /** What a command line printed to standard output, and its exit code. */
    record CliRun(int code, String out) {}

    /** What a command printed on standard output and on standard error, and its exit code. */
    record CliResult(int code, String out, String err) {}

    /** Runs {@code cdc-lab ARGS} in this JVM, capturing standard output and standard error. */
    static CliResult cdcLabWithErrors(String... args) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        java.io.PrintStream originalOut = System.out;
        java.io.PrintStream originalErr = System.err;
        int code;
        try {
            System.setOut(new java.io.PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
            code = dev.cdclab.cli.CdcLab.execute(args);
        } finally {
            System.setOut(originalOut);
            System.setErr(originalErr);
        }
        return new CliResult(
                code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Runs {@code cdc-lab ARGS} in this JVM, capturing what it prints. */
    static CliRun cdcLab(String... args) {
        CliResult r = cdcLabWithErrors(args);
        // what went to standard error stays in the test's log
        System.err.print(r.err());
        return new CliRun(r.code(), r.out());
    }

    /**
     * Runs {@code ./cdc-lab ARGS} from the repository root, the launcher a user runs: its JVM
     * settings, its class path of jars (so the stages' JVMs a command starts share class-data
     * archives, as they do for a user), in a process of its own. Standard output and error go to
     * {@code out} and {@code out.err}. A run that outlives {@code timeout} is stopped with SIGTERM,
     * so that it stops the processes it started.
     */
    static CliRun cdcLabLauncher(Path out, Duration timeout, String... args)
            throws IOException, InterruptedException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        List<String> cmd = new ArrayList<>(List.of(root.resolve("cdc-lab").toString()));
        cmd.addAll(List.of(args));
        Path err = out.resolveSibling(out.getFileName() + ".err");
        Process p =
                new ProcessBuilder(cmd)
                        .directory(root.toFile())
                        .redirectOutput(out.toFile())
                        .redirectError(err.toFile())
                        .start();
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError(
                        "./cdc-lab " + String.join(" ", args) + " ran over " + timeout);
            }
        } finally {
            if (p.isAlive()) {
                p.destroy();
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
        }
        String printed = Files.readString(out, StandardCharsets.UTF_8);
        String errors = Files.readString(err, StandardCharsets.UTF_8);
        return new CliRun(p.exitValue(), errors.isBlank() ? printed : printed + errors);
    }

    /**
     * {@code cdc-lab up} running in this JVM, started by {@link #up}; {@link
     * dev.cdclab.cli.CdcLab#stopRunning()} stops it.
     *
     * @param exit its exit code, once it has stopped
     * @param endpointsFile the file it wrote
     * @param endpoints that file's content
     */
    record RunningUp(
            CompletableFuture<Integer> exit,
            Path endpointsFile,
            JsonNode endpoints,
            java.io.ByteArrayOutputStream printed) {
        /** What {@code up} printed so far. */
        String printedText() {
            synchronized (printed) {
                return printed.toString(StandardCharsets.UTF_8);
            }
        }

        /** The admin endpoint's token, from the endpoints file. */
        String adminToken() {
            return endpoints.get("admin_token").asText();
        }

        /** The live page's address as {@code up} printed it, its token included. */
        String printedPageUrl() {
            for (String line : printedText().split("\n")) {
                if (line.strip().startsWith("live page")) {
                    return line.strip().substring("live page".length()).strip();
                }
            }
            throw new AssertionError("up printed no live page address: " + printedText());
        }

        /** A connection to its source, as a user's client would open one. */
        Connection source() throws SQLException {
            return DriverManager.getConnection(
                    endpoints.get("source_jdbc_url").asText(),
                    endpoints.get("source_user").asText(),
                    endpoints.get("source_password").asText());
        }

        String adminUrl() {
            return endpoints.get("admin_url").asText();
        }
    }

    /**
     * Starts {@code cdc-lab up --endpoints-file <dir>/endpoints.json --work-dir <dir>/up EXTRA} in
     * this JVM and returns once it has written its endpoints.
     */
    static RunningUp up(Path dir, String... extra) throws IOException {
        Path endpoints = dir.resolve("endpoints.json");
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "up",
                                "--endpoints-file",
                                endpoints.toString(),
                                "--work-dir",
                                dir.resolve("up").toString()));
        args.addAll(List.of(extra));
        // what up prints goes on to standard output, and is kept for the test to read
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        java.io.PrintStream original = System.out;
        java.io.PrintStream tee =
                new java.io.PrintStream(
                        new java.io.OutputStream() {
                            @Override
                            public void write(int b) {
                                original.write(b);
                                synchronized (printed) {
                                    if (printed.size() < 1 << 20) {
                                        printed.write(b);
                                    }
                                }
                            }

                            @Override
                            public void write(byte[] b, int off, int len) {
                                original.write(b, off, len);
                                synchronized (printed) {
                                    if (printed.size() < 1 << 20) {
                                        printed.write(b, off, len);
                                    }
                                }
                            }
                        },
                        true,
                        StandardCharsets.UTF_8);
        System.setOut(tee);
        CompletableFuture<Integer> exit;
        try {
            exit =
                    CompletableFuture.supplyAsync(
                            () -> dev.cdclab.cli.CdcLab.execute(args.toArray(String[]::new)));
            await().atMost(Duration.ofSeconds(180))
                    .until(
                            () ->
                                    (Files.exists(endpoints)
                                                    && printed(printed).contains("Ctrl-C to stop"))
                                            || exit.isDone());
        } finally {
            System.setOut(original);
        }
        assertThat(exit.isDone()).as("up exited early").isFalse();
        return new RunningUp(
                exit, endpoints, new ObjectMapper().readTree(endpoints.toFile()), printed);
    }

    private static String printed(java.io.ByteArrayOutputStream printed) {
        synchronized (printed) {
            return printed.toString(StandardCharsets.UTF_8);
        }
    }

    /** The rows of a query, each as its values' texts joined by {@code |} (null for one NULL). */
    static List<String> rowsOf(DataSource ds, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                java.sql.ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                if (n == 1) {
                    out.add(rs.getString(1));
                    continue;
                }
                StringBuilder sb = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    sb.append(i > 1 ? "|" : "").append(rs.getString(i));
                }
                out.add(sb.toString());
            }
        }
        return out;
    }

    /** Runs statements in one source transaction. */
    static void tx(DataSource source, String... statements) throws SQLException {
        try (Connection c = source.getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                for (String sql : statements) {
                    s.execute(sql);
                }
            }
            c.commit();
        }
    }

    /** Runs a SQL file from the test resources, statement by statement, in one transaction. */
    static void script(DataSource source, String resource) throws Exception {
        String text;
        try (InputStream in = TestHelper.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no resource " + resource);
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        StringBuilder sql = new StringBuilder();
        for (String line : text.split("\n")) {
            if (!line.strip().startsWith("--")) {
                sql.append(line).append('\n');
            }
        }
        tx(source, sql.toString().split(";\\s*\n"));
    }

    /** Every net change written so far (markers left out), read from the net-change topic. */
    static List<NetChange> netChanges(Pipeline p) {
        Properties props = new Properties();
        props.put("bootstrap.servers", p.infrastructure().kafkaBootstrapServers());
        props.put("group.id", "test-reader-" + System.nanoTime());
        props.put("auto.offset.reset", "earliest");
        props.put("enable.auto.commit", "false");
        List<NetChange> out = new ArrayList<>();
        try (var consumer =
                new KafkaConsumer<byte[], byte[]>(
                        props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            String topic = p.netChangeConfig().get(NetChangeConfig.NET_CHANGES_TOPIC);
            var parts =
                    consumer.partitionsFor(topic).stream()
                            .map(i -> new TopicPartition(topic, i.partition()))
                            .toList();
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            var end = consumer.endOffsets(parts);
            while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    if (NetChangeCodec.decode(r.value()) instanceof NetChange c) {
                        out.add(c);
                    }
                }
            }
        }
        return out;
    }

    /** The last {@code lines} lines of a log, or why it cannot be read: for failure messages. */
    static String tail(Path log, int lines) {
        try {
            List<String> all = Files.readAllLines(log);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | RuntimeException e) {
            return "(" + log + " unreadable: " + e + ")";
        }
    }
}
