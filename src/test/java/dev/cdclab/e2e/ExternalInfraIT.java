package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cdclab.cli.CdcLab;
import dev.cdclab.embedded.ConnectWorker;
import dev.cdclab.embedded.KafkaBroker;
import dev.cdclab.embedded.PostgresServer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --infra external} against services started apart from the pipeline (here in the test's own
 * JVM: a PostgreSQL server, a broker and a Connect worker): the run verifies, and on stopping
 * removes its connector, slot, publication and topics from them.
 */
@Timeout(600)
class ExternalInfraIT {
    private static PostgresServer postgres;
    private static KafkaBroker kafka;
    private static ConnectWorker connect;

    @TempDir static Path dir;

    @BeforeAll
    static void startServices() {
        postgres =
                PostgresServer.builder()
                        .dataDirectory(dir.resolve("pg"))
                        .logFile(dir.resolve("pg.log"))
                        .start();
        kafka = KafkaBroker.builder().logDir(dir.resolve("kafka")).start();
        connect =
                ConnectWorker.builder()
                        .bootstrapServers(kafka.bootstrapServers())
                        .groupId("their-connect")
                        .start();
    }

    @AfterAll
    static void stopServices() {
        for (AutoCloseable c : new AutoCloseable[] {connect, kafka, postgres}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // best effort
            }
        }
    }

    private static String[] externalArgs(String connectUrl, Path work) throws Exception {
        Path pw = Files.writeString(dir.resolve("pw-" + System.nanoTime()), postgres.password());
        return new String[] {
            "--infra",
            "external",
            "--source-jdbc-url",
            postgres.jdbcUrl(),
            "--source-user",
            postgres.user(),
            "--source-password-file",
            pw.toString(),
            "--bootstrap-servers",
            kafka.bootstrapServers(),
            "--connect-url",
            connectUrl,
            "--work-dir",
            work.toString()
        };
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void runOnTheirConnectClusterVerifiesAndCleansUp() throws Exception {
        Path json = dir.resolve("ext.json");
        TestHelper.CliResult r =
                TestHelper.cdcLabWithErrors(
                        concat(
                                concat(
                                        new String[] {"run"},
                                        externalArgs(connect.restUrl(), dir.resolve("run1"))),
                                "--duration",
                                "6s",
                                "--rate",
                                "100",
                                "--warmup",
                                "0",
                                "--prefill",
                                "500",
                                "--report-json",
                                json.toString()));
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        JsonNode report = new ObjectMapper().readTree(json.toFile());
        assertThat(report.path("verified").asBoolean()).isTrue();
        assertThat(report.path("infrastructure").path("kind").asText()).isEqualTo("external");
        String runId = report.path("run_id").asText();
        assertNothingLeft(runId);
    }

    @Test
    void runWithAWorkerInProcessOnTheirKafka() throws Exception {
        Path json = dir.resolve("ext2.json");
        TestHelper.CliResult r =
                TestHelper.cdcLabWithErrors(
                        concat(
                                concat(
                                        new String[] {"run"},
                                        externalArgs("in-process", dir.resolve("run2"))),
                                "--duration",
                                "4s",
                                "--rate",
                                "50",
                                "--warmup",
                                "0",
                                "--prefill",
                                "100",
                                "--report-json",
                                json.toString()));
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        String runId = new ObjectMapper().readTree(json.toFile()).path("run_id").asText();
        assertNothingLeft(runId);
    }

    @Test
    void theirTableWithoutAKeyStopsCaptureBeforeAnythingIsCreatedUnlessTheyChoose()
            throws Exception {
        try (Connection c = postgres.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE their_log (at timestamptz, what text)");
            s.execute("INSERT INTO their_log VALUES (now(), 'started')");
        }
        try {
            TestHelper.CliResult refused =
                    TestHelper.cdcLabWithErrors(
                            concat(
                                    concat(
                                            new String[] {"run"},
                                            externalArgs("in-process", dir.resolve("refused"))),
                                    "--duration",
                                    "2s",
                                    "--warmup",
                                    "0"));
            assertThat(refused.code()).isEqualTo(CdcLab.FAILED);
            assertThat(refused.err().lines().toList())
                    .first()
                    .asString()
                    .startsWith("cdc-lab: error: 1 table(s) without a primary key")
                    .contains("would refuse UPDATE and DELETE once published: public.their_log")
                    .contains("capture.keyless.tables=full");
            assertThat(replicaIdentity("their_log")).as("their table untouched").isEqualTo("d");
            try (Connection c = postgres.connect();
                    Statement s = c.createStatement();
                    ResultSet rs =
                            s.executeQuery(
                                    "SELECT (SELECT count(*) FROM pg_publication) + (SELECT"
                                            + " count(*) FROM pg_replication_slots)")) {
                rs.next();
                assertThat(rs.getLong(1)).as("no publication, no slot").isZero();
            }

            // they choose to capture only the tables with a key
            Path json = dir.resolve("exclude.json");
            TestHelper.CliResult r =
                    TestHelper.cdcLabWithErrors(
                            concat(
                                    concat(
                                            new String[] {"run"},
                                            externalArgs("in-process", dir.resolve("exclude"))),
                                    "--duration",
                                    "3s",
                                    "--rate",
                                    "50",
                                    "--warmup",
                                    "0",
                                    "--prefill",
                                    "100",
                                    "-D",
                                    "capture.keyless.tables=exclude",
                                    "--report-json",
                                    json.toString()));
            assertThat(r.code()).as(r.out() + r.err()).isZero();
            JsonNode report = new ObjectMapper().readTree(json.toFile());
            JsonNode theirs = null;
            for (JsonNode t : report.path("verification").path("tables")) {
                if (t.path("table").asText().equals("public.their_log")) {
                    theirs = t;
                }
            }
            assertThat(theirs).as(report.toString()).isNotNull();
            assertThat(theirs.path("skipped").asText()).startsWith("not captured");
            try (Connection c = postgres.connect();
                    Statement s = c.createStatement()) {
                // their application's statements still work
                assertThat(s.executeUpdate("UPDATE their_log SET what = 'still works'"))
                        .isEqualTo(1);
                assertThat(s.executeUpdate("DELETE FROM their_log")).isEqualTo(1);
            }
            assertNothingLeft(report.path("run_id").asText());
        } finally {
            try (Connection c = postgres.connect();
                    Statement s = c.createStatement()) {
                s.execute("DROP TABLE their_log");
            }
        }
    }

    private static String replicaIdentity(String table) throws Exception {
        try (Connection c = postgres.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT relreplident FROM pg_class WHERE relname = '"
                                        + table
                                        + "'")) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Test
    void missingSourceUrlIsAUsageError() {
        TestHelper.CliResult r =
                TestHelper.cdcLabWithErrors(
                        "run",
                        "--infra",
                        "external",
                        "--bootstrap-servers",
                        kafka.bootstrapServers(),
                        "--work-dir",
                        dir.resolve("bad").toString());
        assertThat(r.code()).isEqualTo(CdcLab.USAGE);
        assertThat(r.err().lines().toList())
                .singleElement()
                .asString()
                .contains("infra.source.jdbc.url")
                .contains("--source-jdbc-url");
    }

    @Test
    void kafkaThatDoesNotAnswerIsOneLine() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        String[] args = externalArgs("in-process", dir.resolve("nokafka"));
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--bootstrap-servers")) {
                args[i + 1] = "127.0.0.1:" + closed;
            }
        }
        TestHelper.CliResult r = TestHelper.cdcLabWithErrors(concat(new String[] {"run"}, args));
        assertThat(r.code()).isEqualTo(CdcLab.FAILED);
        assertThat(r.err().lines().toList())
                .singleElement()
                .asString()
                .contains("Kafka at 127.0.0.1:" + closed + " does not answer");
    }

    private static void assertNothingLeft(String runId) throws Exception {
        try (Connection c = postgres.connect();
                Statement s = c.createStatement()) {
            try (ResultSet rs =
                    s.executeQuery(
                            "SELECT count(*) FROM pg_replication_slots WHERE slot_name LIKE '%"
                                    + runId
                                    + "%'")) {
                rs.next();
                assertThat(rs.getLong(1)).as("slot removed").isZero();
            }
            try (ResultSet rs =
                    s.executeQuery(
                            "SELECT count(*) FROM pg_publication WHERE pubname LIKE '%"
                                    + runId
                                    + "%'")) {
                rs.next();
                assertThat(rs.getLong(1)).as("publication removed").isZero();
            }
        }
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS))
                    .as("topics removed")
                    .noneMatch(t -> t.contains(runId));
        }
    }
}
