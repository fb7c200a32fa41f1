package dev.cdclab.streams.fold;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cdclab.change.RowImage;
import dev.cdclab.change.Schemas;
import java.util.List;

/**
 * The fold of the raw changes seen so far for one key in one open interval.
 *
 * @param table {@code schema.table}
 * @param key primary-key values
 * @param interval the interval
 * @param existedBefore whether the row existed before the interval (decided by the first change;
 *     true when that change was late, since the warehouse may already hold it)
 * @param existsAfter whether the row exists after the last change seen
 * @param image current row image; null when the row does not exist
 * @param unchanged columns of {@code image} whose value is not known (unchanged TOASTed values)
 * @param schema latest column list
 * @param firstPosition log position of the first change (sortable form)
 * @param lastPosition log position of the last change (sortable form)
 * @param transaction transaction of the last change
 * @param commitMs commit time of the last change
 * @param capturedMs Debezium time of the last change
 * @param kafkaAppendMs Kafka timestamp of the last change
 * @param rawChanges how many raw changes were folded
 * @param snapshot whether the last change was a snapshot read
 * @param generatorCommitMicros generator timestamp of the last change, if any
 */
public record PendingChange(
        String table,
        ObjectNode key,
        Interval interval,
        boolean existedBefore,
        boolean existsAfter,
        RowImage image,
        List<String> unchanged,
        Schemas.Described schema,
        String firstPosition,
        String lastPosition,
        String transaction,
        long commitMs,
        long capturedMs,
        long kafkaAppendMs,
        int rawChanges,
        boolean snapshot,
        Long generatorCommitMicros) {

    /** The same fold, in an interval that ends at {@code endMs}. */
    public PendingChange endingAt(long endMs) {
        return new PendingChange(
                table,
                key,
                new Interval(interval.startMs(), endMs, interval.discriminator()),
                existedBefore,
                existsAfter,
                image,
                unchanged,
                schema,
                firstPosition,
                lastPosition,
                transaction,
                commitMs,
                capturedMs,
                kafkaAppendMs,
                rawChanges,
                snapshot,
                generatorCommitMicros);
    }
}
