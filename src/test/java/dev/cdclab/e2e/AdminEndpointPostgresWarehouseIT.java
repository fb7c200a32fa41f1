package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.cli.CdcLab;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Into a PostgreSQL warehouse {@code up} starts, the admin endpoint's SQL is one statement, run by
 * a role that can only read, in read-only transactions: a second statement, a write, a file read
 * are each refused with a one-line error, and the warehouse is as it was.
 */
@Timeout(600)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminEndpointPostgresWarehouseIT {
    @TempDir static Path dir;
    private TestHelper.RunningUp up;

    @BeforeAll
    void startUp() throws Exception {
        up = TestHelper.up(dir, "--warehouse", "postgresql");
        try (Connection c = up.source();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE public.kept (id int PRIMARY KEY, v text)");
            s.execute("INSERT INTO public.kept SELECT g, 'v' || g FROM generate_series(1, 30) g");
        }
        TestHelper.CliRun v = sql("SELECT 1");
        assertThat(v.code()).as(v.out()).isZero();
        TestHelper.CliRun verify =
                TestHelper.cdcLab(
                        "verify",
                        "--endpoints-file",
                        up.endpointsFile().toString(),
                        "--timeout",
                        "90s");
        assertThat(verify.code()).as(verify.out()).isZero();
    }

    @AfterAll
    void stopUp() throws Exception {
        CdcLab.stopRunning();
        if (up != null) {
            assertThat(up.exit().get(60, TimeUnit.SECONDS)).isZero();
        }
    }

    private TestHelper.CliResult sqlWithErrors(String statement) {
        return TestHelper.cdcLabWithErrors(
                "sql",
                "--endpoints-file",
                up.endpointsFile().toString(),
                "--format",
                "csv",
                statement);
    }

    private TestHelper.CliRun sql(String statement) {
        return TestHelper.cdcLab(
                "sql",
                "--endpoints-file",
                up.endpointsFile().toString(),
                "--format",
                "csv",
                statement);
    }

    private void assertKept() {
        TestHelper.CliRun n = sql("SELECT count(*) AS n FROM public.kept");
        assertThat(n.code()).as(n.out()).isZero();
        assertThat(n.out()).contains("n\n30\n");
    }

    @Test
    void aSecondStatementIsRefusedAndNothingRuns() {
        TestHelper.CliResult r = sqlWithErrors("SELECT 1; COMMIT; DROP TABLE public.kept");
        assertThat(r.code()).isNotZero();
        assertThat(r.err().lines().findFirst().orElseThrow())
                .startsWith("cdc-lab: error: ")
                .contains("one statement at a time");
        assertKept();
    }

    @Test
    void aWriteIsRefused() {
        for (String write :
                new String[] {
                    "DROP TABLE public.kept",
                    "DELETE FROM public.kept",
                    "CREATE TABLE public.planted (a int)",
                    "WITH d AS (DELETE FROM public.kept RETURNING 1) SELECT count(*) FROM d"
                }) {
            TestHelper.CliResult r = sqlWithErrors(write);
            assertThat(r.code()).as(write).isNotZero();
            assertThat(r.err()).as(write).containsAnyOf("read-only", "permission denied");
        }
        assertKept();
    }

    @Test
    void theReaderCannotTurnItsSessionWritableNorReadFiles() {
        TestHelper.CliResult flipped =
                sqlWithErrors(
                        "SELECT set_config('default_transaction_read_only', 'off', false),"
                                + " set_config('transaction_read_only', 'off', true)");
        assertThat(flipped.code()).isNotZero();
        TestHelper.CliResult file = sqlWithErrors("SELECT pg_read_file('/etc/hostname')");
        assertThat(file.code()).isNotZero();
        assertThat(file.err()).contains("permission denied");
        TestHelper.CliRun who = sql("SELECT current_user AS u");
        assertThat(who.out()).contains("cdclab_reader");
        assertKept();
    }
}
