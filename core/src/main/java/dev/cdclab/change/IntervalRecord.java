package dev.cdclab.change;

/**
 * A record of the net-changes topic that the warehouse applies in its interval's transaction: a
 * row's {@link NetChange} or a whole table's {@link TableEvent}.
 */
public sealed interface IntervalRecord extends NetChangeRecord permits NetChange, TableEvent {
    /** The captured table, {@code schema.table}. */
    String table();

    /** End of the interval (exclusive), source commit time. */
    long intervalEndMs();

    /** Source log position where the record takes effect, in {@link SourcePosition}'s form. */
    String position();
}
