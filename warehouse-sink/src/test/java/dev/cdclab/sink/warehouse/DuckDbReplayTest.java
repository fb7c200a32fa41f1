package dev.cdclab.sink.warehouse;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cdclab.change.ColumnSpec;
import dev.cdclab.change.NetOperation;
import dev.cdclab.change.SourcePosition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The replay contract on DuckDB, a file in a temp dir. */
class DuckDbReplayTest extends ReplayContract {
    @TempDir Path dir;

    @Override
    protected WarehouseContract.Target freshWarehouse() {
        return new WarehouseContract.Target("jdbc:duckdb:" + dir.resolve("w.duckdb"), null, null);
    }

    /**
     * A transaction that changes a table's shape is checkpointed once committed: DuckDB cannot
     * always replay one from its log after a crash, and the warehouse would not open again. A
     * transaction of rows only leaves its log to DuckDB's own checkpoints.
     */
    @Test
    void aTransactionThatChangesATablesShapeLeavesNoLogBehind() throws Exception {
        Path file = dir.resolve("shape.duckdb");
        Path wal = dir.resolve("shape.duckdb.wal");
        ObjectMapper m = new ObjectMapper();
        List<ColumnSpec> one =
                List.of(new ColumnSpec("id", "INT4", false, false, null, null, "int32", null));
        List<ColumnSpec> two =
                List.of(
                        new ColumnSpec("id", "INT4", false, false, null, null, "int32", null),
                        new ColumnSpec("n", "INT4", false, true, null, null, "int32", null));
        try (WarehouseWriter w = new WarehouseWriter("jdbc:duckdb:" + file, null, null)) {
            w.apply(
                    List.of(
                            NetChanges.keyless(
                                    "public.shape",
                                    one,
                                    NetOperation.INSERT,
                                    null,
                                    m.createObjectNode().put("id", 1),
                                    SourcePosition.postgres(10))),
                    100);
            assertThat(Files.exists(wal) ? Files.size(wal) : 0)
                    .as("rows only: the log is DuckDB's to checkpoint")
                    .isPositive();
            w.apply(
                    List.of(
                            NetChanges.keyless(
                                    "public.shape",
                                    two,
                                    NetOperation.INSERT,
                                    null,
                                    m.createObjectNode().put("id", 2).put("n", 7),
                                    SourcePosition.postgres(20))),
                    200);
            assertThat(Files.exists(wal) ? Files.size(wal) : 0)
                    .as("a column added: checkpointed at once")
                    .isZero();
        }
    }
}
