package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.junit.CdcLabExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link TypeMappingIT}'s table into a PostgreSQL warehouse: the source's types again (arrays,
 * interval, jsonb, bit varying, inet, ranges, point, xml, tsvector), queried with their operators.
 */
@Timeout(300)
class TypeMappingPostgresWarehouseIT {
    @RegisterExtension
    static CdcLabExtension lab =
            CdcLabExtension.embedded().interval(Duration.ofMillis(200)).postgresWarehouse();

    @Test
    void everyTypeLandsAsAWarehouseTypeAndVerifiesByValue() throws Exception {
        TypeMappingIT.writeAndVerify(lab);
        Map<String, String> types = new HashMap<>();
        try (Connection c = lab.warehouse().getConnection();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT column_name, udt_name FROM information_schema.columns"
                                        + " WHERE table_name = 'all_types'")) {
            while (rs.next()) {
                types.put(rs.getString(1), rs.getString(2));
            }
        }
        assertThat(types)
                .containsEntry("f4", "float4")
                .containsEntry("f8", "float8")
                .containsEntry("a_d", "_date")
                .containsEntry("a_num", "_numeric")
                .containsEntry("a_tstz", "_timestamptz")
                .containsEntry("a_jb", "_jsonb")
                .containsEntry("a_ip", "_inet")
                .containsEntry("a_ir", "_int4range")
                .containsEntry("a_mood", "_text")
                .containsEntry("iv", "interval")
                .containsEntry("jb", "jsonb")
                .containsEntry("hs", "jsonb")
                .containsEntry("mo", "numeric")
                .containsEntry("b3", "varbit")
                .containsEntry("pt", "point")
                .containsEntry("ip", "inet")
                .containsEntry("cidr_", "cidr")
                .containsEntry("mac8", "macaddr8")
                .containsEntry("tstzr", "tstzrange")
                .containsEntry("x", "xml")
                .containsEntry("tsv", "tsvector");
        try (Connection c = lab.warehouse().getConnection();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT a_d[2], a_mood, ip << inet '192.168.0.0/16', ir @> 5,"
                                        + " tsv @@ to_tsquery('cat'), iv = interval '1 month',"
                                        + " pt[1], hs->>'k', a_ip[2], tstzr @> timestamptz"
                                        + " '2030-01-01 00:00+00' FROM public.all_types WHERE id ="
                                        + " 1")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getObject(1, LocalDate.class)).isEqualTo(LocalDate.of(2016, 11, 5));
            assertThat((Object[]) rs.getArray(2).getArray()).containsExactly("ok", "happy");
            assertThat(rs.getBoolean(3)).isTrue();
            assertThat(rs.getBoolean(4)).isTrue();
            assertThat(rs.getBoolean(5)).isTrue();
            assertThat(rs.getBoolean(6)).isTrue();
            assertThat(rs.getDouble(7)).isEqualTo(-2.5);
            assertThat(rs.getString(8)).isEqualTo("v");
            assertThat(rs.getString(9)).isEqualTo("::1");
            assertThat(rs.getBoolean(10)).isTrue();
        }
        try (Connection c = lab.warehouse().getConnection();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT tstz, d FROM public.all_types WHERE id = 2")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getObject(1, OffsetDateTime.class).toInstant())
                    .isEqualTo(Instant.parse("+294247-01-01T23:59:59.999999Z"));
            assertThat(rs.getString(2)).isEqualTo("5874897-12-31");
        }
        TypeMappingIT.verifyReportsWhatDoesNotLand(lab);
    }
}
