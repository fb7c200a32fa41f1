package dev.cdclab.sink.warehouse;

/**
 * What the warehouse keeps about a whole table, beside its rows ({@code cdc_lab.table_state}).
 *
 * @param emptiedAt source position of the last {@code TRUNCATE} (or snapshot of a table without a
 *     key) applied: every row written before it is gone, and a change at or before it is stale
 * @param keylessThrough source position of the last change of the table applied while it had no
 *     key: changes of a table without a key are applied one by one, so a replay at or before it is
 *     a duplicate
 * @param diverged why the warehouse table no longer follows the source, or null
 */
public record TableState(String emptiedAt, String keylessThrough, String diverged) {
    /** A table the warehouse knows nothing about yet. */
    public static final TableState NONE = new TableState(null, null, null);

    /** True when a change at {@code position} was written before the table was last emptied. */
    public boolean staleAfterEmptying(String position) {
        return emptiedAt != null && position.compareTo(emptiedAt) <= 0;
    }

    /** True when a keyless change at {@code position} is applied already. */
    public boolean keylessApplied(String position) {
        return keylessThrough != null && position.compareTo(keylessThrough) <= 0;
    }

    public TableState emptied(String position) {
        return new TableState(position, keylessThrough, diverged);
    }

    public TableState keylessAppliedThrough(String position) {
        return new TableState(emptiedAt, position, diverged);
    }

    public TableState diverging(String reason) {
        return new TableState(emptiedAt, keylessThrough, reason);
    }
}
