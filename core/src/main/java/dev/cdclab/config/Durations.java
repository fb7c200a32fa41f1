package dev.cdclab.config;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses and prints human durations such as {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}. */
public final class Durations {
    private static final Pattern HUMAN = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)?");

    private Durations() {}

    /**
     * Parses {@code 250ms}, {@code 30s}, {@code 5m}, {@code 1h}, {@code 1d}, an ISO-8601 duration
     * ({@code PT30S}) or a bare number of milliseconds.
     *
     * @throws IllegalArgumentException when the text is none of these
     */
    public static Duration parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.startsWith("pt") || t.startsWith("p")) {
            return Duration.parse(text.trim().toUpperCase(Locale.ROOT));
        }
        Matcher m = HUMAN.matcher(t);
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "'" + text + "' is not a duration (use e.g. 500ms, 30s, 2m, 1h)");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "ms" : m.group(2);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            case "d" -> Duration.ofDays(n);
            default -> throw new IllegalArgumentException("unknown unit in '" + text + "'");
        };
    }

    /** Prints a duration in the largest unit that represents it exactly. */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms != 0 && ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms != 0 && ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        if (ms != 0 && ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }
}
