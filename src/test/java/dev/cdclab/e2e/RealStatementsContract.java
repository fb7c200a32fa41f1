package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.junit.CdcLabExtension;
import dev.cdclab.orchestration.infra.SourceEndpoint;
import dev.cdclab.orchestration.verify.TableResult;
import dev.cdclab.orchestration.verify.VerificationResult;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

/**
 * Statements real applications issue, written once and run into each warehouse: TRUNCATE (several
 * tables, CASCADE, reloads in one transaction, rows the pipeline did not write), tables without a
 * key (duplicates, COPY), keys gained, dropped and changed, partitioned tables (rows moving,
 * partitions attached later), and DDL (rename, drop, drop column, type change). Each is compared
 * with queries of its own on both sides, then by {@code verify}.
 */
abstract class RealStatementsContract {
    /** The pipeline, its source and its warehouse. */
    abstract CdcLabExtension lab();

    /** Creates the tables that exist before capture starts ({@code before-capture.sql}). */
    static void beforeCapture(SourceEndpoint src) throws Exception {
        String text;
        try (InputStream in =
                RealStatementsContract.class.getResourceAsStream("/sql/real/before-capture.sql")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try (Connection c = DriverManager.getConnection(src.jdbcUrl(), src.user(), src.password());
                Statement s = c.createStatement()) {
            for (String sql : statements(text)) {
                s.execute(sql);
            }
        }
    }

    /**
     * Statements of a test resource, run one by one with auto-commit (BEGIN/COMMIT as written); a
     * comment line starting {@code -- await} waits until the warehouse has caught up.
     */
    void script(String resource) throws Exception {
        String text;
        try (InputStream in = getClass().getResourceAsStream(resource)) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (String sql : statements(text)) {
            if (sql.equals(AWAIT)) {
                lab().awaitCaughtUp(Duration.ofSeconds(90));
            } else {
                run(sql);
            }
        }
    }

    private static final String AWAIT = "-- await";

    static List<String> statements(String text) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (String line : text.split("\n")) {
            if (line.strip().startsWith(AWAIT)) {
                out.add(AWAIT);
                continue;
            }
            if (line.isBlank() || line.strip().startsWith("--")) {
                continue;
            }
            cur.append(line).append('\n');
            if (line.strip().endsWith(";")) {
                out.add(cur.toString().strip());
                cur.setLength(0);
            }
        }
        return out;
    }

