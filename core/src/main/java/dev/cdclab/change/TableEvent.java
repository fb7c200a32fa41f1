package dev.cdclab.change;

import java.util.Locale;

/**
 * Something that happened to a whole table at one source position: the warehouse applies it in
 * source order with the table's row changes, inside its interval's transaction.
 *
 * @param kind what happened
 * @param table captured table, {@code schema.table}
 * @param position source log position, in {@link SourcePosition}'s sortable form
 * @param transaction source transaction
 * @param commitMs source commit time
 * @param intervalStartMs start of the interval (inclusive), source commit time
 * @param intervalEndMs end of the interval (exclusive), source commit time
 * @param newName the table's name after a {@link Kind#RENAME}, {@code schema.table}; null otherwise
 */
public record TableEvent(
        Kind kind,
        String table,
        String position,
        String transaction,
        long commitMs,
        long intervalStartMs,
        long intervalEndMs,
        String newName)
        implements IntervalRecord {

    /** An event that renames nothing. */
    public TableEvent(
            Kind kind,
            String table,
            String position,
            String transaction,
            long commitMs,
            long intervalStartMs,
            long intervalEndMs) {
        this(kind, table, position, transaction, commitMs, intervalStartMs, intervalEndMs, null);
    }

    /** What happened to the table. */
    public enum Kind {
        /** {@code TRUNCATE}: every row written before the position is gone. */
        TRUNCATE,
        /**
         * A snapshot of the table was read from the position on: every row written before it was
         * read again or is gone. Sent before the first row of a table without a key (so a snapshot
         * read again after a crash does not add its rows twice), and after a table was read again
         * on demand (so rows gone from the source leave the warehouse).
         */
        SNAPSHOT,
        /**
         * {@code ALTER TABLE ... RENAME}: the changes before the position belong to the old name,
         * those after it to {@link TableEvent#newName()}.
         */
        RENAME,
        /**
         * {@code DROP TABLE}: the table as it was is kept aside, marked; a table created later
         * under the same name starts empty.
         */
        DROP;

        /** True for an event that changes what a table name refers to. */
        public boolean structural() {
            return this == RENAME || this == DROP;
        }

        /** The name in the record format. */
        public String code() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The kind a record names. */
        public static Kind ofCode(String code) {
            for (Kind k : values()) {
                if (k.code().equals(code)) {
                    return k;
                }
            }
            throw new MalformedRecordException("unknown table event '" + code + "'");
        }
    }
}
