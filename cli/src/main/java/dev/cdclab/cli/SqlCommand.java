package dev.cdclab.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cdclab.format.JsonText;
import dev.cdclab.orchestration.admin.AdminToken;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code cdc-lab sql}: a read-only query against the warehouse of a running pipeline. */
@Command(
        name = "sql",
        mixinStandardHelpOptions = true,
        description = {
            "Run one read-only SQL statement against the warehouse while 'cdc-lab up' (or 'cdc-lab"
                    + " sink') writes it, in the process that holds it: a DuckDB file admits one"
                    + " process only. Statements that would write are refused.",
            "Example: cdc-lab sql --endpoints-file endpoints.json \"SELECT count(*) FROM"
                    + " public.accounts\""
        })
final class SqlCommand implements Callable<Integer> {
    /** Where the warehouse's process answers. */
    static final class Target {
        @Option(
                names = "--endpoints-file",
                paramLabel = "FILE",
                description = "The file 'cdc-lab up --endpoints-file' wrote.")
        Path endpointsFile;

        @Option(
                names = "--admin-url",
                paramLabel = "URL",
                description = "The admin URL a 'cdc-lab sink' process printed.")
        String adminUrl;
    }

    /** How the result is printed. */
    enum Format {
        table,
        csv,
        json
    }

    @ArgGroup(multiplicity = "1")
    Target target;

    @Option(
            names = "--format",
            defaultValue = "table",
            description = "table, csv or json (default: ${DEFAULT-VALUE}).")
    Format format;

    @Option(
            names = "--max-rows",
            defaultValue = "1000",
            description = "At most this many rows (default: ${DEFAULT-VALUE}).")
    int maxRows;

    @Option(
            names = "--admin-token-file",
            paramLabel = "FILE",
            description =
                    "With --admin-url: the stage's admin token, from a file (else CDCLAB_ADMIN_TOKEN).")
    java.nio.file.Path adminTokenFile;

    @Parameters(paramLabel = "SQL", description = "One SELECT (or WITH, FROM, DESCRIBE, SHOW).")
    String sql;

    @Override
    public Integer call() throws Exception {
        if (maxRows < 1) {
            throw new IllegalArgumentException("--max-rows must be at least 1");
        }
        String url;
        String token;
        if (target.adminUrl != null) {
            url = target.adminUrl;
            token = AdminToken.presented(adminTokenFile);
            if (token == null) {
                throw new IllegalArgumentException(
                        "--admin-url needs the stage's admin token, in "
                                + AdminToken.ENV
                                + " or --admin-token-file (the sink printed it, or was started"
                                + " with it)");
            }
        } else {
            Endpoints e = Endpoints.read(target.endpointsFile);
            url = e.adminUrl();
            token = e.adminToken();
        }
        JsonNode n =
                Endpoints.post(
                        url.replaceAll("/+$", ""),
                        token,
                        "/query?max_rows=" + maxRows,
                        sql,
                        Duration.ofSeconds(90));
        List<String> columns = new ArrayList<>();
        n.path("columns").forEach(c -> columns.add(c.asText()));
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode r : n.path("rows")) {
            List<String> row = new ArrayList<>();
            r.forEach(v -> row.add(v.isNull() ? null : v.asText()));
            rows.add(row);
        }
        PrintStream out = System.out;
        switch (format) {
            case csv -> printCsv(out, columns, rows);
            case json -> out.println(JsonText.of(asObjects(n, columns)));
            case table -> {
                printTable(out, columns, rows);
                out.printf(
                        Locale.ROOT,
                        "(%d row%s%s)%n",
                        rows.size(),
                        rows.size() == 1 ? "" : "s",
                        n.path("truncated").asBoolean()
                                ? "; more exist, raise --max-rows to see them"
                                : "");
            }
        }
        return 0;
    }

    private static List<Map<String, Object>> asObjects(JsonNode n, List<String> columns) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (JsonNode r : n.path("rows")) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (int i = 0; i < columns.size(); i++) {
                m.put(columns.get(i), r.get(i));
            }
            out.add(m);
        }
        return out;
    }

    /** Aligned columns under a header, as psql prints them; null shows as an empty cell. */
    static void printTable(PrintStream out, List<String> columns, List<List<String>> rows) {
        int[] width = new int[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            width[i] = columns.get(i).length();
            for (List<String> r : rows) {
                width[i] = Math.max(width[i], cell(r.get(i)).length());
            }
        }
        out.println(line(columns, width));
        StringBuilder rule = new StringBuilder();
        for (int i = 0; i < width.length; i++) {
            rule.append(i == 0 ? "" : "-+-").append("-".repeat(width[i]));
        }
        out.println(rule);
        for (List<String> r : rows) {
            out.println(line(r, width));
        }
    }

    private static String line(List<String> values, int[] width) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < width.length; i++) {
            b.append(i == 0 ? "" : " | ");
            String v = cell(values.get(i));
            b.append(v).append(" ".repeat(width[i] - v.length()));
        }
        return b.toString().stripTrailing();
    }

    private static String cell(String v) {
        return v == null ? "" : v.replace("\n", "\\n");
    }

    /** RFC 4180: a header, then the rows; fields quoted where they need it; null is empty. */
    static void printCsv(PrintStream out, List<String> columns, List<List<String>> rows) {
        out.println(csvLine(columns));
        for (List<String> r : rows) {
            out.println(csvLine(r));
        }
    }

    private static String csvLine(List<String> values) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < values.size(); i++) {
            String v = values.get(i);
            b.append(i == 0 ? "" : ",");
            if (v == null) {
                continue;
            }
            if (v.contains(",") || v.contains("\"") || v.contains("\n") || v.contains("\r")) {
                b.append('"').append(v.replace("\"", "\"\"")).append('"');
            } else {
                b.append(v);
            }
        }
        return b.toString();
    }
}
