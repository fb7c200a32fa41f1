package dev.cdclab.lab.experiment;

import java.util.Locale;
import java.util.Map;

/**
 * One run of an experiment: a combination of factor levels and a repetition.
 *
 * @param id stable name of the cell (its results directory)
 * @param levels the factor levels that make this cell, in factor order
 * @param repetition 1-based repetition number
 * @param settings every setting the cell runs with: base, then the levels
 */
public record ExperimentCell(
        String id, Map<String, String> levels, int repetition, Map<String, String> settings) {

    static String id(int combination, Map<String, String> levels, int rep, int reps) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "c%02d", combination));
        levels.forEach(
                (k, v) -> {
                    String key = k.substring(k.lastIndexOf('.') + 1);
                    b.append('-').append(key).append('=').append(v.isEmpty() ? "default" : v);
                });
        if (reps > 1) {
            b.append("-r").append(rep);
        }
        String s = b.toString().replaceAll("[^A-Za-z0-9=._-]", "_");
        return s.length() > 80 ? s.substring(0, 80) : s;
    }

    /** The levels as {@code key=value, ...}, or "(single cell)". */
    public String label() {
        if (levels.isEmpty()) {
            return "(single cell)";
        }
        StringBuilder b = new StringBuilder();
        levels.forEach(
                (k, v) -> b.append(b.length() == 0 ? "" : ", ").append(k).append('=').append(v));
        return b.toString();
    }
}
