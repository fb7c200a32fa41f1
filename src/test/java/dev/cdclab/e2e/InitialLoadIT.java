package dev.cdclab.e2e;

import dev.cdclab.orchestration.Pipeline;
import org.junit.jupiter.api.Timeout;

/** {@link InitialLoadContract} into the DuckDB warehouse, the default. */
@Timeout(600)
class InitialLoadIT extends InitialLoadContract {
    @Override
    Pipeline.Builder warehouse(Pipeline.Builder b) {
        return b.capture("initial.load", "direct");
    }
}
