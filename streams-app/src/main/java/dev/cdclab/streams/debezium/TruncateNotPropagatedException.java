package dev.cdclab.streams.debezium;

/**
 * A {@code TRUNCATE} reached the change stream. Net changes are per key and a truncate has no key,
 * so it is not propagated; going on would leave the warehouse with rows the source no longer has,
 * so the app stops and says so.
 */
public final class TruncateNotPropagatedException extends IllegalStateException {
    public TruncateNotPropagatedException(String table) {
        super(
                "TRUNCATE of "
                        + table
                        + " is not propagated to the warehouse (it would diverge); stopping:"
                        + " reload that table into the warehouse, or re-snapshot into a new one");
    }
}
