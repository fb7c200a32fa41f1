package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cdclab.capture.CaptureConfig;
import dev.cdclab.capture.ConnectRestClient;
import dev.cdclab.capture.SqlServerCapture;
import dev.cdclab.config.SourceKind;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.orchestration.infra.ContainerImages;
import dev.cdclab.orchestration.infra.InfraSpec;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * SQL Server end to end, as the white paper runs it: a SQL Server container with its Agent, CDC
 * enabled and tuned by the pipeline, the Debezium SQL Server connector (3.6, in its own plugin
 * directory) beside the PostgreSQL one, and verification against SQL Server. Skipped where Docker
 * cannot be had, or where the SQL Server image cannot be (no registry): it runs as it is on a
 * machine with Docker and internet.
 */
@Testcontainers(disabledWithoutDocker = true)
@Timeout(900)
class SqlServerIT {
    private static final String IMAGE = ContainerImages.fromEnvironment().sqlserver();

    @TempDir Path dir;

    private static String unavailable;

    /** Skips each test, with the reason, where the image cannot be had (asked once). */
    @BeforeEach
    void imageCanBeHad() {
        if (unavailable == null) {
            String why = TestContainers.whyImageCannotBeHad(IMAGE);
            unavailable = why == null ? "" : why;
        }
        Assumptions.assumeTrue(
                unavailable.isEmpty(), () -> IMAGE + " cannot be had here: " + unavailable);
    }

    @Test
    void runOnSqlServerVerifiesAndReportsTheCaptureJob() throws Exception {
        Path json = dir.resolve("report.json");
        TestHelper.CliResult r =
                TestHelper.cdcLabWithErrors(
                        "run",
                        "--source",
                        "sqlserver",
                        "--infra",
                        "containers",
                        "--accept-sqlserver-eula",
                        "--sqlserver-image",
                        IMAGE,
                        "--duration",
                        "10s",
                        "--rate",
                        "100",
                        "--warmup",
                        "0",
                        "--prefill",
                        "500",
                        "-D",
                        "capture.sqlserver.capture.pollinginterval=1s",
                        "--work-dir",
                        dir.resolve("run").toString(),
                        "--report-json",
                        json.toString());
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        JsonNode report = new ObjectMapper().readTree(json.toFile());
        assertThat(report.path("verified").asBoolean()).isTrue();
        assertThat(report.path("infrastructure").path("images").path("source").asText())
                .isEqualTo(IMAGE);
        assertThat(report.path("source_settings").path("capture_pollinginterval_s").asText())
                .isEqualTo("1");
        assertThat(report.path("capture_job").path("sessions").asLong()).isPositive();
        assertThat(report.path("capture_job").path("command_count").asLong()).isPositive();
        assertThat(TestContainers.leftoversOf(report.path("run_id").asText())).isEmpty();
    }

    @Test
    void aSchemaChangeThroughASecondCaptureInstanceLosesNothing() throws Exception {
        try (Pipeline p =
                Pipeline.builder()
                        .infrastructure(
                                InfraSpec.containers(
                                        SourceKind.SQLSERVER,
                                        ContainerImages.fromEnvironment(),
                                        false,
                                        true,
                                        1))
                        .workDir(dir.resolve("switch"))
                        .runId("switch" + Long.toString(System.nanoTime() % 100_000, 36))
                        .interval(Duration.ofMillis(500))
                        .capture("sqlserver.capture.pollinginterval", "1s")
                        .beforeCapture(
                                src -> {
                                    try (Connection c = src.connect();
                                            Statement s = c.createStatement()) {
                                        s.execute(
                                                "CREATE TABLE dbo.customers (id INT PRIMARY KEY,"
                                                        + " name NVARCHAR(40))");
                                        s.execute(
                                                "INSERT INTO dbo.customers VALUES (1, 'a'), (2, 'b')");
                                    }
                                })
                        .start()) {
            try (Connection c = p.sourceConnection();
                    Statement s = c.createStatement()) {
                s.execute("INSERT INTO dbo.customers VALUES (3, 'c')");
                // the old capture instance keeps its columns: the new one is created right after
                // the DDL, before anything writes the new column
                s.execute("ALTER TABLE dbo.customers ADD tier INT NULL");
            }
            SqlServerCapture capture = (SqlServerCapture) p.captureSource();
            ConnectRestClient rest = new ConnectRestClient(p.infrastructure().connectUrl());
            String connector = p.captureConfig().get(CaptureConfig.CONNECTOR_NAME);
            SqlServerCapture.Switch sw =
                    capture.switchCaptureInstance(
                            "dbo.customers",
                            () -> firstCommitLsn(rest, connector),
                            Duration.ofMinutes(3));
            assertThat(sw.newInstance()).isEqualTo("dbo_customers_v2");
            try (Connection c = p.sourceConnection();
                    Statement s = c.createStatement()) {
                s.execute("INSERT INTO dbo.customers VALUES (4, 'd', 2)");
                s.execute("UPDATE dbo.customers SET tier = 3 WHERE id = 2");
            }
            p.awaitCaughtUp(Duration.ofMinutes(2));
            assertThat(p.verify().matches()).as(p.verify().summary()).isTrue();
            try (Connection w = p.warehouseConnection();
                    Statement s = w.createStatement();
                    ResultSet rs = s.executeQuery("SELECT tier FROM dbo.customers WHERE id = 4")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).as("the new column reached the warehouse").isEqualTo(2);
            }
        }
    }

    private static String firstCommitLsn(ConnectRestClient rest, String connector) {
        for (JsonNode o : rest.offsets(connector)) {
            if (o.hasNonNull("commit_lsn")) {
                return o.get("commit_lsn").asText();
            }
        }
        return null;
    }
}
