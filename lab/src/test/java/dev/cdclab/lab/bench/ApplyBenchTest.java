package dev.cdclab.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdclab.sink.warehouse.WarehouseWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The apply bench fills a real DuckDB warehouse and times what it applies. */
class ApplyBenchTest {
    @TempDir Path dir;

    @Test
    void fillsTheTableThenTimesEveryTransactionAndKnowsTheRowsItLeft() throws Exception {
        String url = "jdbc:duckdb:" + dir.resolve("w.duckdb");
        ApplyBench.Result r;
        try (WarehouseWriter writer = new WarehouseWriter(url, null, null)) {
            r =
                    new ApplyBench(
                                    writer,
                                    "bench.apply_test",
                                    new ApplyBench.Settings(6, 2, 100, 0.45, 7))
                            .run(2_000, n -> {});
            try (Connection c = writer.openReader();
                    Statement s = c.createStatement();
                    ResultSet rs =
                            s.executeQuery(
                                    "SELECT count(*), count(*) FILTER (WHERE status = 'updated')"
                                            + " FROM bench.apply_test")) {
                rs.next();
                assertThat(rs.getLong(1)).as("rows in the warehouse").isEqualTo(r.endRows());
                assertThat(rs.getLong(2)).as("updated rows").isPositive();
            }
        }
        assertThat(r.tableRows()).isEqualTo(2_000);
        // 8 transactions of 100: about 45% inserts, and a quarter of the rest deletes
        assertThat(r.endRows()).isBetween(2_000L + 8 * 20, 2_000L + 8 * 45);
        assertThat(r.wallMicros().getTotalCount()).as("timed transactions").isEqualTo(6);
        assertThat(r.cpuMicros().getTotalCount()).isEqualTo(6);
    }

    @Test
    void severalTablesAreEachFilledAndShareEveryTransaction() throws Exception {
        String url = "jdbc:duckdb:" + dir.resolve("tables.duckdb");
        try (WarehouseWriter writer = new WarehouseWriter(url, null, null)) {
            ApplyBench.Result r =
                    new ApplyBench(
                                    writer,
                                    "bench.apply_many",
                                    3,
                                    new ApplyBench.Settings(4, 1, 90, 0.45, 3))
                            .run(1_000, n -> {});
            assertThat(r.tableRows()).as("rows in each table").isEqualTo(1_000);
            long total = 0;
            try (Connection c = writer.openReader();
                    Statement s = c.createStatement()) {
                for (int t = 1; t <= 3; t++) {
                    try (ResultSet rs =
                            s.executeQuery(
                                    "SELECT count(*), count(*) FILTER (WHERE status <> 'new')"
                                            + " FROM bench.apply_many_"
                                            + t)) {
                        rs.next();
                        // 5 transactions of 30 changes each: at least the 45% that insert
                        assertThat(rs.getLong(1)).isBetween(1_000L + 5 * 5, 1_000L + 5 * 30);
                        assertThat(rs.getLong(2)).as("updated rows of table " + t).isPositive();
                        total += rs.getLong(1);
                    }
                }
            }
            assertThat(r.endRows()).isEqualTo(total / 3);
        }
        assertThatThrownBy(
                        () ->
                                new ApplyBench(
                                        null, "t", 0, new ApplyBench.Settings(1, 0, 1, 0.5, 1)))
                .hasMessage("tables must be at least 1");
    }

    @Test
    void anEmptyTableGetsInsertsUntilItHasRowsToChange() throws Exception {
        String url = "jdbc:duckdb:" + dir.resolve("empty.duckdb");
        try (WarehouseWriter writer = new WarehouseWriter(url, null, null)) {
            ApplyBench.Result r =
                    new ApplyBench(
                                    writer,
                                    "bench.apply_0",
                                    new ApplyBench.Settings(3, 0, 50, 0.45, 1))
                            .run(0, n -> {});
            assertThat(r.tableRows()).isZero();
            // the first transaction can only insert; the later ones change some of its rows
            assertThat(r.endRows()).isBetween(50L + 2 * 10, 50L + 2 * 45);
        }
    }

    @Test
    void settingsThatMeasureNothingAreRefused() {
        assertThatThrownBy(() -> new ApplyBench.Settings(0, 0, 10, 0.5, 1))
                .hasMessage("transactions must be at least 1");
        assertThatThrownBy(() -> new ApplyBench.Settings(1, 0, 10, 1.5, 1))
                .hasMessage("insert share must be between 0 and 1");
    }
}
