package dev.cdclab.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.load.dialect.PostgresDialect;
import dev.cdclab.load.dialect.SqlServerDialect;
import dev.cdclab.load.workload.PlannedStatement;
import dev.cdclab.load.workload.Workload;
import dev.cdclab.load.workload.WorkloadOptions;
import dev.cdclab.load.workload.Workloads;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every workload in T-SQL without a SQL Server: its DDL and trigger against golden files, its
 * statements within SQL Server's limits (2,100 parameters, 1,000 rows), the same rows as the
 * PostgreSQL plan, and which errors a client retries.
 */
class SqlServerWorkloadsTest {
    private static final Path GOLDEN = Path.of("src", "test", "resources", "golden", "sqlserver");
    private static final WorkloadOptions OPTIONS = new WorkloadOptions(42, 1_000, 1000, -1, 100);

    static List<String> workloads() {
        return new ArrayList<>(Workloads.names());
    }

    /** A connection that only records the statements it is given. */
    private static Connection recorder(List<String> sql) {
        Statement st =
                (Statement)
                        Proxy.newProxyInstance(
                                Statement.class.getClassLoader(),
                                new Class<?>[] {Statement.class},
                                (p, m, a) -> {
                                    if (m.getName().equals("execute")
                                            || m.getName().equals("executeUpdate")) {
                                        sql.add((String) a[0]);
                                        return m.getReturnType() == boolean.class ? false : 0;
                                    }
                                    return null;
                                });
        return (Connection)
                Proxy.newProxyInstance(
                        Connection.class.getClassLoader(),
                        new Class<?>[] {Connection.class},
                        (p, m, a) -> m.getName().equals("createStatement") ? st : null);
    }

    @ParameterizedTest
    @MethodSource("workloads")
    void ddlAndTriggersAreTheGoldenOnes(String name) throws Exception {
        Workload wl = Workloads.create(name, new SqlServerDialect(), OPTIONS);
        List<String> sql = new ArrayList<>();
        wl.createSchema(recorder(sql));
        String text = String.join("\nGO\n", sql) + "\nGO\n";
        Path file = GOLDEN.resolve("workload-" + name + ".sql");
        if (Boolean.getBoolean("golden.update")) {
            Files.createDirectories(GOLDEN);
            Files.writeString(file, text, StandardCharsets.UTF_8);
        }
        assertThat(text).isEqualTo(Files.readString(file, StandardCharsets.UTF_8));
        assertThat(text).doesNotContain("TIMESTAMPTZ").doesNotContain("CASCADE");
    }

    @ParameterizedTest
    @MethodSource("workloads")
    void everyStatementFitsSqlServersLimitsAndCarriesThePostgresRows(String name) {
        Workload ms = Workloads.create(name, new SqlServerDialect(), OPTIONS);
        Workload pg = Workloads.create(name, new PostgresDialect(), OPTIONS);
        for (long i = 0; i < 20; i++) {
            List<Object> msValues = new ArrayList<>();
            for (PlannedStatement s : ms.plan(i).statements()) {
                assertThat(s.params().length).as(name + " parameters").isLessThanOrEqualTo(2099);
                assertThat(s.sql().split("\\), \\(").length)
                        .as(name + " rows in one INSERT")
                        .isLessThanOrEqualTo(1000);
                msValues.addAll(Arrays.asList(s.params()));
            }
            List<Object> pgValues = new ArrayList<>();
            for (PlannedStatement s : pg.plan(i).statements()) {
                pgValues.addAll(Arrays.asList(s.params()));
            }
            assertThat(msValues).as(name + " transaction " + i).isEqualTo(pgValues);
        }
    }

    @Test
    void deadlocksAndLockTimeoutsAreRetriedOtherErrorsAreNot() {
        SqlServerDialect d = new SqlServerDialect();
        assertThat(d.isRetryable(new SQLException("deadlock victim", "40001", 1205))).isTrue();
        assertThat(d.isRetryable(new SQLException("lock timeout", "S0001", 1222))).isTrue();
        assertThat(d.isRetryable(new SQLException("FK violation", "23000", 547))).isFalse();
        assertThat(new PostgresDialect().isRetryable(new SQLException("x", "40P01"))).isTrue();
        assertThat(d.maxRowsPerInsert(10)).isEqualTo(209);
        assertThat(d.maxRowsPerInsert(1)).isEqualTo(1000);
        assertThat(new PostgresDialect().maxRowsPerInsert(10)).isEqualTo(1000);
    }
}
