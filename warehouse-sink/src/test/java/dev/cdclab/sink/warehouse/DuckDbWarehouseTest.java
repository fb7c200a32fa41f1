package dev.cdclab.sink.warehouse;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The warehouse contract on DuckDB, a file in a temp dir. */
class DuckDbWarehouseTest extends WarehouseContract {
    @TempDir Path dir;

    @Override
    protected Target freshWarehouse() {
        return new Target("jdbc:duckdb:" + dir.resolve("w.duckdb"), null, null);
    }

    @Override
    protected boolean decimalHoldsNaN() {
        return false;
    }

    @Override
    protected String pointCoordinates(String column) {
        return column + ".x || ' ' || " + column + ".y";
    }
}
