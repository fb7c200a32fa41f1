package dev.cdclab.e2e;

import dev.cdclab.junit.CdcLabExtension;
import java.time.Duration;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link PagilaContract} into the DuckDB warehouse, the default. */
@Timeout(900)
class PagilaIT extends PagilaContract {
    @RegisterExtension
    static CdcLabExtension lab = CdcLabExtension.embedded().interval(Duration.ofMillis(200));

    @Override
    CdcLabExtension lab() {
        return lab;
    }
}
