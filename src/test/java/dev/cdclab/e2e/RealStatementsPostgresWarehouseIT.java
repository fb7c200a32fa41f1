package dev.cdclab.e2e;

import dev.cdclab.embedded.PostgresServer;
import dev.cdclab.junit.CdcLabExtension;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link RealStatementsContract} into a PostgreSQL warehouse. */
@Timeout(600)
class RealStatementsPostgresWarehouseIT extends RealStatementsContract {
    private static final PostgresServer WAREHOUSE =
            PostgresServer.builder().database("warehouse").durable(false).start();

    @RegisterExtension
    static CdcLabExtension lab =
            CdcLabExtension.embedded()
                    .interval(Duration.ofMillis(200))
                    .configure(
                            b ->
                                    b.beforeCapture(RealStatementsContract::beforeCapture)
                                            .warehouseUrl(
                                                    WAREHOUSE.jdbcUrl()
                                                            + "?user="
                                                            + WAREHOUSE.user()
                                                            + "&password="
                                                            + WAREHOUSE.password()));

    @AfterAll
    static void stopWarehouse() {
        // the sink writes to it until the pipeline stops
        lab.pipeline().close();
        WAREHOUSE.close();
    }

    @Override
    CdcLabExtension lab() {
        return lab;
    }
}
