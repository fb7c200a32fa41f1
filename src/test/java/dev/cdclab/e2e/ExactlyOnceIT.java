package dev.cdclab.e2e;

import static dev.cdclab.e2e.TestHelper.tx;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.junit.CdcLabExtension;
import dev.cdclab.orchestration.verify.VerificationResult;
import dev.cdclab.streams.NetChangeConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The pipeline under {@code exactly_once_v2} on the single embedded broker, 2 partitions. */
@Timeout(300)
class ExactlyOnceIT {
    @RegisterExtension
    static CdcLabExtension lab =
            CdcLabExtension.embedded()
                    .interval(Duration.ofMillis(500))
                    .partitions(2)
                    .configure(b -> b.guarantee(NetChangeConfig.Guarantee.EXACTLY_ONCE_V2));

    @Test
    void exactlyOnceV2OnTheSingleEmbeddedBroker() throws Exception {
        tx(lab.source(), "CREATE TABLE eos (id int PRIMARY KEY, n int)");
        tx(lab.source(), "INSERT INTO eos SELECT g, 0 FROM generate_series(1, 500) g");
        for (int i = 0; i < 10; i++) {
            tx(lab.source(), "UPDATE eos SET n = n + 1 WHERE id % 7 = " + i % 7);
        }
        tx(lab.source(), "DELETE FROM eos WHERE id > 450");
        lab.awaitCaughtUp(Duration.ofSeconds(90));
        VerificationResult v = lab.verify();
        assertThat(v.matches()).as(v.summary()).isTrue();
    }
}
