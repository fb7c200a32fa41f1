package dev.cdclab.streams.debezium;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cdclab.change.RowImage;
import dev.cdclab.change.Schemas;
import dev.cdclab.change.SourcePosition;
import java.util.List;

/**
 * One Debezium row change, read from its Kafka record.
 *
 * @param table {@code schema.table}
 * @param key primary-key values; empty for a table without a key (and for a truncate)
 * @param op Debezium operation: {@code c}, {@code u}, {@code d}, {@code r} (snapshot read) or
 *     {@code t} (truncate)
 * @param after row image after the change; null for deletes and truncates
 * @param before row image before the change, when the event carries it (tables without a key
 *     captured with {@code REPLICA IDENTITY FULL}); null otherwise
 * @param unavailable columns whose value the source did not send (unchanged TOASTed values); their
 *     value in {@code after} is the placeholder and means nothing
 * @param schema the table's columns, key columns marked, with their id
 * @param position source log position of the change, in {@link dev.cdclab.change.SourcePosition}'s
 *     sortable form; null for a row an incremental snapshot read (it has none)
 * @param transaction source transaction (PostgreSQL transaction id, SQL Server commit LSN)
 * @param transactionNumber a number for the transaction, unique among transactions committing in
 *     the same millisecond (intervals of one transaction are keyed by it)
 * @param windowKey the transaction's place in the source's commit order: the same for all its
 *     events, larger for every transaction committed after it (PostgreSQL: the position of the
 *     previous commit; SQL Server: the commit LSN); {@link Long#MIN_VALUE} when the event has none
 * @param noCommitBefore true for a change PostgreSQL's log delivered naming no commit before its
 *     transaction: the first one streamed after a snapshot, or after a start without one. Its
 *     window key and position are then its own LSN, which lies before the snapshot's position when
 *     the transaction began before it
 * @param commitMs source commit time ({@code source.ts_ms})
 * @param capturedMs when Debezium built the event (envelope {@code ts_ms})
 * @param kafkaAppendMs Kafka record timestamp
 * @param generatorCommitMicros the load generator's timestamp column, when present
 * @param snapshotRow where a row a snapshot read stands in its snapshot ({@code source.snapshot})
 * @param tooLargeBytes for a row over the pipeline's {@code max.row.bytes}, its size: capture sent
 *     this event in its place, without its images; 0 for every other event
 */
public record ChangeEvent(
        String table,
        ObjectNode key,
        char op,
        RowImage after,
        RowImage before,
        List<String> unavailable,
        Schemas.Described schema,
        String position,
        String transaction,
        long transactionNumber,
        long windowKey,
        boolean noCommitBefore,
        long commitMs,
        long capturedMs,
        long kafkaAppendMs,
        Long generatorCommitMicros,
        SnapshotRow snapshotRow,
        long tooLargeBytes) {

    /** An event that carries its row. */
    public ChangeEvent(
            String table,
            ObjectNode key,
            char op,
            RowImage after,
            RowImage before,
            List<String> unavailable,
            Schemas.Described schema,
            String position,
            String transaction,
            long transactionNumber,
            long windowKey,
            boolean noCommitBefore,
            long commitMs,
            long capturedMs,
            long kafkaAppendMs,
            Long generatorCommitMicros,
            SnapshotRow snapshotRow) {
        this(
                table,
                key,
                op,
                after,
                before,
                unavailable,
                schema,
                position,
                transaction,
                transactionNumber,
                windowKey,
                noCommitBefore,
                commitMs,
                capturedMs,
                kafkaAppendMs,
                generatorCommitMicros,
                snapshotRow,
                0);
    }

    /** True for the event capture sent in place of a row over {@code max.row.bytes}. */
    public boolean tooLarge() {
        return tooLargeBytes > 0;
    }

    /**
     * Where a row stands in a snapshot that reads tables whole, as Debezium marks it in {@code
     * source.snapshot}.
     */
    public enum SnapshotRow {
        /** A change, or a row an incremental snapshot read. */
        NONE,
        /** The snapshot's first row: its table may have no other. */
        FIRST,
        /** A row neither first in the snapshot nor last of its table. */
        WITHIN,
        /** The last row of its table (or of the whole snapshot). */
        LAST_OF_TABLE,
        /** No row: the snapshot found the table empty (its position is the snapshot's). */
        EMPTY_TABLE;

        /** The place {@code source.snapshot} names; {@link #NONE} when null or unknown. */
        public static SnapshotRow of(String mark) {
            if (mark == null) {
                return NONE;
            }
            return switch (mark) {
                case "first" -> FIRST;
                case "true", "first_in_data_collection" -> WITHIN;
                case "last", "last_in_data_collection" -> LAST_OF_TABLE;
                default -> NONE;
            };
        }
    }

    /** True when the row exists after this change. */
    public boolean rowExistsAfter() {
        return op != 'd';
    }

    /** True for a {@code TRUNCATE} of the table. */
    public boolean truncate() {
        return op == 't';
    }

    /** True for a change of a table without a key: applied as it is, never folded. */
    public boolean keyless() {
        return key.isEmpty();
    }

    /** The same event at {@code p}. */
    public ChangeEvent at(String p) {
        return placed(p, windowKey, noCommitBefore);
    }

    /**
     * The same PostgreSQL change, placed as if the last commit before its transaction were at
     * {@code lastCommit}: for the first transaction streamed, which names none.
     */
    public ChangeEvent following(long lastCommit) {
        return placed(SourcePosition.postgresAfterCommit(position, lastCommit), lastCommit, false);
    }

    private ChangeEvent placed(String p, long window, boolean noCommit) {
        return new ChangeEvent(
                table,
                key,
                op,
                after,
                before,
                unavailable,
                schema,
                p,
                transaction,
                transactionNumber,
                window,
                noCommit,
                commitMs,
                capturedMs,
                kafkaAppendMs,
                generatorCommitMicros,
                snapshotRow,
                tooLargeBytes);
    }

    /** True for a snapshot read. */
    public boolean snapshot() {
        return op == 'r';
    }

    /** Table and key as one string. */
    public String tableKey() {
        return table + "/" + key.toString();
    }
}
