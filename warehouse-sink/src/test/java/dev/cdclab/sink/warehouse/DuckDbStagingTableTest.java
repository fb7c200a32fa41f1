package dev.cdclab.sink.warehouse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.change.ColumnSpec;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** DuckDB's staging tables are replaced once they have taken their share of rows. */
class DuckDbStagingTableTest {
    private static final TableName ITEMS = new TableName("public", "items");
    private static final List<ColumnSpec> COLUMNS =
            List.of(
                    new ColumnSpec("id", "INT32", true, false, null, null, "int32", null),
                    new ColumnSpec("name", "STRING", false, true, null, null, "string", null));

    @TempDir Path dir;

    @AfterEach
    void byDefault() {
        DuckDbDialect.stageRowsBeforeRenewal = DuckDbDialect.STAGE_ROWS_BEFORE_RENEWAL;
    }

    @Test
    void aStagingTableIsReplacedOnceItHasTakenItsRowsAndTheOldOneIsDropped() throws Exception {
        DuckDbDialect.stageRowsBeforeRenewal = 5;
        DuckDbDialect dialect = new DuckDbDialect();
        try (Connection c = dialect.connect("jdbc:duckdb:" + dir.resolve("w.duckdb"), null, null)) {
            dialect.createMetadataTables(c);
            dialect.createTable(c, ITEMS, COLUMNS);
            c.commit();
            Set<String> seen = new HashSet<>();
            int id = 0;
            for (int round = 0; round < 6; round++) {
                List<StagedRow> rows = new ArrayList<>();
                for (int i = 0; i < 2; i++, id++) {
                    rows.add(
                            new StagedRow(
                                    false,
                                    true,
                                    String.format("%08d", id),
                                    id,
                                    "{\"id\":" + id + "}",
                                    "||",
                                    new String[] {Integer.toString(id), "n" + id}));
                }
                dialect.merge(c, ITEMS, COLUMNS, List.of(), rows, true);
                c.commit();
                List<String> stages = temporaryTables(c);
                assertThat(stages).as("one staging table at a time").hasSize(1);
                seen.addAll(stages);
            }
            // 2 rows a round, replaced once 5 were taken: rounds 1-3, 4-6
            assertThat(seen).hasSize(2);
            assertThat(count(c, "SELECT count(*) FROM public.items")).isEqualTo(12);
        }
    }

    /** The temporary tables of the connection, by name. */
    static List<String> temporaryTables(Connection c) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT table_name FROM duckdb_tables() WHERE temporary ORDER BY 1")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private static long count(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
