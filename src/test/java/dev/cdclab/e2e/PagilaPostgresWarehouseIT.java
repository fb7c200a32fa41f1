package dev.cdclab.e2e;

import dev.cdclab.junit.CdcLabExtension;
import java.time.Duration;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link PagilaContract} into a PostgreSQL warehouse. */
@Timeout(900)
class PagilaPostgresWarehouseIT extends PagilaContract {
    @RegisterExtension
    static CdcLabExtension lab =
            CdcLabExtension.embedded().interval(Duration.ofMillis(200)).postgresWarehouse();

    @Override
    CdcLabExtension lab() {
        return lab;
    }
}
