package dev.cdclab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Bad input gets one clear line and a non-zero exit; nothing is left running. */
@Timeout(120)
class CdcLabCliTest {
    @TempDir Path dir;

    record Result(int code, String out, String err) {}

    private static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = System.out;
        PrintStream e = System.err;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            int code = CdcLab.execute(args);
            return new Result(
                    code,
                    out.toString(StandardCharsets.UTF_8),
                    err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(o);
            System.setErr(e);
        }
    }

    @Test
    void unknownOptionIsAUsageError() {
        Result r = run("run", "--rat", "5");
        assertThat(r.code()).isEqualTo(CdcLab.USAGE);
        assertThat(r.err())
                .startsWith("cdc-lab: Unknown options: '--rat', '5'")
                .contains("Try 'cdc-lab run --help'.");
    }

    @Test
    void badValuesNameTheOption() {
        assertThat(run("run", "--duration", "soon").err())
                .contains("'--duration'")
                .contains("not a duration");
        Result zero = run("run", "--duration", "0s", "--work-dir", dir.toString());
        assertThat(zero.code()).isEqualTo(CdcLab.USAGE);
        assertThat(zero.err().strip()).isEqualTo("cdc-lab: error: --duration must be > 0");
        Result nice = run("run", "--load-nice", "20", "--work-dir", dir.toString());
        assertThat(nice.code()).isEqualTo(CdcLab.USAGE);
        assertThat(nice.err().strip()).isEqualTo("cdc-lab: error: --load-nice must be 0..19");
        assertThat(run("run", "--net-changes", "some").err())
                .contains("'some' is not one of all, all-with-merge, off");
        assertThat(run("run", "--workload", "W99", "--work-dir", dir.toString()).err())
                .contains("unknown workload 'W99'; choose one of");
        Result badKey = run("run", "--work-dir", dir.toString(), "-D", "streams.intervall=1s");
        assertThat(badKey.code()).isEqualTo(CdcLab.USAGE);
    }

    @Test
    void applyBenchPrintsARowPerSizeAndRefusesSettingsThatMeasureNothing() throws Exception {
        Result r =
                run(
                        "apply-bench",
                        "--rows",
                        "1000,3000",
                        "--transactions",
                        "3",
                        "--warmup-transactions",
                        "0",
                        "--changes",
                        "50",
                        "--work-dir",
                        dir.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .containsPattern("(?m)^ +1,000 \\|")
                .containsPattern("(?m)^ +3,000 \\|")
                .contains("p50 at 3,000 rows / p50 at 1,000 rows: ");
        try (var left = java.nio.file.Files.list(dir)) {
            assertThat(left.map(p -> p.getFileName().toString()))
                    .as("the warehouses are removed; the logs stay")
                    .containsExactly("logs");
        }
        Result none = run("apply-bench", "--changes", "0", "--work-dir", dir.toString());
        assertThat(none.code()).isEqualTo(CdcLab.USAGE);
        assertThat(none.err().strip()).isEqualTo("cdc-lab: error: --changes must be at least 1");
        Result onDuckDb =
                run(
                        "apply-bench",
                        "--server-setting",
                        "shared_buffers=1GB",
                        "--work-dir",
                        dir.toString());
        assertThat(onDuckDb.code()).isEqualTo(CdcLab.USAGE);
        assertThat(onDuckDb.err().strip())
                .isEqualTo(
                        "cdc-lab: error: --server-setting applies to --warehouse postgresql only");
        Result badName =
                run(
                        "apply-bench",
                        "--warehouse",
                        "postgresql",
                        "--server-setting",
                        "shared buffers=1GB",
                        "--work-dir",
                        dir.toString());
        assertThat(badName.code()).isEqualTo(CdcLab.USAGE);
        assertThat(badName.err())
                .contains("--server-setting must be NAME=VALUE")
                .contains("shared buffers=1GB");
    }

    @Test
    void overheadKeepsPasswordsOutOfItsExperimentFile() {
        Result r =
                run(
                        "overhead",
                        "--work-dir",
                        dir.toString(),
                        "-D",
                        "sink.warehouse.password=hunter2");
        assertThat(r.code()).isEqualTo(CdcLab.USAGE);
        assertThat(r.err().strip())
                .startsWith("cdc-lab: error: -D sink.warehouse.password: overhead writes")
                .contains("CDCLAB_WAREHOUSE_PASSWORD")
                .doesNotContain("hunter2");
    }

    @Test
    void compareRejectsWhatItCannotRunBeforeStartingAnything() {
        Result unknown = run("bench", "--compare", "flink", "--work-dir", dir.toString());
        assertThat(unknown.code()).isEqualTo(CdcLab.USAGE);
        assertThat(unknown.err()).contains("'flink' is not a pipeline to compare with");
        Result infra =
                run(
                        "bench",
                        "--compare",
                        "debezium-jdbc",
                        "--infra",
                        "containers",
                        "--work-dir",
                        dir.toString());
        assertThat(infra.code()).isEqualTo(CdcLab.USAGE);
        assertThat(infra.err().strip())
                .isEqualTo(
                        "cdc-lab: error: --compare runs every pipeline embedded; leave out --infra");
        Result warehouse =
                run(
                        "bench",
                        "--compare",
                        "debezium-jdbc",
                        "--warehouse-url",
                        "jdbc:postgresql://127.0.0.1:1/x",
                        "--work-dir",
                        dir.toString());
        assertThat(warehouse.code()).isEqualTo(CdcLab.USAGE);
        assertThat(warehouse.err()).contains("--compare starts its own warehouses");
        Result postgres =
                run(
                        "bench",
                        "--compare",
                        "debezium-jdbc",
                        "--warehouse",
                        "postgresql",
                        "--work-dir",
                        dir.toString());
        assertThat(postgres.code()).isEqualTo(CdcLab.USAGE);
        assertThat(postgres.err()).contains("--compare starts its own warehouses");
        Result backlog =
                run(
                        "bench",
                        "--compare",
                        "debezium-jdbc",
                        "--backlog",
                        "-1",
                        "--work-dir",
                        dir.toString());
        assertThat(backlog.code()).isEqualTo(CdcLab.USAGE);
        assertThat(backlog.err().strip()).isEqualTo("cdc-lab: error: --backlog must be >= 0");
    }

    @Test
    void aWarehouseOfItsOwnAndAWarehouseUrlExcludeEachOther() {
        Result both =
                run(
                        "run",
                        "--warehouse",
                        "postgresql",
                        "--warehouse-url",
                        "jdbc:duckdb:" + dir.resolve("w.duckdb"),
                        "--work-dir",
                        dir.toString());
        assertThat(both.code()).isEqualTo(CdcLab.USAGE);
        assertThat(both.err().strip())
                .isEqualTo(
                        "cdc-lab: error: --warehouse postgresql starts a warehouse of its own;"
                                + " leave out --warehouse-url, or --warehouse");
        Result unknown = run("up", "--warehouse", "oracle", "--work-dir", dir.toString());
        assertThat(unknown.code()).isEqualTo(CdcLab.USAGE);
        assertThat(unknown.err()).contains("--warehouse").contains("oracle");
    }

    @Test
    void aTakenPortFailsFastWithOneLine() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Result r =
                    run(
                            "up",
                            "--source-port",
                            Integer.toString(taken.getLocalPort()),
                            "--work-dir",
                            dir.toString());
            assertThat(r.code()).isEqualTo(CdcLab.FAILED);
            assertThat(r.err().lines().findFirst().orElseThrow())
                    .isEqualTo(
                            "cdc-lab: error: port " + taken.getLocalPort() + " is already in use");
        }
    }

    @Test
    void aTakenAdminPortFailsBeforeAnythingStarts() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String port = Integer.toString(taken.getLocalPort());
            String expected =
                    "cdc-lab: error: admin port "
                            + port
                            + " on 127.0.0.1 is in use (choose another one, or 0)";
            for (String[] args :
                    List.of(
                            new String[] {"up", "--admin-port", port, "--work-dir", dir.toString()},
                            new String[] {
                                "run", "--admin-port", port, "--work-dir", dir.toString()
                            },
                            new String[] {
                                "sink",
                                "--admin-port",
                                port,
                                "--bootstrap-servers",
                                "127.0.0.1:1",
                                "--warehouse-url",
                                "jdbc:duckdb:" + dir.resolve("w.duckdb")
                            },
                            new String[] {
                                "streams",
                                "--admin-port",
                                port,
                                "--bootstrap-servers",
                                "127.0.0.1:1"
                            })) {
                Result r = run(args);
                assertThat(r.code()).as(args[0]).isEqualTo(CdcLab.USAGE);
                assertThat(r.err().lines().findFirst().orElseThrow())
                        .as(args[0])
                        .isEqualTo(expected);
            }
        }
    }

    @Test
    @Timeout(120)
    void anUnreachableKafkaStopsTheStreamsStageWithOneLine() {
        Result r =
                run(
                        "streams",
                        "--bootstrap-servers",
                        "127.0.0.1:1",
                        "-D",
                        "state.dir=" + dir.resolve("state"));
        assertThat(r.code()).isEqualTo(CdcLab.FAILED);
        assertThat(r.err().lines().findFirst().orElseThrow())
                .startsWith("cdc-lab: error: cannot reach Kafka at 127.0.0.1:1: ");
    }

    @Test
    void aNearlyFullDiskStopsBeforeAnythingStarts() {
        Result r = run("run", "--min-free-disk", "1000000T", "--work-dir", dir.toString());
        assertThat(r.code()).isEqualTo(CdcLab.FAILED);
        assertThat(r.err().lines().findFirst().orElseThrow())
                .startsWith("cdc-lab: error: disk almost full:")
                .endsWith("stopping before anything is lost");
    }

    @Test
    void verifyWithoutARunningPipelineSaysSo() throws Exception {
        Path f = dir.resolve("e.json");
        assertThat(run("verify", "--endpoints-file", f.toString()).err())
                .startsWith("cdc-lab: error: cannot read endpoints file");
        Files.writeString(
                f,
                "{\"source_jdbc_url\":\"jdbc:postgresql://127.0.0.1:1/x\",\"source_user\":\"u\",\"source_password\":\"p\","
                        + "\"warehouse_url\":\"jdbc:duckdb:/nope\",\"admin_url\":\"http://127.0.0.1:1\","
                        + "\"admin_token\":\"t\"}");
        Result r = run("verify", "--endpoints-file", f.toString());
        assertThat(r.code()).isEqualTo(CdcLab.FAILED);
        assertThat(r.err().strip())
                .startsWith("cdc-lab: error: no pipeline answers at http://127.0.0.1:1");
    }

    @Test
    void configListsEveryStageAndCapturePrintsItsJsonWithoutThePassword() {
        Result cfg = run("config");
        assertThat(cfg.code()).isZero();
        assertThat(cfg.out())
                .contains("`interval`")
                .contains("`warehouse.url`")
                .contains("`slot.name`")
                .contains("`--jdbc-url`")
                .contains("| `mix` |");
        Result p =
                run(
                        "capture",
                        "print-config",
                        "--source-host",
                        "db",
                        "-D",
                        "source.password=secret");
        assertThat(p.code()).isZero();
        assertThat(p.out()).contains("\"database.hostname\" : \"db\"").doesNotContain("secret");
    }

    @Test
    void configurationDocIsWhatConfigPrints() throws Exception {
        Result cfg = run("config");
        assertThat(cfg.code()).isZero();
        String doc = Files.readString(Path.of("..", "docs", "configuration.md"));
        assertThat(doc)
                .as("docs/configuration.md is stale; regenerate it from 'cdc-lab config'")
                .contains(cfg.out().strip());
    }

    @Test
    void sqlserverScriptPrintsTheWorkloadAndTheCaptureSetup() {
        Result r =
                run(
                        "sqlserver",
                        "script",
                        "--workload",
                        "W4",
                        "--maxtrans",
                        "5000",
                        "--maxscans",
                        "100",
                        "--pollinginterval",
                        "1",
                        "--captured-columns",
                        "id,c01,c02,gen_commit_us",
                        "--supports-net-changes",
                        "--filegroup",
                        "CDC_FG");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .startsWith("-- cdc-lab: SQL Server change data capture for database [cdclab]")
                .contains("CREATE TABLE wide (id BIGINT PRIMARY KEY")
                .contains("CREATE OR ALTER TRIGGER wide_fill_c02 ON wide AFTER INSERT")
                .contains("EXEC sys.sp_cdc_enable_db;")
                .contains(
                        "EXEC sys.sp_cdc_enable_table @source_schema = N'dbo', @source_name ="
                                + " N'wide', @role_name = NULL, @supports_net_changes = 1,"
                                + " @captured_column_list = N'[id], [c01], [c02], [gen_commit_us]',"
                                + " @filegroup_name = N'CDC_FG';")
                .contains(
                        "@maxtrans = 5000, @maxscans = 100, @continuous = 1, @pollinginterval = 1;")
                .contains("EXEC sys.sp_cdc_start_job @job_type = N'capture';");
        assertThat(run("sqlserver", "script").code()).isEqualTo(CdcLab.USAGE);
    }

    @Test
    void sqlServerWhereItCannotRunIsOneLine() {
        Result embedded = run("run", "--source", "sqlserver", "--work-dir", dir.toString());
        assertThat(embedded.code()).isEqualTo(CdcLab.USAGE);
        assertThat(embedded.err().lines().toList())
                .singleElement()
                .asString()
                .contains("SQL Server cannot run embedded");
        Result noEula =
                run(
                        "run",
                        "--source",
                        "sqlserver",
                        "--infra",
                        "containers",
                        "--work-dir",
                        dir.toString());
        assertThat(noEula.code()).isEqualTo(CdcLab.FAILED);
        assertThat(noEula.err().lines().toList())
                .singleElement()
                .asString()
                .contains("--accept-sqlserver-eula");
        assertThat(run("run", "--source", "oracle", "--work-dir", dir.toString()).err())
                .contains("'oracle' is not a source; use postgres or sqlserver");
    }

    @Test
    void captureConfigForSqlServerNeedsKafkaForItsSchemaHistory() {
        Result missing =
                run("capture", "print-config", "--source", "sqlserver", "--source-host", "db");
        assertThat(missing.code()).isEqualTo(CdcLab.USAGE);
        assertThat(missing.err()).contains("kafka.bootstrap.servers");
        Result ok =
                run(
                        "capture",
                        "print-config",
                        "--source",
                        "sqlserver",
                        "--source-host",
                        "db",
                        "--bootstrap-servers",
                        "kafka:9092",
                        "-D",
                        "source.password=hunter2");
        assertThat(ok.code()).as(ok.err()).isZero();
        assertThat(ok.out())
                .contains("io.debezium.connector.sqlserver.SqlServerConnector")
                .contains("\"database.names\" : \"cdclab\"")
                .contains("\"driver.trustServerCertificate\" : \"true\"")
                .contains("\"schema.history.internal.kafka.bootstrap.servers\" : \"kafka:9092\"")
                .doesNotContain("hunter2");
    }
}
