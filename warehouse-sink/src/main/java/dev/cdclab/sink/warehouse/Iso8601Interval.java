package dev.cdclab.sink.warehouse;

import java.math.BigDecimal;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Debezium's {@code io.debezium.time.Interval}: ISO 8601 {@code PnYnMnDTnHnMnS}, every field
 * present and signed on its own, e.g. {@code P-1Y-2M3DT-4H-5M-6.789S}.
 *
 * @param years years
 * @param months months
 * @param days days
 * @param hours hours
 * @param minutes minutes
 * @param seconds seconds, with their fraction
 */
record Iso8601Interval(
        long years, long months, long days, long hours, long minutes, BigDecimal seconds) {
    private static final Pattern ISO =
            Pattern.compile(
                    "P(?:(-?\\d+)Y)?(?:(-?\\d+)M)?(?:(-?\\d+)D)?"
                            + "(?:T(?:(-?\\d+)H)?(?:(-?\\d+)M)?(?:(-?\\d+(?:\\.\\d+)?)S)?)?");

    /** Debezium's average month, as its {@code MicroDuration} counts it. */
    private static final double DAYS_PER_MONTH = 365.25 / 12.0;

    /** Parses Debezium's text. */
    static Iso8601Interval parse(String iso) {
        Matcher m = ISO.matcher(iso.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("not an ISO 8601 interval: " + iso);
        }
        return new Iso8601Interval(
                number(m.group(1)),
                number(m.group(2)),
                number(m.group(3)),
                number(m.group(4)),
                number(m.group(5)),
                m.group(6) == null ? BigDecimal.ZERO : new BigDecimal(m.group(6)));
    }

    private static long number(String s) {
        return s == null ? 0 : Long.parseLong(s);
    }

    /**
     * The interval as DuckDB and PostgreSQL both read it: {@code -1 years -2 months 3 days -4 hours
     * -5 minutes -6.789 seconds}.
     */
    String sqlText() {
        return years
                + " years "
                + months
                + " months "
                + days
                + " days "
                + hours
                + " hours "
                + minutes
                + " minutes "
                + seconds.toPlainString()
                + " seconds";
    }

    /** Microseconds as Debezium's {@code MicroDuration} has them (months of 30.4375 days). */
    long debeziumMicros() {
        double numberOfDays = (years * 12 + months) * DAYS_PER_MONTH + days;
        double numberOfSeconds =
                ((numberOfDays * 24 + hours) * 60 + minutes) * 60 + seconds.doubleValue();
        return (long) (numberOfSeconds * 1e6);
    }
}
