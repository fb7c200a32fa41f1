package dev.cdclab.orchestration.verify;

/**
 * One way a warehouse table differs from its source table.
 *
 * @param kind what differs
 * @param key the row's key, as {@code (col=value, ...)}
 * @param column the first differing column, for {@link Kind#VALUE}; else null
 * @param sourceValue that column's canonical value at the source, or null
 * @param warehouseValue the same in the warehouse, or null
 */
public record Difference(
        Kind kind, String key, String column, String sourceValue, String warehouseValue) {

    /** What differs about a key. */
    public enum Kind {
        /** The source has the key and the warehouse does not. */
        MISSING_IN_WAREHOUSE,
        /** The warehouse has a key the source does not. */
        ONLY_IN_WAREHOUSE,
        /** Both have the key with different values. */
        VALUE
    }

    static Difference missing(String key) {
        return new Difference(Kind.MISSING_IN_WAREHOUSE, key, null, null, null);
    }

    static Difference extra(String key) {
        return new Difference(Kind.ONLY_IN_WAREHOUSE, key, null, null, null);
    }

    static Difference value(String key, String column, String source, String warehouse) {
        return new Difference(Kind.VALUE, key, column, source, warehouse);
    }

    /** A whole-table problem (e.g. the table is missing), not about one key. */
    static Difference table(String what) {
        return new Difference(Kind.MISSING_IN_WAREHOUSE, null, null, what, null);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case MISSING_IN_WAREHOUSE ->
                    key == null ? sourceValue : "key " + key + " missing in the warehouse";
            case ONLY_IN_WAREHOUSE -> "key " + key + " only in the warehouse";
            case VALUE ->
                    "key "
                            + key
                            + " column "
                            + column
                            + ": source "
                            + sourceValue
                            + ", warehouse "
                            + warehouseValue;
        };
    }
}
