package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.initialload.InitialLoad;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.orchestration.verify.TableResult;
import dev.cdclab.orchestration.verify.VerificationResult;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tables that hold rows before capture starts reach the warehouse through the direct initial load
 * (COPY at the replication slot's exported snapshot): the Pagila sample database, a column of every
 * type ({@code types.sql}) and odd values land value for value, NULL for NULL; then the changes
 * made after the snapshot stream on top of them and land equal too.
 */
abstract class InitialLoadContract {
    @TempDir Path dir;

    /** The warehouse the test loads into. */
    abstract Pipeline.Builder warehouse(Pipeline.Builder b);

    private static String resource(String name) throws Exception {
        try (InputStream in = InitialLoadContract.class.getResourceAsStream(name)) {
            InputStream data = name.endsWith(".gz") ? new GZIPInputStream(in) : in;
            return new String(data.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static void run(Connection c, String name) throws Exception {
        if (name.startsWith("/pagila/")) {
            PsqlScript.run(c, resource(name));
        } else {
            try (Statement s = c.createStatement()) {
                // its composite type is named like Pagila's address table
                s.execute(resource(name).replace("public.address", "public.street_address"));
            }
        }
    }

    private static void assertEqual(Pipeline p) throws Exception {
        VerificationResult v = p.verify();
        for (TableResult t : v.tables()) {
            assertThat(t.matches()).as(t.toString()).isTrue();
        }
        assertThat(v.tables()).extracting(TableResult::table).contains("public.all_types");
    }

    @Test
    void tablesThatHoldRowsBeforeCaptureAreLoadedThenStreamedOnEqual() throws Exception {
        try (Pipeline p =
                warehouse(Pipeline.builder())
                        .workDir(dir.resolve("load"))
                        .runId("load" + Long.toString(System.nanoTime() % 100_000, 36))
                        .interval(Duration.ofMillis(200))
                        .beforeCapture(
                                src -> {
                                    // a connection per script: pg_dump's scripts empty the
                                    // search_path
                                    for (String script :
                                            List.of(
                                                    "/pagila/pagila-schema.sql",
                                                    "/pagila/pagila-data.sql.gz",
                                                    "/sql/types.sql",
                                                    "/sql/odd-values.sql")) {
                                        try (Connection c = src.connect()) {
                                            run(c, script);
                                        }
                                    }
                                })
                        .start()) {
            InitialLoad.Result load = p.initialLoad();
            assertThat(load).as("the direct load ran").isNotNull();
            assertThat(load.tables().get("public.rental").rows()).isEqualTo(16_044);
            assertThat(load.tables().get("public.payment").rows()).isEqualTo(16_049);
            assertThat(load.tables().get("public.all_types").rows()).isEqualTo(4);
            p.awaitCaughtUp(Duration.ofSeconds(90));
            assertEqual(p);
            // nothing of the load went through Kafka
            assertThat(p.streams().stats().snapshotChanges()).isZero();

            for (String script : List.of("/pagila/pagila-changes.sql", "/sql/types-changes.sql")) {
                try (Connection c = p.sourceConnection()) {
                    run(c, script);
                }
            }
            p.awaitCaughtUp(Duration.ofSeconds(90));
            assertEqual(p);
        }
    }
}
