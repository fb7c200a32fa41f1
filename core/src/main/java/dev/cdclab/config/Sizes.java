package dev.cdclab.config;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses and prints byte sizes such as {@code 512KiB}, {@code 16MiB}, {@code 1GiB}. */
public final class Sizes {
    private static final Pattern HUMAN =
            Pattern.compile("(\\d+)\\s*(b|kib|mib|gib|kb|mb|gb|k|m|g)?", Pattern.CASE_INSENSITIVE);

    private Sizes() {}

    /**
     * Parses a number of bytes, optionally with a unit: {@code KiB}, {@code MiB}, {@code GiB} (and
     * {@code K}, {@code M}, {@code G} for them), or {@code KB}, {@code MB}, {@code GB} (powers of
     * ten).
     *
     * @throws IllegalArgumentException when the text is not a size
     */
    public static long parse(String text) {
        Matcher m = HUMAN.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "'" + text + "' is not a size (use e.g. 1048576, 512KiB, 16MiB)");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "b" : m.group(2).toLowerCase(Locale.ROOT);
        long scale =
                switch (unit) {
                    case "b" -> 1L;
                    case "kib", "k" -> 1L << 10;
                    case "mib", "m" -> 1L << 20;
                    case "gib", "g" -> 1L << 30;
                    case "kb" -> 1_000L;
                    case "mb" -> 1_000_000L;
                    case "gb" -> 1_000_000_000L;
                    default -> throw new IllegalArgumentException("unknown unit in '" + text + "'");
                };
        return Math.multiplyExact(n, scale);
    }

    /** The size in the largest binary unit that divides it: {@code 16MiB}, {@code 1500}. */
    public static String format(long bytes) {
        if (bytes != 0 && bytes % (1L << 30) == 0) {
            return (bytes >> 30) + "GiB";
        }
        if (bytes != 0 && bytes % (1L << 20) == 0) {
            return (bytes >> 20) + "MiB";
        }
        if (bytes != 0 && bytes % (1L << 10) == 0) {
            return (bytes >> 10) + "KiB";
        }
        return Long.toString(bytes);
    }
}
