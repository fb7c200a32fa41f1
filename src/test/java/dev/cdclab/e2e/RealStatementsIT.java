package dev.cdclab.e2e;

import dev.cdclab.junit.CdcLabExtension;
import java.time.Duration;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link RealStatementsContract} into the DuckDB warehouse, the default. */
@Timeout(600)
class RealStatementsIT extends RealStatementsContract {
    @RegisterExtension
    static CdcLabExtension lab =
            CdcLabExtension.embedded()
                    .interval(Duration.ofMillis(200))
                    .configure(b -> b.beforeCapture(RealStatementsContract::beforeCapture));

    @Override
    CdcLabExtension lab() {
        return lab;
    }
}
