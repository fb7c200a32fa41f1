package dev.cdclab.orchestration.admin;

import com.sun.net.httpserver.HttpExchange;
import dev.cdclab.config.Durations;
import dev.cdclab.format.Numbers;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.orchestration.verify.TableResult;
import dev.cdclab.orchestration.verify.VerificationResult;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running pipeline's own routes: {@code GET /status}, {@code POST /verify?timeout=60s} and {@code
 * POST /resnapshot?table=schema.table}. Verification runs here because the DuckDB warehouse file
 * admits one process, the one that writes it.
 */
final class PipelineRoutes {
    private static final Logger LOG = LoggerFactory.getLogger(PipelineRoutes.class);

    private final Pipeline pipeline;

    PipelineRoutes(Pipeline pipeline) {
        this.pipeline = pipeline;
    }

    void register(AdminServer server) {
        server.route("/status", this::status);
        server.route("/verify", this::verify);
        server.route("/resnapshot", this::resnapshot);
    }

    private void status(HttpExchange x) throws IOException {
        Map<String, Object> m = new LinkedHashMap<>();
        if (pipeline.streams() == null || pipeline.sink() == null) {
            m.put("stages_outside", pipeline.spec().without());
            AdminServer.json(x, 200, m);
            return;
        }
        var ns = pipeline.streams().stats();
        var ss = pipeline.sink().stats();
        m.put("captured_changes", ns.rawChanges());
        m.put("net_changes_applied", ss.netChanges());
        m.put("raw_changes_applied", ss.rawChanges());
        m.put("held", ss.held());
        m.put("late_changes", ns.late());
        m.put("dead_letters", ns.deadLetters() + ss.deadLettered());
        m.put("applied_through_ms", ss.appliedThroughMs());
        m.put("latency_ms", Numbers.percentiles(pipeline.sink().latency().endToEnd(), 1));
        AdminServer.json(x, 200, m);
    }

    private void verify(HttpExchange x) throws IOException {
        if (!"POST".equals(x.getRequestMethod())) {
            AdminServer.json(x, 405, Map.of("error", "use POST"));
            return;
        }
        Duration timeout;
        try {
            timeout = Durations.parse(AdminServer.query(x).getOrDefault("timeout", "60s"));
        } catch (RuntimeException e) {
            AdminServer.json(x, 400, Map.of("error", "bad timeout: " + e.getMessage()));
            return;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        try {
            Duration caughtUp = pipeline.awaitCaughtUp(timeout);
            m.put("caught_up_s", caughtUp.toMillis() / 1000.0);
            VerificationResult v = pipeline.verify();
            m.put("verified", v.matches());
            m.put("summary", v.summary());
            m.put("not_landing", v.notLanding());
            List<Map<String, Object>> tables = new ArrayList<>();
            for (TableResult t : v.tables()) {
                tables.add(t.asMap());
            }
            m.put("tables", tables);
            AdminServer.json(x, 200, m);
        } catch (Exception e) {
            LOG.warn("Verification failed to run", e);
            m.put("verified", false);
            m.put("error", e.getMessage());
            AdminServer.json(x, 503, m);
        }
    }

    /** {@code POST /resnapshot?table=public.t&timeout=5m}: read one table again. */
    private void resnapshot(HttpExchange x) throws IOException {
        if (!"POST".equals(x.getRequestMethod())) {
            AdminServer.json(x, 405, Map.of("error", "use POST"));
            return;
        }
        Map<String, String> q = AdminServer.query(x);
        String table = q.get("table");
        if (table == null || table.isBlank()) {
            AdminServer.json(
                    x, 400, Map.of("error", "name the table: /resnapshot?table=schema.table"));
            return;
        }
        Duration timeout;
        try {
            timeout = Durations.parse(q.getOrDefault("timeout", "5m"));
        } catch (RuntimeException e) {
            AdminServer.json(x, 400, Map.of("error", "bad timeout: " + e.getMessage()));
            return;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        try {
            long t0 = System.nanoTime();
            long rows = pipeline.resnapshot(table, timeout);
            m.put("table", table);
            m.put("rows_read", rows);
            m.put("took_s", (System.nanoTime() - t0) / 1e9);
            AdminServer.json(x, 200, m);
        } catch (Exception e) {
            LOG.warn("Re-snapshot of {} failed", table, e);
            m.put("error", e.getMessage());
            AdminServer.json(x, 503, m);
        }
    }
}
