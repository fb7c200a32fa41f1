package dev.cdclab.sink.warehouse;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The warehouse contract on DuckDB with a new staging table for every merge after the first. */
class DuckDbRenewedStagingWarehouseTest extends DuckDbWarehouseTest {
    @BeforeAll
    static void renewEveryTime() {
        DuckDbDialect.stageRowsBeforeRenewal = 1;
    }

    @AfterAll
    static void byDefault() {
        DuckDbDialect.stageRowsBeforeRenewal = DuckDbDialect.STAGE_ROWS_BEFORE_RENEWAL;
    }
}
