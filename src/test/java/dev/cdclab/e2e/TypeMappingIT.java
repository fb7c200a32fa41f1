package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.junit.CdcLabExtension;
import dev.cdclab.orchestration.verify.Difference;
import dev.cdclab.orchestration.verify.TableResult;
import dev.cdclab.orchestration.verify.VerificationResult;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A column of every type real PostgreSQL schemas use, and an array of each, reaches the DuckDB
 * warehouse as a DuckDB type a user queries (lists, INTERVAL, JSON, BIT, DECIMAL, a struct for
 * points), is inserted, updated and deleted, and verifies by value; the values Debezium does not
 * send as they are show up in verify.
 */
@Timeout(300)
class TypeMappingIT {
    @RegisterExtension
    static CdcLabExtension lab = CdcLabExtension.embedded().interval(Duration.ofMillis(200));

    @Test
    void everyTypeLandsAsAWarehouseTypeAndVerifiesByValue() throws Exception {
        writeAndVerify(lab);
        Map<String, String> types = new HashMap<>();
        try (Connection c = lab.warehouse().getConnection();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT column_name, data_type FROM information_schema.columns"
                                        + " WHERE table_name = 'all_types'")) {
            while (rs.next()) {
                types.put(rs.getString(1), rs.getString(2));
            }
        }
        assertThat(types)
                .containsEntry("f4", "FLOAT")
                .containsEntry("f8", "DOUBLE")
                .containsEntry("a_f8", "DOUBLE[]")
                .containsEntry("a_d", "DATE[]")
                .containsEntry("a_i4", "INTEGER[]")
                .containsEntry("a_num", "DECIMAL(12,3)[]")
                .containsEntry("a_tstz", "TIMESTAMP WITH TIME ZONE[]")
                .containsEntry("a_bin", "BLOB[]")
                .containsEntry("a_jb", "JSON[]")
                .containsEntry("a_mood", "VARCHAR[]")
                .containsEntry("a_dom_i", "VARCHAR[]")
                .containsEntry("iv", "INTERVAL")
                .containsEntry("jb", "JSON")
                .containsEntry("hs", "JSON")
                .containsEntry("mo", "DECIMAL(19,2)")
                .containsEntry("bt", "BOOLEAN")
                .containsEntry("b3", "BIT")
                .containsEntry("pt", "STRUCT(x DOUBLE, y DOUBLE)")
                .containsEntry("dom_i", "INTEGER")
                .containsEntry("ip", "VARCHAR")
                .containsEntry("ir", "VARCHAR");
        try (Connection c = lab.warehouse().getConnection();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT a_d[2], a_mood, a_i4[3] + a_i8[1], iv = INTERVAL '1 month',"
                                        + " jb->>'$.b', pt.y, mo * 2, b3, a_tstz[1],"
                                        + " len(a_t) FROM public.all_types WHERE id = 1")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getObject(1, LocalDate.class)).isEqualTo(LocalDate.of(2016, 11, 5));
            assertThat((Object[]) rs.getArray(2).getArray()).containsExactly("ok", "happy");
            assertThat(rs.getLong(3)).isEqualTo(9_000_000_003L);
            assertThat(rs.getBoolean(4)).isTrue();
            assertThat(rs.getString(5)).isEqualTo("{\"c\":null}");
            assertThat(rs.getDouble(6)).isEqualTo(-2.5);
            assertThat(rs.getBigDecimal(7)).isEqualByComparingTo(new BigDecimal("4.00"));
            assertThat(rs.getString(8)).isEqualTo("101");
            assertThat(rs.getObject(9, OffsetDateTime.class).toInstant())
                    .isEqualTo(Instant.parse("2016-11-04T08:00:00.5Z"));
            assertThat(rs.getInt(10)).isEqualTo(8);
        }
        // the last microsecond DuckDB's timestamps hold, as JDBC reads it
        try (Connection c = lab.warehouse().getConnection();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT tstz, CAST(ts AS VARCHAR), CAST(d AS VARCHAR) FROM"
                                        + " public.all_types WHERE id = 2")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getObject(1, OffsetDateTime.class).toInstant())
                    .isEqualTo(Instant.parse("+294247-01-01T23:59:59.999999Z"));
            assertThat(rs.getString(2)).isEqualTo("294247-01-01 23:59:59.999999");
            assertThat(rs.getString(3)).isEqualTo("5874897-12-31");
        }
        verifyReportsWhatDoesNotLand(lab);
    }

    /**
     * Creates {@code all_types}, fills it, changes it once the warehouse holds it, and requires
     * that verify finds source and warehouse equal.
     */
    static void writeAndVerify(CdcLabExtension lab) throws Exception {
        run(lab.source(), "/sql/types.sql");
        lab.awaitCaughtUp(Duration.ofSeconds(90));
        run(lab.source(), "/sql/types-changes.sql");
        lab.awaitCaughtUp(Duration.ofSeconds(90));
        VerificationResult v = lab.verify();
        assertThat(v.matches()).as(v.summary()).isTrue();
        assertThat(v.tables())
                .filteredOn(t -> t.table().equals("public.all_types"))
                .singleElement()
                .satisfies(t -> assertThat(t.sourceRows()).isEqualTo(4));
    }

    /**
     * Arrays Debezium leaves out of the event are missing columns; values it sends changed are
     * differences, one row each; and {@code all_types} still matches.
     */
    static void verifyReportsWhatDoesNotLand(CdcLabExtension lab) throws Exception {
        run(lab.source(), "/sql/types-not-landing.sql");
        lab.awaitCaughtUp(Duration.ofSeconds(90));
        VerificationResult v = lab.verify();
        assertThat(v.differingTables())
                .containsExactlyInAnyOrder("public.unsent_arrays", "public.lossy_values");
        assertThat(table(v, "public.unsent_arrays").differences())
                .extracting(Difference::toString)
                .containsExactlyInAnyOrder(
                        "column a_iv (_interval) missing in the warehouse",
                        "column a_mo (_money) missing in the warehouse",
                        "column a_x (_xml) missing in the warehouse",
                        "column a_vb (_varbit) missing in the warehouse",
                        "column a_pt (_point) missing in the warehouse");
        // bit(1)[] arrives as NULL, int[][] as [null, null], a BC date in date[] without its
        // era, time[] in milliseconds, numeric[] with NaN as NULL; the last timestamp overflows
        // the event's microseconds and the warehouse refuses it
        assertThat(table(v, "public.lossy_values").differences())
                .extracting(d -> d.key() + " " + d.column())
                .containsExactlyInAnyOrder(
                        "(id=1) a_bt",
                        "(id=2) m2",
                        "(id=3) a_d",
                        "(id=4) a_tm",
                        "(id=5) a_num",
                        "(id=6) null");
    }

    private static TableResult table(VerificationResult v, String name) {
        return v.tables().stream().filter(t -> t.table().equals(name)).findFirst().orElseThrow();
    }

    static void run(DataSource source, String resource) throws Exception {
        String script;
        try (var in = TypeMappingIT.class.getResourceAsStream(resource)) {
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try (Connection c = source.getConnection();
                Statement s = c.createStatement()) {
            s.execute(script);
        }
    }
}
