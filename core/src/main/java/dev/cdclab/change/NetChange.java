package dev.cdclab.change;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * The net effect of all raw changes to one key of one table inside one interval of source commit
 * time.
 *
 * @param table captured table, {@code schema.table}
 * @param op net operation
 * @param key primary-key values; empty for a table without a key, whose changes are not folded but
 *     applied one by one in source order
 * @param after final row image; null for a delete
 * @param before the row image the change replaced or removed, for a table without a key (its
 *     updates and deletes find the row by it); null otherwise
 * @param unchanged columns whose value the source did not send (unchanged TOASTed values); the
 *     warehouse keeps what it has
 * @param schema the table's columns as the source declares them, with their id
 * @param intervalStartMs start of the interval (inclusive), source commit time
 * @param intervalEndMs end of the interval (exclusive), source commit time
 * @param firstPosition source log position of the first raw change folded, in {@link
 *     SourcePosition}'s sortable form
 * @param lastPosition source log position of the last raw change folded, the same way
 * @param transaction source transaction of the last raw change (PostgreSQL transaction id, SQL
 *     Server commit LSN)
 * @param commitMs source commit time of the last raw change
 * @param rawChanges how many raw changes were folded
 * @param snapshot true when the last raw change came from the initial snapshot
 * @param mode how the change was computed
 * @param stages per-stage instants of the last raw change
 * @param generatorCommitMicros the load generator's own commit timestamp column, when present
 */
public record NetChange(
        String table,
        NetOperation op,
        ObjectNode key,
        RowImage after,
        RowImage before,
        List<String> unchanged,
        Schemas.Described schema,
        long intervalStartMs,
        long intervalEndMs,
        String firstPosition,
        String lastPosition,
        String transaction,
        long commitMs,
        int rawChanges,
        boolean snapshot,
        NetChangeMode mode,
        StageTimes stages,
        Long generatorCommitMicros)
        implements IntervalRecord {

    /** The table's columns. */
    public List<ColumnSpec> columns() {
        return schema.columns();
    }

    /** Where the change takes effect: the position of the last raw change folded. */
    @Override
    public String position() {
        return lastPosition;
    }

    /** True for a change of a table without a key: applied as it is, in source order. */
    public boolean keyless() {
        return key.isEmpty();
    }

    /** Table and key as one string, unique across the pipeline: {@code schema.table/{"id":1}}. */
    public String tableKey() {
        return table + "/" + key.toString();
    }
}
