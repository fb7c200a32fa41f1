package dev.cdclab.format;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** Formatting of counts, rates and histograms for people and for JSON. */
public final class Numbers {
    private Numbers() {}

    /** {@code 12,345}. */
    public static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** {@code 1,234.5}. */
    public static String rate(double r) {
        return String.format(Locale.ROOT, "%,.1f", r);
    }

    /** Two decimals, for ratios and seconds. */
    public static String fixed2(double r) {
        return String.format(Locale.ROOT, "%.2f", r);
    }

    /** Rounds to 3 decimals for JSON. */
    public static double round3(double v) {
        return Math.round(v * 1000.0) / 1000.0;
    }

    /** Percentiles of a histogram in its own unit: p50, p95, p99, max, count. */
    public static Map<String, Object> percentiles(Histogram h, double scale) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("p50", round3(h.getValueAtPercentile(50) / scale));
        m.put("p95", round3(h.getValueAtPercentile(95) / scale));
        m.put("p99", round3(h.getValueAtPercentile(99) / scale));
        m.put("max", round3(h.getMaxValue() / scale));
        m.put("count", h.getTotalCount());
        return m;
    }

    /** {@code p50 620 ms p95 900 ms p99 1,100 ms max 1,400 ms}. */
    public static String millis(Histogram h, double scale) {
        if (h.getTotalCount() == 0) {
            return "no samples";
        }
        return "p50 "
                + ms(h.getValueAtPercentile(50) / scale)
                + "  p95 "
                + ms(h.getValueAtPercentile(95) / scale)
                + "  p99 "
                + ms(h.getValueAtPercentile(99) / scale)
                + "  max "
                + ms(h.getMaxValue() / scale);
    }

    /** A millisecond value with sensible precision. */
    public static String ms(double v) {
        if (v < 10) {
            return String.format(Locale.ROOT, "%.1f ms", v);
        }
        return String.format(Locale.ROOT, "%,.0f ms", v);
    }
}
