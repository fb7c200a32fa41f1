package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cdclab.cli.CdcLab;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's commands, run in-process: {@code run}, and {@code up} + your own writes + {@code
 * verify}.
 */
@Timeout(600)
class CommandLineIT {
    @TempDir Path dir;

    @Test
    void runPrintsAVerifiedReportAndWritesItsJson() throws Exception {
        Path json = dir.resolve("report.json");
        TestHelper.CliRun run =
                TestHelper.cdcLab(
                        "run",
                        "--duration",
                        "8s",
                        "--rate",
                        "100",
                        "--warmup",
                        "0",
                        "--prefill",
                        "500",
                        "--work-dir",
                        dir.resolve("run").toString(),
                        "--report-json",
                        json.toString());
        int code = run.code();
        String out = run.out();
        assertThat(code).as(out).isZero();
        assertThat(out)
                .contains("verified: warehouse matches source")
                .contains("fsync=on")
                .contains("synchronous_commit=on");
        JsonNode r = new ObjectMapper().readTree(json.toFile());
        assertThat(r.get("verified").asBoolean()).isTrue();
        assertThat(r.get("source_changes").asLong()).isPositive();
        assertThat(r.get("captured_changes").asLong()).isEqualTo(r.get("source_changes").asLong());
        assertThat(r.get("net_changes_applied").asLong()).isPositive();
        assertThat(r.get("throughput_changes_per_s").asDouble()).isPositive();
        assertThat(r.get("catch_up_s").asDouble()).isGreaterThanOrEqualTo(0);
        for (String p : new String[] {"p50", "p95", "p99", "max"}) {
            assertThat(r.get("latency_ms").get(p).asDouble()).as(p).isPositive();
        }
        assertThat(r.get("stages_ms").size()).isEqualTo(4);
        r.get("stages_ms").forEach(s -> assertThat(s.has("p50") && s.has("p99")).isTrue());
        assertThat(r.get("source_settings").get("fsync").asText()).isEqualTo("on");
    }

    @Test
    void runStartsAPostgresWarehouseOfItsOwnAndStopsIt() throws Exception {
        Path work = dir.resolve("pg");
        Path json = dir.resolve("pg.json");
        TestHelper.CliRun run =
                TestHelper.cdcLab(
                        "run",
                        "--warehouse",
                        "postgresql",
                        "--duration",
                        "5s",
                        "--rate",
                        "100",
                        "--warmup",
                        "0",
                        "--prefill",
                        "300",
                        "--work-dir",
                        work.toString(),
                        "--report-json",
                        json.toString());
        assertThat(run.code()).as(run.out()).isZero();
        assertThat(run.out())
                .contains("verified: warehouse matches source")
                .contains("warehouse=postgresql")
                .contains("warehouse_fsync=on")
                .contains("warehouse_max_wal_size=4GB warehouse_checkpoint_timeout=15min")
                .contains("load_nice=19");
        JsonNode r = new ObjectMapper().readTree(json.toFile());
        assertThat(r.get("verified").asBoolean()).isTrue();
        assertThat(r.get("net_changes_applied").asLong()).isPositive();
        assertThat(work.resolve("warehouse.duckdb")).doesNotExist();
        // the server's own log ends with its shutdown: the run stopped what it started
        Path log = work.resolve("logs").resolve("warehouse-postgres.log");
        assertThat(java.nio.file.Files.readString(log)).contains("database system is shut down");
    }

    @Test
    void upCapturesTablesAUserCreatesAndVerifyComparesThem() throws Exception {
        TestHelper.RunningUp up = TestHelper.up(dir, "--interval", "500ms");
        Path endpoints = up.endpointsFile();
        try {
            JsonNode e = up.endpoints();
            for (String k :
                    new String[] {
                        "source_jdbc_url",
                        "source_host",
                        "source_port",
                        "source_database",
                        "source_user",
                        "source_password",
                        "kafka_bootstrap",
                        "connect_url",
                        "warehouse_url"
                    }) {
                assertThat(e.hasNonNull(k)).as(k).isTrue();
            }
            // what a user would type into psql
            try (Connection c = up.source();
                    Statement s = c.createStatement()) {
                s.execute(
                        "CREATE TABLE notes (id serial PRIMARY KEY, body text, score numeric(5,1))");
                s.execute(
                        "INSERT INTO notes (body, score) SELECT 'note ' || g, g / 3.0 FROM generate_series(1, 500) g");
                s.execute("UPDATE notes SET body = upper(body) WHERE id % 7 = 0");
                s.execute("DELETE FROM notes WHERE id % 11 = 0");
            }
            assertThat(
                            CdcLab.execute(
                                    "verify",
                                    "--endpoints-file",
                                    endpoints.toString(),
                                    "--timeout",
                                    "60s"))
                    .isZero();
        } finally {
            CdcLab.stopRunning();
        }
        assertThat(up.exit().get()).isZero();
        JsonNode e = new ObjectMapper().readTree(endpoints.toFile());
        assertThat(Path.of(e.get("warehouse_url").asText().substring("jdbc:duckdb:".length())))
                .exists();
        int port = e.get("source_port").asInt();
        await().atMost(Duration.ofSeconds(30)).until(() -> !listening(port));
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (Exception e) {
            return false;
        }
    }
}
