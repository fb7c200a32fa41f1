package dev.cdclab.e2e;

import dev.cdclab.junit.CdcLabExtension;
import java.time.Duration;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link RealStatementsContract} into a PostgreSQL warehouse. */
@Timeout(600)
class RealStatementsPostgresWarehouseIT extends RealStatementsContract {
    @RegisterExtension
    static CdcLabExtension lab =
            CdcLabExtension.embedded()
                    .interval(Duration.ofMillis(200))
                    .configure(b -> b.beforeCapture(RealStatementsContract::beforeCapture))
                    .postgresWarehouse();

    @Override
    CdcLabExtension lab() {
        return lab;
    }
}
