package dev.cdclab.change;

/**
 * How raw changes become net changes, after SQL Server's {@code fn_cdc_get_net_changes} row
 * filters.
 */
public enum NetChangeMode {
    /** One change per key and interval; insert, update or delete ({@code all}). */
    ALL,
    /**
     * Like {@link #ALL} but insert and update are reported as one upsert ({@code all with merge}).
     */
    ALL_WITH_MERGE,
    /** No folding: every raw change is passed on and applied; for comparison runs. */
    OFF
}
