package dev.cdclab.change;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A change's position in its source's log, written so that comparing the strings compares the
 * positions. One form per source; a table's positions all come from one source.
 *
 * <ul>
 *   <li>PostgreSQL: the last commit before the change's transaction, then the change's LSN, each as
 *       16 lower-case hex digits, {@code 000000001a2b3c00/000000001a2b3c4d}. Transactions commit
 *       out of LSN order (one that began early commits after one that began later), but they reach
 *       the log's readers in commit order, each after the commit before it: so these positions sort
 *       as the changes were committed, as SQL Server's do.
 *   <li>SQL Server: commit LSN, change LSN and event serial number, {@code
 *       00000027:00000758:0005/00000027:00000758:0003/0000000002}; a snapshot read (no change LSN,
 *       no serial number) sorts before every change of its commit LSN.
 * </ul>
 */
public final class SourcePosition {
    private static final Pattern SQLSERVER_LSN =
            Pattern.compile("[0-9a-f]{8}:[0-9a-f]{8}:[0-9a-f]{4}");
    private static final String NO_CHANGE_LSN = "00000000:00000000:0000";

    /**
     * Separates a change's log position from its place in the change topic. Changes can share a log
     * position (the rows of one {@code COPY} page, all rows of a snapshot); a table without a key,
     * whose changes are applied one by one, tells them apart by it.
     */
    public static final String OFFSET_SEPARATOR = "/";

    private SourcePosition() {}

    /**
     * The position of the change at {@code position} read at {@code offset} of its change-topic
     * partition: after {@code position} and {@code position + "/"}, in read order among the changes
     * sharing the log position.
     */
    public static String withOffset(String position, long offset) {
        return position
                + OFFSET_SEPARATOR
                + String.format(Locale.ROOT, "%020d", Math.max(0, offset));
    }

    /**
     * The position just before every change of the commit {@code position} belongs to, and after
     * every change of an earlier one: the part before its first {@link #OFFSET_SEPARATOR} (the last
     * commit before the transaction on PostgreSQL, the commit LSN on SQL Server), then the
     * separator.
     */
    public static String commitStart(String position) {
        int sep = position.indexOf(OFFSET_SEPARATOR);
        return (sep < 0 ? position : position.substring(0, sep)) + OFFSET_SEPARATOR;
    }

    /**
     * The sortable form of a PostgreSQL change's position.
     *
     * @param lastCommit the LSN of the last commit before the change's transaction ({@code
     *     source.sequence}'s first element)
     * @param lsn the change's own LSN
     * @throws MalformedRecordException when either is not a log position
     */
    public static String postgres(long lastCommit, long lsn) {
        char[] text = new char[33];
        hex(text, 0, lastCommit);
        text[16] = '/';
        hex(text, 17, lsn);
        return new String(text);
    }

    /**
     * The PostgreSQL change at {@code position} placed in the transaction that follows the commit
     * at {@code lastCommit}: after every change of transactions whose previous commit is before it.
     */
    public static String postgresAfterCommit(String position, long lastCommit) {
        char[] text = position.toCharArray();
        hex(text, 0, lastCommit);
        return new String(text);
    }

    /**
     * The position of the log point {@code lsn} itself, for what has no commit before it (a
     * snapshot read): after the changes of every transaction whose previous commit is before {@code
     * lsn}, before those of every transaction whose previous commit is at or after it.
     */
    public static String postgres(long lsn) {
        return postgres(lsn, lsn);
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private static void hex(char[] into, int at, long lsn) {
        if (lsn <= 0) {
            throw new MalformedRecordException("PostgreSQL LSN " + lsn + " is not a log position");
        }
        for (int i = 15; i >= 0; i--) {
            into[at + i] = HEX[(int) (lsn & 0xf)];
            lsn >>>= 4;
        }
    }

    /**
     * The sortable form of a SQL Server position.
     *
     * @param commitLsn {@code commit_lsn}, required
     * @param changeLsn {@code change_lsn}; null for snapshot reads
     * @param eventSerialNo {@code event_serial_no}; null for snapshot reads
     * @throws MalformedRecordException when the commit LSN is missing or not an LSN
     */
    public static String sqlServer(String commitLsn, String changeLsn, Long eventSerialNo) {
        String commit = lsn(commitLsn, "commit_lsn");
        String change = changeLsn == null ? NO_CHANGE_LSN : lsn(changeLsn, "change_lsn");
        long serial = eventSerialNo == null ? 0 : eventSerialNo;
        if (serial < 0) {
            throw new MalformedRecordException("event_serial_no " + serial + " is negative");
        }
        return commit + "/" + change + "/" + String.format(Locale.ROOT, "%010d", serial);
    }

    /**
     * A SQL Server commit LSN as a number that orders commits as the LSNs do: the virtual log file
     * and the block (transactions committing in one block share it).
     */
    public static long sqlServerCommitOrder(String commitLsn) {
        String t = lsn(commitLsn, "commit_lsn");
        return (Long.parseLong(t.substring(0, 8), 16) << 32)
                | Long.parseLong(t.substring(9, 17), 16);
    }

    private static String lsn(String text, String field) {
        if (text == null) {
            throw new MalformedRecordException("SQL Server event has no " + field);
        }
        String t = text.toLowerCase(Locale.ROOT);
        if (!SQLSERVER_LSN.matcher(t).matches()) {
            throw new MalformedRecordException(field + " '" + text + "' is not a SQL Server LSN");
        }
        return t;
    }

    /**
     * A 64-bit number for a transaction's commit LSN, to tell apart transactions that commit in the
     * same millisecond: the log block and slot of the LSN. Two transactions whose numbers collide
     * in the same millisecond share an interval, which keeps that interval whole.
     */
    public static long sqlServerTransactionNumber(String commitLsn) {
        String t = lsn(commitLsn, "commit_lsn");
        long vlf = Long.parseLong(t.substring(0, 8), 16);
        long block = Long.parseLong(t.substring(9, 17), 16);
        long slot = Long.parseLong(t.substring(18, 22), 16);
        return (vlf << 48) ^ (block << 16) ^ slot;
    }
}