    void run(String... statements) throws Exception {
        try (Connection c = lab().source().getConnection();
                Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    static List<String> rows(DataSource ds, String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder sb = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    sb.append(i > 1 ? "|" : "").append(rs.getString(i));
                }
                out.add(sb.toString());
            }
        }
        return out;
    }

    /**
     * Waits for the warehouse to hold everything committed so far, then runs {@code sql} on both.
     */
    void assertSameOnBothSides(String sql) throws Exception {
        lab().awaitCaughtUp(Duration.ofSeconds(90));
        List<String> source = rows(lab().source(), sql);
        assertThat(rows(lab().warehouse(), sql)).as(sql).isEqualTo(source);
    }

    List<String> warehouse(String sql) throws Exception {
        return rows(lab().warehouse(), sql);
    }

    TableResult verified(String table) throws Exception {
        VerificationResult v = lab().verify();
        TableResult t =
                v.tables().stream().filter(r -> r.table().equals(table)).findFirst().orElseThrow();
        assertThat(t.skipped()).as(table).isNull();
        assertThat(t.matches()).as(t.toString()).isTrue();
        return t;
    }

    @Test
    void truncatesOfSeveralTablesCascadesAndReloadsInOneTransactionLand() throws Exception {
        script("/sql/real/truncate.sql");
        assertSameOnBothSides("SELECT id, v FROM public.tr_a ORDER BY id");
        assertSameOnBothSides("SELECT id, a FROM public.tr_b ORDER BY id");
        assertSameOnBothSides("SELECT id, v FROM public.tr_c ORDER BY id");
        assertThat(warehouse("SELECT v FROM public.tr_a WHERE id = 3"))
                .containsExactly("changed after the truncate");
        for (String t : List.of("public.tr_a", "public.tr_b", "public.tr_c")) {
            verified(t);
        }
    }

    @Test
    void aTruncateRemovesRowsTheWarehouseHadBeforeThePipelineWroteTheTable() throws Exception {
        try (Connection w = lab().warehouse().getConnection();
                Statement s = w.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS public");
            s.execute(
                    "CREATE TABLE public.tr_stale (id INTEGER, v VARCHAR, _cdc_lsn VARCHAR,"
                            + " _cdc_commit_ms BIGINT)");
            s.execute("INSERT INTO public.tr_stale (id, v) VALUES (100, 'loaded by hand')");
        }
        run(
                "CREATE TABLE tr_stale (id int PRIMARY KEY, v text)",
                "INSERT INTO tr_stale VALUES (1, 'one')",
                "TRUNCATE tr_stale",
                "INSERT INTO tr_stale VALUES (2, 'two')");
        assertSameOnBothSides("SELECT id, v FROM public.tr_stale ORDER BY id");
        verified("public.tr_stale");
    }

    @Test
    void tablesWithoutAKeyLandAsMultisets() throws Exception {
        script("/sql/real/keyless.sql");
        try (Connection c = lab().source().getConnection()) {
            StringBuilder rows = new StringBuilder();
            for (int i = 1; i <= 3000; i++) {
                rows.append("bulk\t").append(i).append('\n');
            }
            // a COPY logs a page of rows as one record: they share a log position
            c.unwrap(PGConnection.class)
                    .getCopyAPI()
                    .copyIn("COPY kl_log (name, n) FROM STDIN", new StringReader(rows.toString()));
        }
        run("DELETE FROM kl_log WHERE name = 'bulk' AND n % 10 = 0");
        assertSameOnBothSides(
                "SELECT name, n, count(*) FROM public.kl_log GROUP BY name, n ORDER BY name, n");
        assertThat(warehouse("SELECT count(*) FROM public.kl_log WHERE name = 'a'"))
                .containsExactly("2");
        assertSameOnBothSides("SELECT code, v FROM public.kl_ri ORDER BY code");
        assertThat(verified("public.kl_log").comparedAs()).isEqualTo("rows (no key)");
        assertThat(verified("public.kl_ri").comparedAs()).isEqualTo("key (code)");
    }

    @Test
    void keysGainedDroppedAndChangedAreFollowed() throws Exception {
        script("/sql/real/keys-change.sql");
        assertSameOnBothSides("SELECT id, v FROM public.kc_load ORDER BY id");
        assertSameOnBothSides("SELECT a, b, v FROM public.kc_swap ORDER BY a, b, v");
        assertThat(verified("public.kc_load").comparedAs()).isEqualTo("key (id)");
        assertThat(verified("public.kc_swap").comparedAs()).isEqualTo("key (a, b)");
    }

    @Test
    void keysChangedInsideTransactionsKeyEachChangeAsTheTableWasWhenItWasMade() throws Exception {
        script("/sql/real/keys-in-transactions.sql");
        assertSameOnBothSides(
                "SELECT id, v, count(*) FROM public.kt_dropped GROUP BY id, v ORDER BY id, v");
        assertSameOnBothSides("SELECT id, v FROM public.kt_added ORDER BY id");
        assertSameOnBothSides("SELECT a, b, v FROM public.kt_swapped ORDER BY a, b");
        assertThat(verified("public.kt_dropped").comparedAs()).isEqualTo("rows (no key)");
        assertThat(verified("public.kt_added").comparedAs()).isEqualTo("key (id)");
        assertThat(verified("public.kt_swapped").comparedAs()).isEqualTo("key (a, b)");
        assertThat(lab().pipeline().sink().failure()).isEmpty();
    }

    @Test
    void typesChangedInsideATransactionKeepTheValuesWrittenBeforeTheChange() throws Exception {
        script("/sql/real/types-in-transactions.sql");
        assertSameOnBothSides(
                "SELECT id, b, CAST(d AS text), n, s FROM public.tt_types ORDER" + " BY id");
        verified("public.tt_types");
        assertThat(lab().pipeline().sink().failure()).isEmpty();
    }

    @Test
    void storedGeneratedColumnsLandAndVirtualOnesAreNamedUpFront() throws Exception {
        script("/sql/real/generated.sql");
        assertSameOnBothSides("SELECT id, qty, price, total FROM public.gc_orders ORDER BY id");
        VerificationResult v = lab().verify();
        assertThat(v.notLanding())
                .anySatisfy(
                        c ->
                                assertThat(c)
                                        .startsWith("public.gc_orders.doubled: ")
                                        .contains("virtual"))
                .noneSatisfy(c -> assertThat(c).startsWith("public.gc_orders.total"));
        verified("public.gc_orders");
    }

    @Test
    void partitionedTablesLandAsOneTableUnderTheRootsName() throws Exception {
        script("/sql/real/partitions.sql");
        assertSameOnBothSides("SELECT id, CAST(day AS text), v FROM public.pa_events ORDER BY id");
        assertSameOnBothSides(
                "SELECT k, v, count(*) FROM public.pa_log GROUP BY k, v ORDER BY k, v");
        assertThat(
                        warehouse(
                                "SELECT count(*) FROM information_schema.tables WHERE table_name"
                                        + " LIKE 'pa_events_%'"))
                .containsExactly("0");
        verified("public.pa_events");
        verified("public.pa_log");
    }

    @Test
    void tablesThatExistedBeforeCaptureAreSnapshottedOnce() throws Exception {
        assertSameOnBothSides("SELECT id, CAST(k AS text), v FROM public.early_parts ORDER BY id");
        assertSameOnBothSides(
                "SELECT name, n, count(*) FROM public.early_log GROUP BY name, n ORDER BY name, n");
        run("DELETE FROM early_log WHERE ctid = (SELECT min(ctid) FROM early_log)");
        assertSameOnBothSides(
                "SELECT name, n, count(*) FROM public.early_log GROUP BY name, n ORDER BY name, n");
        verified("public.early_parts");
        verified("public.early_log");
    }

    @Test
    void renamesDropsDroppedColumnsAndTypeChangesDoNotStopAnything() throws Exception {
        script("/sql/real/ddl.sql");
        assertSameOnBothSides("SELECT id, v FROM public.dd_renamed ORDER BY id");
        assertSameOnBothSides("SELECT id, v FROM public.dd_gone ORDER BY id");
        assertSameOnBothSides("SELECT id, n, s FROM public.dd_cols ORDER BY id");
        assertThat(
                        warehouse(
                                "SELECT table_name FROM information_schema.tables WHERE"
                                        + " table_name LIKE 'dd_gone__dropped_%'"))
                .hasSize(1);
        verified("public.dd_renamed");
        verified("public.dd_gone");
        verified("public.dd_cols");
        assertThat(lab().pipeline().sink().failure()).isEmpty();
    }
}
