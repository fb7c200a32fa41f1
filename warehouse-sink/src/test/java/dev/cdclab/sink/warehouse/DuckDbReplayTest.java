package dev.cdclab.sink.warehouse;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The replay contract on DuckDB, a file in a temp dir. */
class DuckDbReplayTest extends ReplayContract {
    @TempDir Path dir;

    @Override
    protected WarehouseContract.Target freshWarehouse() {
        return new WarehouseContract.Target("jdbc:duckdb:" + dir.resolve("w.duckdb"), null, null);
    }
}
