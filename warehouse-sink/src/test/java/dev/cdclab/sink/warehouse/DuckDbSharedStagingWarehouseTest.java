package dev.cdclab.sink.warehouse;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The warehouse contract on DuckDB with every merge staged in the shared staging table. */
class DuckDbSharedStagingWarehouseTest extends DuckDbWarehouseTest {
    @BeforeAll
    static void shareEveryTime() {
        DuckDbDialect.mergesToShare = 1;
    }

    @AfterAll
    static void byDefault() {
        DuckDbDialect.mergesToShare = DuckDbDialect.MERGES_TO_SHARE;
    }
}
