package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.junit.CdcLabExtension;
import dev.cdclab.orchestration.StageConfigs;
import dev.cdclab.orchestration.verify.VerificationResult;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * NaN, infinities, 24:00, years past 9999 and before Christ, arrays, money and timetz (also at
 * 24:00) in a table whose name needs quoting reach the DuckDB warehouse, keep the pipeline running,
 * and verify by value; a table and column named to inject SQL stay names everywhere.
 */
@Timeout(300)
class OddValuesIT {
    private static final String TABLE = "\"odd \"\"q\"\" .values\"";

    @RegisterExtension
    static CdcLabExtension lab = CdcLabExtension.embedded().interval(Duration.ofMillis(200));

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
                                "SELECT id, CAST(\"price \"\"$\"\"\" AS VARCHAR), n, CAST(d AS"
                                        + " VARCHAR), CAST(ts AS VARCHAR), CAST(t AS VARCHAR),"
                                        + " CAST(ints AS VARCHAR)"
                                        + " FROM public."
                                        + TABLE
                                        + " ORDER BY id")) {
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
                                + rs.getString(6)
                                + "|"
                                + rs.getString(7));
            }
        }
        // DuckDB's DECIMAL has no NaN: NULL there, by the documented mapping; ints is an
        // INTEGER[]
        assertThat(rows)
                .containsExactly(
                        "1|null|Infinity|infinity|infinity|24:00:00|[1, 2, 3]",
                        "2|12.30|-Infinity|-infinity|-infinity|00:00:00|[]",
                        "3|null|NaN|21016-11-04|21016-11-04 10:00:00|23:59:59.999999|[1, NULL, 3]",
                        "4|-999.99|NaN|2026-11-22|2026-11-22 01:02:03.456789|24:00:00|null",
                        "5|null|null|0044-03-15 (BC)|0044-03-15 (BC) 12:34:56.789012|null|null",
                        "6|null|null|4713-01-01 (BC)|4713-01-01 (BC) 00:00:00|null|null",
                        "7|null|null|0001-12-31 (BC)|0001-12-31 (BC) 23:59:59.999999|null|null");
        // timestamptz and timetz at UTC: 24:00:00+02 is 22:00 there, only 24:00:00+00 stays 24:00
        List<String> zoned = new ArrayList<>();
        try (Connection c = lab.warehouse().getConnection();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT id, CAST(tstz AT TIME ZONE 'UTC' AS VARCHAR), ttz FROM"
                                        + " public."
                                        + TABLE
                                        + " WHERE id >= 5 ORDER BY id")) {
            while (rs.next()) {
                zoned.add(rs.getInt(1) + "|" + rs.getString(2) + "|" + rs.getString(3));
            }
        }
        assertThat(zoned)
                .containsExactly(
                        "5|0044-03-15 (BC) 10:34:56.789012|22:00:00Z",
                        "6|0001-01-01 (BC) 00:00:00|18:30:00Z",
                        "7|4714-11-24 (BC) 12:00:00|24:00:00Z");
        // a hostile table and column name went through capture, sink and verify as a name
        assertThat(v.tables())
                .filteredOn(t -> t.table().equals("public.evil\"; DROP TABLE public.victim; --"))
                .singleElement()
                .satisfies(
                        t -> {
                            assertThat(t.skipped()).isNull();
                            assertThat(t.sourceRows()).isEqualTo(1);
                            assertThat(t.matches()).isTrue();
                        });
        for (DataSource db : List.of(lab.source(), lab.warehouse())) {
            try (Connection c = db.getConnection();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT count(*) FROM public.victim")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(1);
            }
        }
    }

    @Test
    void captureRunsAsALeastPrivilegeRole() throws Exception {
        try (Connection c = lab.source().getConnection();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT r.rolname, r.rolsuper, r.rolreplication FROM"
                                        + " pg_stat_replication p JOIN pg_roles r ON r.oid ="
                                        + " p.usesysid")) {
            assertThat(rs.next()).as("a walsender for the connector").isTrue();
            assertThat(rs.getString(1)).isEqualTo(StageConfigs.CAPTURE_ROLE);
            assertThat(rs.getBoolean(2)).as("superuser").isFalse();
            assertThat(rs.getBoolean(3)).as("replication").isTrue();
        }
    }
}
