package dev.cdclab.config;

import static dev.cdclab.config.ConfigOption.sizeOption;

/**
 * The largest row the pipeline carries, and the Kafka limits that follow from it: capture, the
 * topics, the net-change app's producer and the sink's reads are all sized by one setting. A row
 * over it stops nothing: capture sends a small record in its place naming its table, key and size,
 * which the net-change app dead-letters, and the warehouse marks the table diverged.
 */
public final class RowLimit {
    private RowLimit() {}

    /**
     * The field of the record capture writes in place of a row over the limit: the row's size in
     * bytes, beside where the row was (its table, position, operation), without its images.
     */
    public static final String TOO_LARGE_FIELD = "__cdclab_row_too_large";

    /** The default: 16 MiB. */
    public static final long DEFAULT_BYTES = 16L << 20;

    /** The smallest and the largest limits that may be set. */
    public static final long MIN_BYTES = 1L << 10;

    public static final long MAX_BYTES = 256L << 20;

    /**
     * The largest row, as the JSON of its change event's values (both images of an update of a
     * table without a key).
     */
    public static final ConfigOption<Long> MAX_ROW_BYTES =
            sizeOption("max.row.bytes")
                    .defaultValue(DEFAULT_BYTES)
                    .check(
                            v -> v >= MIN_BYTES && v <= MAX_BYTES,
                            "must be between "
                                    + Sizes.format(MIN_BYTES)
                                    + " and "
                                    + Sizes.format(MAX_BYTES))
                    .description(
                            "The largest row the pipeline carries: the JSON of a change event's"
                                    + " values (both images of an update of a table without a key)."
                                    + " Kafka's limits (topics, producers) follow from it. A larger"
                                    + " row stops nothing: it is dead-lettered with its table, key and"
                                    + " size, and its table marked diverged.")
                    .build();

    /**
     * The largest Kafka record that a row of {@code rowBytes} can make: a net change holds the
     * row's image, its key, its columns' description and the window's bookkeeping; a change of a
     * table without a key, both images.
     */
    public static long messageBytes(long rowBytes) {
        return 2 * rowBytes + (1L << 20);
    }

    /** A producer's buffer for records of {@code rowBytes} rows: at least two of the largest. */
    public static long producerBufferBytes(long rowBytes) {
        return Math.max(32L << 20, 2 * messageBytes(rowBytes));
    }
}
