package dev.cdclab.lab.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cdclab.config.ConfigException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A seed's claim, checked against the cells: a metric is {@code lower}, {@code higher} or {@code
 * similar} in the cells matching {@code when} than in those matching {@code than}.
 *
 * @param table the seed's table or figure it comes from, e.g. "white paper table 2"
 * @param claim the claim in words
 * @param metric a metric of {@link CellMetrics#NAMES}, taken from the {@code when} cells
 * @param thanMetric the metric taken from the {@code than} cells (default: the same)
 * @param expect lower, higher or similar
 * @param when factor levels of the cells the claim is about
 * @param than factor levels of the cells they are compared with
 * @param marginPercent lower/higher must differ by more than this; similar must stay within it
 */
public record Conclusion(
        String table,
        String claim,
        String metric,
        String thanMetric,
        Expect expect,
        Map<String, String> when,
        Map<String, String> than,
        double marginPercent) {

    /** The direction of a claim. */
    public enum Expect {
        LOWER,
        HIGHER,
        SIMILAR
    }

    private static final Set<String> KEYS =
            Set.of("table", "claim", "metric", "than_metric", "expect", "when", "than", "margin");

    static Conclusion from(
            JsonNode n, String where, Map<String, List<String>> factors, Map<String, String> base) {
        ExperimentSpec.checkKeys(n, KEYS, where + ".");
        String metric = metric(n.path("metric").asText(""), where + ".metric");
        String thanMetric =
                n.has("than_metric")
                        ? metric(n.path("than_metric").asText(""), where + ".than_metric")
                        : metric;
        Expect expect;
        try {
            expect = Expect.valueOf(n.path("expect").asText("").trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(where + ".expect", "must be lower, higher or similar");
        }
        Map<String, String> when = levels(n.path("when"), where + ".when", factors);
        Map<String, String> than = levels(n.path("than"), where + ".than", factors);
        if (when.isEmpty() || than.isEmpty()) {
            throw new ConfigException(where, "needs both 'when' and 'than' factor levels");
        }
        double margin = 10;
        if (n.has("margin")) {
            String m = n.get("margin").asText().trim();
            try {
                margin = Double.parseDouble(m.endsWith("%") ? m.substring(0, m.length() - 1) : m);
            } catch (NumberFormatException e) {
                throw new ConfigException(where + ".margin", "'" + m + "' is not a percentage");
            }
            if (margin < 0) {
                throw new ConfigException(where + ".margin", "must be >= 0");
            }
        }
        return new Conclusion(
                n.path("table").asText(""),
                n.path("claim").asText(""),
                metric,
                thanMetric,
                expect,
                when,
                than,
                margin);
    }

    private static String metric(String metric, String where) {
        if (!CellMetrics.NAMES.containsKey(metric)) {
            throw new ConfigException(
                    where,
                    "'"
                            + metric
                            + "' is not a metric"
                            + CellSettings.suggestion(metric, CellMetrics.NAMES.keySet())
                            + "; see docs/experiments.md");
        }
        return metric;
    }

    private static Map<String, String> levels(
            JsonNode n, String where, Map<String, List<String>> factors) {
        Map<String, String> m = new LinkedHashMap<>();
        if (n.isMissingNode()) {
            return m;
        }
        if (!n.isObject()) {
            throw new ConfigException(where, "must be a mapping of factor: level");
        }
        n.fields()
                .forEachRemaining(
                        e -> {
                            List<String> levels = factors.get(e.getKey());
                            if (levels == null) {
                                throw new ConfigException(
                                        where + "." + e.getKey(),
                                        "not a factor of this experiment"
                                                + CellSettings.suggestion(
                                                        e.getKey(), factors.keySet()));
                            }
                            String level = ExperimentSpec.scalar(e.getValue(), where);
                            if (!levels.contains(level)) {
                                throw new ConfigException(
                                        where + "." + e.getKey(),
                                        "'" + level + "' is not one of its levels " + levels);
                            }
                            m.put(e.getKey(), level);
                        });
        return m;
    }

    /** Whether a cell's levels include every level of {@code side}. */
    static boolean matches(Map<String, String> levels, Map<String, String> side) {
        for (var e : side.entrySet()) {
            if (!e.getValue().equals(levels.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }
}
