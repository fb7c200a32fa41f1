package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cdclab.cli.CdcLab;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmark clients Debian packages, against {@code up}, as a new user runs them: pgbench's
 * default initialisation (it drops, creates, TRUNCATEs four tables in one statement and COPYs, its
 * history table has no key) then a run at a fixed rate; sysbench's {@code oltp_read_write} prepare,
 * run and cleanup. {@code up} keeps running and {@code verify} exits 0 with every table compared,
 * the keyless one included. Skips, saying why, where a client is not installed.
 */
@Timeout(600)
class BenchmarkClientsIT {
    @TempDir Path dir;

    @Test
    void pgbenchAndSysbenchFromTheirOwnInitialisationLeaveUpRunningAndVerified() throws Exception {
        boolean pgbench = installed("pgbench", "--version");
        boolean sysbench = installed("sysbench", "--version");
        Assumptions.assumeTrue(
                pgbench || sysbench,
                "neither pgbench (Debian's postgresql) nor sysbench is installed here");
        TestHelper.RunningUp up = TestHelper.up(dir);
        Path endpoints = up.endpointsFile();
        try {
            JsonNode e = up.endpoints();
            Map<String, String> env = Map.of("PGPASSWORD", e.get("source_password").asText());
            String host = e.get("source_host").asText();
            String port = e.get("source_port").asText();
            String db = e.get("source_database").asText();
            String user = e.get("source_user").asText();
            if (pgbench) {
                run(env, "pgbench", "-i", "-h", host, "-p", port, "-U", user, db);
                run(
                        env, "pgbench", "-h", host, "-p", port, "-U", user, "-c", "4", "-R", "100",
                        "-T", "10", db);
            } else {
                System.out.println("BenchmarkClientsIT: pgbench is not installed here; skipped");
            }
            if (sysbench) {
                List<String> sb =
                        List.of(
                                "sysbench",
                                "--db-driver=pgsql",
                                "--pgsql-host=" + host,
                                "--pgsql-port=" + port,
                                "--pgsql-user=" + user,
                                "--pgsql-password=" + e.get("source_password").asText(),
                                "--pgsql-db=" + db,
                                "--tables=2",
                                "--table-size=5000");
                run(env, concat(sb, "oltp_read_write", "prepare"));
                run(
                        env,
                        concat(
                                sb,
                                "--threads=2",
                                "--rate=50",
                                "--time=10",
                                "oltp_read_write",
                                "run"));
            } else {
                System.out.println("BenchmarkClientsIT: sysbench is not installed here; skipped");
            }
            TestHelper.CliRun verify =
                    TestHelper.cdcLab(
                            "verify",
                            "--endpoints-file",
                            endpoints.toString(),
                            "--timeout",
                            "120s");
            assertThat(verify.code()).as(verify.out()).isZero();
            assertThat(up.exit().isDone()).as("up still running").isFalse();
            if (pgbench) {
                assertThat(verify.out())
                        .contains("public.pgbench_accounts")
                        .containsPattern("public\\.pgbench_history +ok +by rows \\(no key\\)");
            }
            if (sysbench) {
                assertThat(verify.out()).containsPattern("public\\.sbtest1 +ok");
            }
            assertThat(verify.out()).doesNotContain("DIFF");
        } finally {
            CdcLab.stopRunning();
        }
        assertThat(up.exit().get()).isZero();
    }

    private static List<String> concat(List<String> a, String... b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(List.of(b));
        return out;
    }

    private static boolean installed(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void run(Map<String, String> env, String... command) throws Exception {
        run(env, List.of(command));
    }

    private static void run(Map<String, String> env, List<String> command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).as(command.get(0) + " finished").isTrue();
        assertThat(p.exitValue()).as(command + "\n" + out).isZero();
    }
}
