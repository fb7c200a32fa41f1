package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.junit.CdcLabExtension;
import dev.cdclab.orchestration.verify.VerificationResult;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link OddValuesIT}'s values into a PostgreSQL warehouse instead of DuckDB. */
@Timeout(300)
class OddValuesPostgresWarehouseIT {
    private static final String TABLE = "\"odd \"\"q\"\" .values\"";

    @RegisterExtension
    static CdcLabExtension lab =
            CdcLabExtension.embedded().interval(Duration.ofMillis(200)).postgresWarehouse();

    @Test
    void everyValueArrivesAndVerifies() throws Exception {
        String script;
        try (var in = OddValuesIT.class.getResourceAsStream("/sql/odd-values.sql")) {
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement()) {
            s.execute(script);
        }
        lab.awaitCaughtUp(Duration.ofSeconds(90));

        VerificationResult v = lab.verify();
        assertThat(v.matches()).as(v.summary()).isTrue();
        List<String> rows = new ArrayList<>();
        try (Connection c = lab.warehouse().getConnection();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT id, CAST(\"price \"\"$\"\"\" AS VARCHAR), CAST(d AS"
                                        + " VARCHAR), CAST(ts AS VARCHAR), CAST(tstz AT TIME ZONE"
                                        + " 'UTC' AS VARCHAR), ttz FROM public."
                                        + TABLE
                                        + " WHERE id IN (1, 5, 6, 7) ORDER BY id")) {
            while (rs.next()) {
                rows.add(
                        rs.getInt(1)
                                + "|"
                                + rs.getString(2)
                                + "|"
                                + rs.getString(3)
                                + "|"
                                + rs.getString(4)
                                + "|"
                                + rs.getString(5)
                                + "|"
                                + rs.getString(6));
            }
        }
        // PostgreSQL's NUMERIC keeps NaN; timetz arrives at UTC, 24:00:00+xx as its UTC time
        assertThat(rows)
                .containsExactly(
                        "1|NaN|infinity|infinity|infinity|11:51:30.123789Z",
                        "5|null|0044-03-15 BC|0044-03-15 12:34:56.789012 BC"
                                + "|0044-03-15 10:34:56.789012 BC|22:00:00Z",
                        "6|null|4713-01-01 BC|4713-01-01 00:00:00 BC|0001-01-01 00:00:00 BC"
                                + "|18:30:00Z",
                        "7|null|0001-12-31 BC|0001-12-31 23:59:59.999999 BC"
                                + "|4714-11-24 12:00:00 BC|24:00:00Z");
    }
}
