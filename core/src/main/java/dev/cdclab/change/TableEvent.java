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
 * @param column the column a {@link Kind#RENAME_COLUMN} renames; for {@link Kind#ROW_TOO_LARGE},
 *     the key of the row left out; null otherwise
 * @param newColumn that column's name after it; for {@link Kind#ROW_TOO_LARGE}, the row's size in
 *     bytes; null otherwise
 * @param detail for {@link Kind#ADD_COLUMN} and {@link Kind#ALTER_COLUMN_TYPE}, the column's source
 *     type and, for an added column, the value the rows there were get, as JSON ({@code
 *     {"type_name":"int4","type_mod":-1,"default":"0"}}); null otherwise
 */
public record TableEvent(
        Kind kind,
        String table,
        String position,
        String transaction,
        long commitMs,
        long intervalStartMs,
        long intervalEndMs,
        String newName,
        String column,
        String newColumn,
        String detail)
        implements IntervalRecord {

    /** An event without a column's detail. */
    public TableEvent(
            Kind kind,
            String table,
            String position,
            String transaction,
            long commitMs,
            long intervalStartMs,
            long intervalEndMs,
            String newName,
            String column,
            String newColumn) {
        this(
                kind,
                table,
                position,
                transaction,
                commitMs,
                intervalStartMs,
                intervalEndMs,
                newName,
                column,
                newColumn,
                null);
    }

    /** An event that renames no column. */
    public TableEvent(
            Kind kind,
            String table,
            String position,
            String transaction,
            long commitMs,
            long intervalStartMs,
            long intervalEndMs,
            String newName) {
        this(
                kind,
                table,
                position,
                transaction,
                commitMs,
                intervalStartMs,
                intervalEndMs,
                newName,
                null,
                null);
    }

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
        DROP,
        /**
         * {@code ALTER TABLE ... RENAME COLUMN}: the changes before the position name the column
         * {@link TableEvent#column()}, those after it {@link TableEvent#newColumn()}.
         */
        RENAME_COLUMN,
        /**
         * A change of one row over the pipeline's {@code max.row.bytes}: it was left out (and
         * dead-lettered), so the table no longer equals the source.
         */
        ROW_TOO_LARGE,
        /**
         * {@code ALTER TABLE ... ADD COLUMN}: the column {@link TableEvent#column()} is there from
         * the position on, the rows there were holding its default ({@link TableEvent#detail()}).
         */
        ADD_COLUMN,
        /**
         * {@code ALTER TABLE ... ALTER COLUMN ... TYPE}: the column {@link TableEvent#column()} has
         * the type {@link TableEvent#detail()} names from the position on.
         */
        ALTER_COLUMN_TYPE,
        /**
         * A primary key added, dropped or replaced: the changes before the position are keyed as
         * the table was, those after it as it is; applied in that order.
         */
        KEY_CHANGE;

        /**
         * True for an event the changes around it must be applied on either side of: it changes
         * what a table name, or a column name, refers to, or how a row is told apart.
         */
        public boolean structural() {
            return this == RENAME
                    || this == DROP
                    || this == RENAME_COLUMN
                    || this == ADD_COLUMN
                    || this == ALTER_COLUMN_TYPE
                    || this == KEY_CHANGE;
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
