package dev.cdclab.sink.warehouse;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The warehouse contract on DuckDB with every replacement looked up in the key index, as a large
 * table's are.
 */
class DuckDbKeyIndexWarehouseTest extends DuckDbWarehouseTest {
    @BeforeAll
    static void byKeyIndex() {
        DuckDbDialect.scanRowsPerKey = 0;
    }

    @AfterAll
    static void byCost() {
        DuckDbDialect.scanRowsPerKey = DuckDbDialect.SCAN_ROWS_PER_KEY;
    }
}
