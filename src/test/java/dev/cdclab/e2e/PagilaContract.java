package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.junit.CdcLabExtension;
import dev.cdclab.orchestration.verify.TableResult;
import dev.cdclab.orchestration.verify.VerificationResult;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/**
 * The Pagila sample database ({@code src/test/resources/pagila}), loaded as {@code psql} loads it
 * while the pipeline captures (schema, then data), then changed ({@code pagila-changes.sql}): every
 * table lands value for value, NULL for NULL, and {@code verify} says so.
 */
abstract class PagilaContract {
    /** The pipeline, its source and its warehouse. */
    abstract CdcLabExtension lab();

    private static String resource(String name) throws Exception {
        try (InputStream in = PagilaContract.class.getResourceAsStream("/pagila/" + name)) {
            InputStream data = name.endsWith(".gz") ? new GZIPInputStream(in) : in;
            return new String(data.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private void load(String name) throws Exception {
        try (Connection c = lab().source().getConnection()) {
            PsqlScript.run(c, resource(name));
        }
    }

    private void assertEveryTableEqual(List<String> mustInclude) {
        VerificationResult v = lab().verify();
        List<String> compared =
                v.tables().stream()
                        .filter(t -> t.skipped() == null)
                        .map(TableResult::table)
                        .toList();
        assertThat(compared).containsAll(mustInclude);
        for (TableResult t : v.tables()) {
            assertThat(t.matches()).as(t.toString()).isTrue();
        }
        assertThat(lab().pipeline().sink().failure()).isEmpty();
    }

    @Test
    void pagilaLoadedWhileCapturedThenChangedLandsEqual() throws Exception {
        load("pagila-schema.sql");
        load("pagila-data.sql.gz");
        lab().awaitCaughtUp(Duration.ofMinutes(5));
        List<String> tables =
                List.of(
                        "public.actor",
                        "public.address",
                        "public.category",
                        "public.city",
                        "public.country",
                        "public.customer",
                        "public.film",
                        "public.film_actor",
                        "public.film_category",
                        "public.inventory",
                        "public.language",
                        "public.payment",
                        "public.rental",
                        "public.staff",
                        "public.store");
        assertEveryTableEqual(tables);

        load("pagila-changes.sql");
        lab().awaitCaughtUp(Duration.ofMinutes(5));
        assertEveryTableEqual(tables);
        assertThat(
                        TestHelper.rowsOf(
                                lab().warehouse(),
                                "SELECT CAST(rating AS VARCHAR) FROM public.film WHERE film_id = 6"))
                .containsExactly((String) null);
    }
}
