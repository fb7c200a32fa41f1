package dev.cdclab.orchestration.admin;

import com.sun.net.httpserver.HttpExchange;
import dev.cdclab.config.OneLineError;
import dev.cdclab.sink.WarehouseSink;
import dev.cdclab.sink.warehouse.ReadOnlyQuery;
import java.io.IOException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /query?max_rows=1000} with one SQL statement as the body: runs it read-only against
 * the warehouse in the process that holds it, and answers its columns and rows as JSON (400 with
 * the reason for a statement that would write or fails).
 */
final class QueryRoute {
    static final int DEFAULT_MAX_ROWS = 1000;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final WarehouseSink sink;

    QueryRoute(WarehouseSink sink) {
        this.sink = sink;
    }

    void register(AdminServer server) {
        server.route("/query", this::query);
    }

    private void query(HttpExchange x) throws IOException {
        if (!"POST".equals(x.getRequestMethod())) {
            AdminServer.json(x, 405, Map.of("error", "use POST with the SQL as the body"));
            return;
        }
        String sql = AdminServer.body(x).strip();
        if (sql.isEmpty()) {
            AdminServer.json(x, 400, Map.of("error", "no SQL in the request's body"));
            return;
        }
        int maxRows;
        try {
            maxRows =
                    Integer.parseInt(
                            AdminServer.query(x)
                                    .getOrDefault("max_rows", String.valueOf(DEFAULT_MAX_ROWS)));
            if (maxRows < 1) {
                throw new NumberFormatException();
            }
        } catch (NumberFormatException e) {
            AdminServer.json(x, 400, Map.of("error", "max_rows must be a positive whole number"));
            return;
        }
        long t0 = System.nanoTime();
        ReadOnlyQuery.Result r;
        try {
            r = sink.query(sql, maxRows, TIMEOUT);
        } catch (ReadOnlyQuery.RefusedException e) {
            AdminServer.json(x, 400, Map.of("error", "refused: " + e.getMessage()));
            return;
        } catch (SQLException e) {
            AdminServer.json(x, 400, Map.of("error", OneLineError.of(e)));
            return;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("columns", r.columns());
        List<List<Object>> rows = new ArrayList<>();
        for (List<Object> row : r.rows()) {
            List<Object> out = new ArrayList<>(row.size());
            for (Object v : row) {
                out.add(jsonValue(v));
            }
            rows.add(out);
        }
        m.put("rows", rows);
        m.put("truncated", r.truncated());
        m.put("took_ms", (System.nanoTime() - t0) / 1_000_000.0);
        AdminServer.json(x, 200, m);
    }

    /** Numbers, booleans and null as they are; everything else as its text. */
    private static Object jsonValue(Object v) {
        if (v == null || v instanceof Number || v instanceof Boolean || v instanceof String) {
            return v;
        }
        if (v instanceof byte[] b) {
            return java.util.HexFormat.of().formatHex(b);
        }
        return v.toString();
    }
}
