package dev.cdclab.e2e;

import dev.cdclab.orchestration.Pipeline;
import org.junit.jupiter.api.Timeout;

/** {@link InitialLoadContract} into a PostgreSQL warehouse. */
@Timeout(600)
class InitialLoadPostgresWarehouseIT extends InitialLoadContract {
    @Override
    Pipeline.Builder warehouse(Pipeline.Builder b) {
        return b.postgresWarehouse(true).capture("initial.load", "direct");
    }
}
