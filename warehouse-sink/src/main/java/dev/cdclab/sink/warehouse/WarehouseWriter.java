package dev.cdclab.sink.warehouse;

import dev.cdclab.change.ColumnSpec;
import dev.cdclab.change.IntervalRecord;
import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetOperation;
import dev.cdclab.change.TableEvent;
import dev.cdclab.config.OneLineError;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.duckdb.DuckDBConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies batches of net changes to the warehouse, one database transaction per batch, creating and
 * widening tables as source schemas appear and grow.
 */
public final class WarehouseWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WarehouseWriter.class);

    private final String url;
    private final String user;
    private final String password;
    private final WarehouseDialect dialect;
    private final Connection connection;
    private final WarehouseDialect.Upkeep upkeep;
    private final Map<TableName, Map<String, String>> knownColumns = new HashMap<>();
    private final Map<TableName, Set<String>> knownKeys = new HashMap<>();
    private final Map<TableName, TableState> tableStates = new HashMap<>();
    private final boolean skipTruncates;
    private long tablesEmptied;
    private long keylessUnmatched;

    /**
     * Opens the warehouse.
     *
     * @throws SQLException when it cannot be opened (for DuckDB: another process holds the file)
     */
    public WarehouseWriter(String url, String user, String password) throws SQLException {
        this(url, user, password, false);
    }

    /**
     * Opens the warehouse.
     *
     * @param skipTruncates true to leave tables as they are on a {@code TRUNCATE}, marked diverged
     * @throws SQLException when it cannot be opened (for DuckDB: another process holds the file)
     */
    public WarehouseWriter(String url, String user, String password, boolean skipTruncates)
            throws SQLException {
        this.skipTruncates = skipTruncates;
        this.url = url;
        this.user = user;
        this.password = password;
        this.dialect = WarehouseDialect.forUrl(url);
        Connection c = dialect.connect(url, user, password);
        try {
            dialect.createMetadataTables(c);
            c.commit();
            this.upkeep = dialect.startUpkeep(c);
        } catch (SQLException | RuntimeException e) {
            try {
                c.close();
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        this.connection = c;
    }

    public String dialectName() {
        return dialect.name();
    }

    /** Tables emptied by a {@code TRUNCATE} (or a keyless table's snapshot) so far. */
    public long tablesEmptied() {
        return tablesEmptied;
    }

    /** Per table, the changes written into the open transaction once folded per key. */
    public Map<String, Long> foldedSoFar() {
        return new HashMap<>(folded);
    }

    /** Rows left out as over {@code max.row.bytes}, so far. */
    public long rowsTooLarge() {
        return rowsTooLarge;
    }

    private long rowsTooLarge;

    /** Changes of tables without a key that found no row equal to their old image. */
    public long keylessUnmatched() {
        return keylessUnmatched;
    }

    /** Every table's saved state, read in a transaction of its own. */
    public Map<TableName, TableState> tableStates() throws SQLException {
        try (Connection c = openReader()) {
            return dialect.tableStates(c);
        }
    }

    /**
     * Outcome of one committed warehouse transaction.
     *
     * @param rowsWritten warehouse rows written
     * @param committedAtMs the commit time
     * @param netChanges per table, the changes applied once the transaction's windows were folded
     *     per key (what the warehouse had to do; the raw changes are what the source did)
     */
    public record Applied(long rowsWritten, long committedAtMs, Map<String, Long> netChanges) {}

    /**
     * Applies the batch and records {@code appliedThroughMs} in one transaction.
     *
     * @throws SQLException after rolling back
     */
    public Applied apply(List<? extends IntervalRecord> batch, long appliedThroughMs)
            throws SQLException {
        long written = write(batch);
        Map<String, Long> net = new HashMap<>(folded);
        return new Applied(written, commit(appliedThroughMs), net);
    }

    /**
     * Writes the batch into the open transaction (opening one if none is), without committing: a
     * big interval is written in several batches, then committed once. Per table, table events come
     * first in effect (a {@code TRUNCATE} removes what was written before its position, and the
     * changes at or before it are dropped), then the changes, in source order where the table had
     * no key.
     *
     * @return rows written
     * @throws SQLException after rolling the open transaction back
     */
    public long write(List<? extends IntervalRecord> batch) throws SQLException {
        long written = 0;
        try {
            List<IntervalRecord> records = resolveMoves(onceEach(batch));
            List<TableEvent> structural = new ArrayList<>();
            List<IntervalRecord> rest = new ArrayList<>(records.size());
            for (IntervalRecord r : records) {
                if (r instanceof TableEvent e && e.kind().structural()) {
                    structural.add(e);
                } else {
                    rest.add(r);
                }
            }
            long merged = mergedRows;
            if (structural.isEmpty()) {
                written += applyRun(rest);
            } else {
                // a rename or drop splits the batch at its position, whatever the table: what
                // comes before it applies to the tables as they were, then the names change
                structural.sort(Comparator.comparing(TableEvent::position));
                for (TableEvent e : structural) {
                    List<IntervalRecord> before = new ArrayList<>();
                    for (java.util.Iterator<IntervalRecord> it = rest.iterator(); it.hasNext(); ) {
                        IntervalRecord r = it.next();
                        if (r.position().compareTo(e.position()) < 0) {
                            before.add(r);
                            it.remove();
                        }
                    }
                    written += applyRun(before);
                    runMerges();
                    applyStructural(e);
                }
                written += applyRun(rest);
            }
            runMerges();
            written += mergedRows - merged;
        } catch (SQLException | RuntimeException e) {
            rollbackAfter(e);
            throw e;
        }
        return written;
    }

    /** Applies records among which no table or column changes name, table by table. */
    private long applyRun(List<IntervalRecord> records) throws SQLException {
        if (records.isEmpty()) {
            return 0;
        }
        Map<String, List<IntervalRecord>> byTable = new LinkedHashMap<>();
        for (IntervalRecord r : records) {
            byTable.computeIfAbsent(r.table(), t -> new ArrayList<>()).add(r);
        }
        long written = 0;
        for (var e : byTable.entrySet()) {
            written += applySegment(TableName.of(e.getKey()), e.getValue());
        }
        return written;
    }

    /**
     * The batch with each table event once: the net-change app sends a table event to every
     * partition, so several sinks' partitions, or one sink's, hold copies of it.
     */
    private static List<IntervalRecord> onceEach(List<? extends IntervalRecord> batch) {
        List<IntervalRecord> out = new ArrayList<>(batch.size());
        Set<TableEvent> seen = new HashSet<>();
        for (IntervalRecord r : batch) {
            if (!(r instanceof TableEvent e) || seen.add(e)) {
                out.add(r);
            }
        }
        return out;
    }

    /**
     * The batch with each record under the name its table has now: a change made before its table
     * was renamed or dropped (a replay, or a change applied late) goes to where the table went, and
     * a rename or drop applied already is left out. Without this, a replay would create an empty
     * table under the old name, or rename a table a second time.
     */
    private List<IntervalRecord> resolveMoves(List<IntervalRecord> batch) throws SQLException {
        List<IntervalRecord> out = new ArrayList<>(batch.size());
        for (IntervalRecord r : batch) {
            TableState s = state(TableName.of(r.table()));
            if (s.moves().isEmpty()) {
                out.add(r);
                continue;
            }
            if (r instanceof TableEvent e
                    && (e.kind() == TableEvent.Kind.RENAME || e.kind() == TableEvent.Kind.DROP)
                    && s.movedAtOrAfter(e.position())) {
                continue;
            }
            String table = r.table();
            for (int hops = 0; hops < 64; hops++) {
                TableState.Move m = state(TableName.of(table)).moveAfter(r.position());
                if (m == null) {
                    break;
                }
                table = m.to();
                if (table == null) {
                    break;
                }
            }
            if (table == null) {
                // its table went where the warehouse never had it
                continue;
            }
            out.add(table.equals(r.table()) ? r : renamed(r, table));
        }
        return out;
    }

    /** The record under another table name. */
    private static IntervalRecord renamed(IntervalRecord r, String table) {
        if (r instanceof NetChange c) {
            return new NetChange(
                    table,
                    c.op(),
                    c.key(),
                    c.after(),
                    c.before(),
                    c.unchanged(),
                    c.schema(),
                    c.intervalStartMs(),
                    c.intervalEndMs(),
                    c.firstPosition(),
                    c.lastPosition(),
                    c.transaction(),
                    c.commitMs(),
                    c.rawChanges(),
                    c.snapshot(),
                    c.mode(),
                    c.stages(),
                    c.generatorCommitMicros());
        }
        TableEvent e = (TableEvent) r;
        return new TableEvent(
                e.kind(),
                table,
                e.position(),
                e.transaction(),
                e.commitMs(),
                e.intervalStartMs(),
                e.intervalEndMs(),
                e.newName(),
                e.column(),
                e.newColumn(),
                e.detail());
    }

    /**
     * Records {@code appliedThroughMs} and commits the open transaction.
     *
     * @return the commit time
     * @throws SQLException after rolling back
     */
    public long commit(long appliedThroughMs) throws SQLException {
        try {
            db().saveProgress(connection, appliedThroughMs, System.currentTimeMillis());
            pruneTombstonesIfDue(appliedThroughMs);
            connection.commit();
            dialect.committed(connection);
        } catch (SQLException | RuntimeException e) {
            rollbackAfter(e);
            throw e;
        }
        written.putAll(writing);
        writing.clear();
        folded.clear();
        followedInTransaction.clear();
        keylessThroughAtStart.clear();
        return System.currentTimeMillis();
    }

    /**
     * What the warehouse records of the initial load from replication slot {@code slot}: {@code
     * started} once a load began, {@code done} once its rows were committed; empty when none began.
     */
    public java.util.Optional<String> initialLoadState(String slot) throws SQLException {
        try (PreparedStatement ps =
                connection.prepareStatement(
                        "SELECT state FROM cdc_lab.initial_loads WHERE slot = ? ORDER BY at_ms DESC,"
                                + " CASE state WHEN 'done' THEN 0 ELSE 1 END LIMIT 1")) {
            ps.setString(1, slot);
            try (ResultSet rs = ps.executeQuery()) {
                java.util.Optional<String> out =
                        rs.next()
                                ? java.util.Optional.of(rs.getString(1))
                                : java.util.Optional.empty();
                connection.commit();
                return out;
            }
        }
    }

    /**
     * Records that the initial load from {@code slot} began, in a transaction of its own: a load
     * cut off before its commit is then known as such when the pipeline starts again.
     */
    public void initialLoadStarted(String slot) throws SQLException {
        recordInitialLoad(slot, "started");
        connection.commit();
    }

    /** Records, in the open transaction, that the initial load from {@code slot} is complete. */
    public void initialLoadDone(String slot) throws SQLException {
        recordInitialLoad(slot, "done");
    }

    private void recordInitialLoad(String slot, String state) throws SQLException {
        try (PreparedStatement ps =
                connection.prepareStatement("INSERT INTO cdc_lab.initial_loads VALUES (?, ?, ?)")) {
            ps.setString(1, slot);
            ps.setString(2, state);
            ps.setLong(3, System.currentTimeMillis());
            ps.executeUpdate();
        }
    }

    /**
     * Writes rows of a table read from the source at one snapshot (an initial load), in the open
     * transaction: the table is created as its changes would create it, and each row is an insert
     * of a row that did not exist, at {@code position}, which sorts before every change the log
     * delivers after the snapshot. {@link #commit} makes them visible.
     *
     * @param rows each row's values as staged text ({@link SourceColumnType#staged}), in the order
     *     of {@code columns}; null for NULL
     * @return rows written
     */
    public long load(
            String table,
            List<ColumnSpec> columns,
            java.util.Iterator<String[]> rows,
            String position,
            long commitMs,
            int chunkRows)
            throws SQLException {
        TableName name = TableName.of(table);
        ensureTable(name, columns);
        Set<String> keys = new HashSet<>();
        for (ColumnSpec col : columns) {
            if (col.key()) {
                keys.add(col.name());
            }
        }
        if (!keys.equals(knownKeys.get(name))) {
            db().keyChanged(connection, name, columns);
            knownKeys.put(name, keys);
        }
        // a table that holds rows already (a warehouse written before) takes them as changes
        boolean empty;
        try (java.sql.Statement s = connection.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT 1 FROM " + MergeSql.qualified(name) + " LIMIT 1")) {
            empty = !rs.next();
        }
        long written = 0;
        List<StagedRow> chunk = new ArrayList<>(chunkRows);
        while (rows.hasNext()) {
            chunk.add(new StagedRow(false, true, position, commitMs, "", "\u001f", rows.next()));
            if (chunk.size() == chunkRows || !rows.hasNext()) {
                written +=
                        empty
                                ? db().insertNew(connection, name, columns, chunk)
                                : db().merge(connection, name, columns, List.of(), chunk, true);
                chunk = new ArrayList<>(chunkRows);
            }
        }
        return written;
    }

    /**
     * Keeps tombstones of deletes the source committed within {@code retention} of the newest
     * change applied (source time), and removes older ones about once a minute; {@link
     * Duration#ZERO} keeps them all.
     */
    public WarehouseWriter tombstoneRetention(Duration retention) {
        return tombstoneRetention(retention, Duration.ofMinutes(1));
    }

    /** As {@link #tombstoneRetention(Duration)}, pruning every {@code every} at most. */
    WarehouseWriter tombstoneRetention(Duration retention, Duration every) {
        this.tombstoneRetention = retention;
        this.pruneEvery = every;
        return this;
    }

    private Duration pruneEvery = Duration.ofMinutes(1);

    private Duration tombstoneRetention = Duration.ZERO;
    private long nextPruneNanos = System.nanoTime();
    private long tombstonesPruned;

    /** Tombstones removed as older than the retention, so far. */
    public long tombstonesPruned() {
        return tombstonesPruned;
    }

    private void pruneTombstonesIfDue(long appliedThroughMs) throws SQLException {
        if (tombstoneRetention.isZero()
                || appliedThroughMs == Long.MIN_VALUE
                || System.nanoTime() - nextPruneNanos < 0) {
            return;
        }
        nextPruneNanos = System.nanoTime() + pruneEvery.toNanos();
        long n = db().pruneTombstones(connection, appliedThroughMs - tombstoneRetention.toMillis());
        tombstonesPruned += n;
        if (n > 0) {
            LOG.debug("Pruned {} tombstones older than {}", n, tombstoneRetention);
        }
    }

    /** A change the warehouse refuses to hold, and why (the warehouse's own words). */
    public record Refused(NetChange change, String reason) {}

    /**
     * The changes of {@code batch} the warehouse refuses, found by halving: a half is written in a
     * trial transaction, rolled back, and split again while it fails. The trials take the same path
     * as a real write, so "refused" means exactly what the write would do. Nothing stays written.
     * Call it after {@link #write} failed with the open transaction rolled back; an empty answer
     * means the failure was not about values (the warehouse itself failed).
     */
    public List<Refused> refused(List<? extends IntervalRecord> batch) throws SQLException {
        if (!connection.isValid(5)) {
            return List.of();
        }
        List<Refused> out = new ArrayList<>();
        bisect(batch, out);
        return out;
    }

    private void bisect(List<? extends IntervalRecord> part, List<Refused> out)
            throws SQLException {
        if (part.isEmpty()) {
            return;
        }
        try {
            write(part);
            rollback();
        } catch (SQLException | RuntimeException e) {
            if (!connection.isValid(5) || !aboutValues(e)) {
                throw e instanceof SQLException se ? se : new SQLException(e);
            }
            if (part.size() == 1) {
                if (!(part.get(0) instanceof NetChange c)) {
                    // a table event is not a row to set aside: the failure stands
                    throw e instanceof SQLException se ? se : new SQLException(e);
                }
                out.add(
                        new Refused(
                                c,
                                OneLineError.firstLine(
                                        e.getMessage(), "refused by the warehouse")));
                return;
            }
            int half = part.size() / 2;
            bisect(part.subList(0, half), out);
            bisect(part.subList(half, part.size()), out);
        }
    }

    /**
     * Whether a failed trial write can have failed because of a row's values: not when the
     * transaction itself failed (DuckDB's transaction errors: a conflict, a transaction the
     * database already ended), which no row can be set aside for.
     */
    private static boolean aboutValues(Exception e) {
        String m = e.getMessage();
        return m == null || !m.contains("TransactionContext Error");
    }

    /** Rolls the open transaction back: nothing written since the last commit stays. */
    public void rollback() throws SQLException {
        // DDL of the rolled-back transaction is gone too
        forgetCaches();
        connection.rollback();
    }

    /** Per table, changes written into the open transaction once folded per key. */
    private final Map<String, Long> folded = new HashMap<>();

    /**
     * Per table, the newest position its rows and tombstones hold as committed ({@link
     * WarehouseDialect#newestPosition}), and as written in the open transaction.
     */
    private final Map<TableName, String> written = new HashMap<>();

    private final Map<TableName, String> writing = new HashMap<>();

    private String writtenThrough(TableName table) throws SQLException {
        String open = writing.get(table);
        if (open != null) {
            return open;
        }
        if (!written.containsKey(table)) {
            written.put(table, db().newestPosition(connection, table));
        }
        return written.get(table);
    }

    private void forgetCaches() {
        followedInTransaction.clear();
        keylessThroughAtStart.clear();
        pendingMerges.clear();
        folded.clear();
        writing.clear();
        written.clear();
        knownColumns.clear();
        knownKeys.clear();
        tableStates.clear();
        dialect.rolledBack();
    }

    private void rollbackAfter(Exception e) {
        try {
            connection.rollback();
        } catch (SQLException re) {
            // the database may have ended the transaction where the driver thinks it open
            try {
                dialect.recover(connection);
            } catch (SQLException again) {
                e.addSuppressed(again);
            }
        }
        // a failed statement may leave DDL caches stale
        forgetCaches();
    }

    /** Applies a rename or drop of a table, or a change of a column, at its position. */
    private void applyStructural(TableEvent e) throws SQLException {
        if (e.kind() == TableEvent.Kind.KEY_CHANGE) {
            // nothing to do but keep the changes on either side apart: each carries its key, and
            // the warehouse table follows the key of the changes written to it
            return;
        }
        TableName table = TableName.of(e.table());
        TableState state = state(table);
        if (e.kind() == TableEvent.Kind.ADD_COLUMN
                || e.kind() == TableEvent.Kind.ALTER_COLUMN_TYPE) {
            if (!state.schemaAtOrAfter(e.position()) && tableExists(table)) {
                state = columnEvent(table, state, e);
                forget(table);
                saveState(table, state.followingSchemaAt(e.position()));
            } else if (e.kind() == TableEvent.Kind.ALTER_COLUMN_TYPE && tableExists(table)) {
                // a change made after it was written first and brought the new type: the values
                // from before still lose the padding the source's cast took from them
                SourceColumnType.Detail d = SourceColumnType.detail(e.detail());
                trimPadding(table, e, d);
                // and a change made before it, written later, is read as it was made
                TableState next =
                        state.withColumnChange(
                                TableState.ColumnChange.retyped(
                                        e.position(), e.column(), d.dropsPadding()));
                if (!next.equals(state)) {
                    saveState(table, next);
                }
            }
            return;
        }
        if (e.kind() == TableEvent.Kind.RENAME_COLUMN) {
            if (state.schemaAtOrAfter(e.position())) {
                return; // applied already, or the table follows a newer schema
            }
            Map<String, String> cols = tableExists(table) ? columns(table) : Map.of();
            if (cols.containsKey(e.column()) && !cols.containsKey(e.newColumn())) {
                db().renameColumn(connection, table, e.column(), e.newColumn());
                state =
                        state.withColumnChange(
                                TableState.ColumnChange.renamed(
                                        e.position(), e.column(), e.newColumn()));
                // the schema the table followed names the column as it was: fitted from now on
                followedInTransaction.remove(table);
                LOG.info(
                        "Renamed column {} of warehouse table {} to {}, as the source did",
                        e.column(),
                        table,
                        e.newColumn());
            }
            TableState next = state.followingSchemaAt(e.position());
            forget(table);
            saveState(table, next);
            return;
        }
        if (state.movedAtOrAfter(e.position())) {
            return; // applied already
        }
        boolean exists = tableExists(table);
        if (e.kind() == TableEvent.Kind.RENAME) {
            TableName to = TableName.of(e.newName());
            TableState theirs = state(to);
            if (exists) {
                if (tableExists(to)) {
                    keepAside(to, e.position(), "replaced by a table renamed to its name");
                    theirs = state(to);
                }
                db().renameTable(connection, table, to);
                LOG.info("Renamed warehouse table {} to {}, as the source did", table, to);
                forget(to);
                saveState(to, state.under(theirs.moves()));
            }
            forget(table);
            saveState(table, state.movedTo(e.position(), to.toString()));
        } else {
            String aside = exists ? keepAside(table, e.position(), "dropped at the source") : null;
            if (aside == null) {
                forget(table);
                saveState(table, state.movedTo(e.position(), null));
            }
        }
    }

    /**
     * A column added, or retyped, at the source while no row of its table changed (the next change
     * would have brought it): the warehouse follows at the DDL's position. An added column's rows
     * hold its default; one whose default the warehouse cannot be given (volatile, or of a kind it
     * cannot read) holds NULL, and the table is marked.
     *
     * @return the table's state, marked where it no longer follows the source
     */
    private TableState columnEvent(TableName table, TableState state, TableEvent e)
            throws SQLException {
        SourceColumnType.Detail d = SourceColumnType.detail(e.detail());
        ColumnSpec col = SourceColumnType.spec(e.column(), d);
        Map<String, String> cols = columns(table);
        String have = cols.get(col.name());
        if (e.kind() == TableEvent.Kind.ADD_COLUMN) {
            if (have != null) {
                return state;
            }
            String value = null;
            String lost = null;
            if (d.volatileDefault()) {
                lost = "its DEFAULT is volatile: each row had a value of its own";
            } else {
                try {
                    value = SourceColumnType.staged(col, d.defaultText());
                } catch (IllegalArgumentException unreadable) {
                    lost = unreadable.getMessage();
                }
            }
            db().addColumn(connection, table, col, value);
            if (value != null) {
                state =
                        state.withColumnChange(
                                TableState.ColumnChange.added(e.position(), col, value));
            }
            LOG.info("Added column {} to warehouse table {}, as the source did", col.name(), table);
            if (lost != null) {
                String why =
                        "column "
                                + col.name()
                                + " added at "
                                + e.position()
                                + " holds NULL in rows not written since ("
                                + lost
                                + ")";
                LOG.warn("Warehouse table {}: {}", table, why);
                return state.diverging(
                        state.diverged() == null ? why : state.diverged() + "; " + why);
            }
            return state;
        }
        String wanted = dialect.sqlType(ColumnKind.of(col), col);
        if (have != null && !dialect.sameType(have, wanted)) {
            String aside = db().changeColumnType(connection, table, col, have);
            state =
                    state.withColumnChange(
                            TableState.ColumnChange.retyped(
                                    e.position(), col.name(), d.dropsPadding()));
            LOG.info(
                    "Column {} of warehouse table {} changed type to {}, as the source did{}",
                    col.name(),
                    table,
                    wanted,
                    aside == null ? "" : " (old values kept in " + aside + ")");
        }
        if (have != null && d.dropsPadding()) {
            trimPadding(table, e, d);
            // recorded also where the warehouse's type stays (both text to it): a change made
            // before, written later, is read without the padding
            state =
                    state.withColumnChange(
                            TableState.ColumnChange.retyped(e.position(), col.name(), true));
        }
        return state;
    }

    /** Drops the padding of a {@code char(n)} column's values from before its type change. */
    private void trimPadding(TableName table, TableEvent e, SourceColumnType.Detail d)
            throws SQLException {
        if (!d.dropsPadding() || !columns(table).containsKey(e.column())) {
            return;
        }
        long n = db().trimTrailingSpaces(connection, table, e.column(), e.position());
        LOG.info(
                "Column {} of warehouse table {} lost char(n)'s padding in {} rows, as the"
                        + " source's cast did",
                e.column(),
                table,
                n);
    }

    /**
     * Renames a table to {@code <name>__dropped_<position>}, notes why in its state, and records in
     * the name's state that its table went there.
     *
     * @return the name it is kept under
     */
    private String keepAside(TableName table, String position, String why) throws SQLException {
        String suffix = "__dropped_" + position.replaceAll("[^0-9A-Za-z]+", "");
        String base = table.table();
        if (base.length() + suffix.length() > 63) {
            base = base.substring(0, Math.max(1, 63 - suffix.length()));
        }
        TableName aside = new TableName(table.schema(), base + suffix);
        if (tableExists(aside)) {
            // kept aside at this position already (a state lost with a rolled-back cache): the
            // table under the name is a newer one, kept aside too, under a name of its own
            aside =
                    new TableName(
                            aside.schema(),
                            aside.table() + "_" + Long.toHexString(System.nanoTime()));
        }
        TableState state = state(table);
        db().renameTable(connection, table, aside);
        forget(aside);
        saveState(
                aside,
                state.under(List.of()).diverging(why + " at " + position + ": kept as it was"));
        forget(table);
        saveState(table, state.movedTo(position, aside.toString()));
        LOG.info("Warehouse table {} {}: kept as {}", table, why, aside);
        return aside.toString();
    }

    /** Saves a name's state in the open transaction and keeps it as the cached one. */
    private void saveState(TableName table, TableState state) throws SQLException {
        db().saveTableState(connection, table, state);
        tableStates.put(table, state);
    }

    /** The warehouse table's columns, read once per transaction. */
    private Map<String, String> columns(TableName table) throws SQLException {
        Map<String, String> cols = knownColumns.get(table);
        if (cols == null) {
            cols = db().existingColumns(connection, table);
            if (!cols.isEmpty()) {
                knownColumns.put(table, cols);
            }
        }
        return cols;
    }

    private void forget(TableName table) {
        written.remove(table);
        writing.remove(table);
        knownColumns.remove(table);
        knownKeys.remove(table);
        tableStates.remove(table);
    }

    private long applySegment(TableName table, List<IntervalRecord> records) throws SQLException {
        if (records.isEmpty()) {
            return 0;
        }
        TableState loaded = state(table);
        TableState state = loaded;
        String emptyAt = null;
        List<NetChange> changes = new ArrayList<>(records.size());
        for (IntervalRecord r : records) {
            if (r instanceof NetChange c) {
                changes.add(c);
            } else if (r instanceof TableEvent e) {
                if (e.kind() == TableEvent.Kind.ROW_TOO_LARGE) {
                    String why =
                            "a row over max.row.bytes was left out (key "
                                    + e.column()
                                    + ", "
                                    + e.newColumn()
                                    + " bytes, at "
                                    + e.position()
                                    + ")";
                    if (state.diverged() == null) {
                        state = state.diverging(why);
                    } else if (!state.diverged().contains(e.position())) {
                        state = state.diverging(state.diverged() + "; " + why);
                    }
                    rowsTooLarge++;
                    LOG.warn("Warehouse table {} no longer equals the source: {}", table, why);
                    continue;
                }
                if (e.kind() == TableEvent.Kind.TRUNCATE && skipTruncates) {
                    if (state.diverged() == null) {
                        state =
                                state.diverging(
                                        "TRUNCATE at "
                                                + e.position()
                                                + " not applied (sink.truncate=skip)");
                        LOG.warn("TRUNCATE of {} not applied: sink.truncate=skip", table);
                    }
                    continue;
                }
                if (emptyAt == null || e.position().compareTo(emptyAt) > 0) {
                    emptyAt = e.position();
                }
            }
        }
        long written = 0;
        // the table's shape first: DuckDB cannot add a column to a table it deleted rows of in
        // the same transaction
        boolean emptying = emptyAt != null && !state.staleAfterEmptying(emptyAt);
        String emptied = emptying ? emptyAt : state.emptiedAt();
        if (state.diverged() != null) {
            // after a TRUNCATE left unapplied the warehouse may still hold a row the source
            // inserts again: every insert replaces
            changes.replaceAll(
                    c ->
                            c.op() == NetOperation.INSERT
                                    ? BatchFolder.withOp(c, NetOperation.UPDATE)
                                    : c);
        }
        if (emptied != null) {
            changes.removeIf(c -> c.position().compareTo(emptied) <= 0);
        }
        // replays are told by what committed before this transaction: an interval written in
        // parts (ahead, then the rest) brings changes older than some it wrote already, and
        // those are not replays
        if (!keylessThroughAtStart.containsKey(table)) {
            keylessThroughAtStart.put(table, loaded.keylessThrough());
        }
        String keylessBefore = keylessThroughAtStart.get(table);
        if (keylessBefore != null) {
            // a change made while the table had a key, at or before the last change applied
            // without one, was applied before it: this is a replay (the row it wrote may be gone
            // by a keyless delete, which leaves no tombstone to refuse it)
            changes.removeIf(c -> !c.keyless() && c.position().compareTo(keylessBefore) <= 0);
        }
        boolean anyKeyless = false;
        boolean anyKeyed = false;
        for (NetChange c : changes) {
            anyKeyless |= c.keyless();
            anyKeyed |= !c.keyless();
        }
        if (anyKeyless && anyKeyed) {
            // the table gained or lost its key in this batch: apply in source order, run by run
            changes.sort(Comparator.comparing(NetChange::position));
        }
        // the table follows the newest schema among the changes, unless it follows a newer one
        // already (the changes are a replay): an older change never alters it back
        NetChange newest = null;
        for (NetChange c : changes) {
            if (newest == null || c.position().compareTo(newest.position()) > 0) {
                newest = c;
            }
        }
        Map<String, ColumnSpec> following = null;
        long followedSchema = 0;
        List<ColumnSpec> keyAfterwards = null;
        if (newest != null && (!state.schemaAtOrAfter(newest.position()) || !tableExists(table))) {
            if (anyKeyless && !newest.keyless()) {
                // the table gained its key in this batch: the changes made before, without one,
                // are applied first (a row they insert and a later one deletes may share a key)
                keyAfterwards = newest.columns();
                ensureTable(table, newest.columns().stream().map(c -> c.withKey(false)).toList());
            } else {
                ensureTable(table, newest.columns());
            }
            state = state.followingSchemaAt(newest.position());
            following = new LinkedHashMap<>();
            for (ColumnSpec c : newest.columns()) {
                following.put(c.name(), c);
            }
            followedSchema = newest.schema().id();
            followedInTransaction.put(table, new Followed(following, followedSchema));
        } else if (followedInTransaction.containsKey(table)) {
            // the open transaction made the table follow a newer schema a write ago (a committer
            // writing a large transaction a chunk at a time): older changes are cast to it
            Followed f = followedInTransaction.get(table);
            following = f.columns();
            followedSchema = f.schemaId();
        }
        if (emptying) {
            if (tableExists(table)) {
                long started = System.nanoTime();
                long removed = db().emptyBefore(connection, table, emptyAt);
                written += removed;
                LOG.info(
                        "Removed {} rows of {} written before {} in {} ms",
                        removed,
                        table,
                        emptyAt,
                        (System.nanoTime() - started) / 1_000_000);
            }
            state = state.emptied(emptyAt);
            tablesEmptied++;
        }
        int i = 0;
        while (i < changes.size()) {
            boolean keyless = changes.get(i).keyless();
            int j = i;
            while (j < changes.size() && changes.get(j).keyless() == keyless) {
                j++;
            }
            List<NetChange> run = changes.subList(i, j);
            if (keyless) {
                String through = applyKeyless(table, run, keylessBefore, following, followedSchema);
                if (through != null) {
                    written += keylessWritten;
                    String was = state.keylessThrough();
                    if (was == null || through.compareTo(was) > 0) {
                        state = state.keylessAppliedThrough(through);
                    }
                }
            } else {
                applyKeyed(table, run, following, followedSchema);
            }
            i = j;
        }
        if (keyAfterwards != null) {
            ensureTable(table, keyAfterwards);
        }
        if (!state.equals(loaded)) {
            saveState(table, state);
        }
        return written;
    }

    /**
     * Each table's last keyless change applied, as the warehouse held it when the open transaction
     * began (null values included).
     */
    private final Map<TableName, String> keylessThroughAtStart = new HashMap<>();

    /** The columns a table follows, by name, and their schema's id. */
    private record Followed(Map<String, ColumnSpec> columns, long schemaId) {}

    /** Tables the open transaction made follow a newer schema. */
    private final Map<TableName, Followed> followedInTransaction = new HashMap<>();

    /**
     * How changes made under {@code columns} (schema {@code schemaId}) are written: as they are
     * when the table follows that schema, else fitted into the columns the table has ({@link
     * ColumnPlan#fitting}).
     */
    private ColumnPlan plan(
            TableName table,
            List<ColumnSpec> columns,
            long schemaId,
            String latest,
            Map<String, ColumnSpec> following,
            long followedSchema)
            throws SQLException {
        if (following != null && schemaId == followedSchema) {
            return ColumnPlan.asTheyAre(
                    ExistingColumns.fit(columns, knownColumns.get(table), dialect));
        }
        Map<String, Map.Entry<ColumnSpec, String>> after = new HashMap<>();
        Map<String, RenamedColumn> renames = new HashMap<>();
        Map<String, Boolean> retyped = new HashMap<>();
        for (TableState.ColumnChange cc : state(table).columnChanges()) {
            if (cc.renamedTo() != null) {
                renames.put(cc.column(), new RenamedColumn(cc.renamedTo(), cc.position()));
            } else if (latest.compareTo(cc.position()) >= 0) {
                continue;
            } else if (cc.added() != null) {
                after.put(cc.column(), Map.entry(cc.added(), cc.value()));
            } else {
                retyped.merge(cc.column(), cc.unpadded(), Boolean::logicalOr);
            }
        }
        Map<String, String> renamed = new HashMap<>();
        for (ColumnSpec c : columns) {
            String name = c.name();
            RenamedColumn r = renames.get(name);
            // a column renamed again since: its newest name (each rename is later than the last)
            for (int hops = 0;
                    r != null && latest.compareTo(r.position()) < 0 && hops < 64;
                    hops++) {
                name = r.newName();
                r = renames.get(name);
            }
            if (!name.equals(c.name())) {
                renamed.put(c.name(), name);
            }
        }
        return ColumnPlan.fitting(
                columns, columns(table), following, after, renamed, retyped, dialect);
    }

    /** A column's new name, and the position of its rename. */
    private record RenamedColumn(String newName, String position) {}

    /**
     * Columns of the warehouse table the changes' schema does not have (dropped, or kept aside
     * after a type change): NULL in the rows written from now on. A column the schema has but the
     * plan leaves out (a replay's value of another type) is left alone.
     */
    private List<String> warehouseOnly(
            TableName table, List<ColumnSpec> staged, List<ColumnSpec> schema) {
        Map<String, String> existing = knownColumns.get(table);
        if (existing == null || existing.size() <= staged.size() + 2) {
            return List.of();
        }
        Set<String> names = new HashSet<>();
        staged.forEach(c -> names.add(c.name()));
        schema.forEach(c -> names.add(c.name()));
        List<String> out = new ArrayList<>();
        for (String col : existing.keySet()) {
            if (!names.contains(col) && !col.equals("_cdc_lsn") && !col.equals("_cdc_commit_ms")) {
                out.add(col);
            }
        }
        return out;
    }

    private TableState state(TableName table) throws SQLException {
        TableState s = tableStates.get(table);
        if (s == null) {
            s = db().loadTableState(connection, table);
            tableStates.put(table, s);
        }
        return s;
    }

    private boolean tableExists(TableName table) throws SQLException {
        Map<String, String> cols = knownColumns.get(table);
        return cols != null || !db().existingColumns(connection, table).isEmpty();
    }

    /** Rows written by the last {@link #applyKeyless}. */
    private long keylessWritten;

    /**
     * Applies changes of a table without a key one by one, in source order, skipping those at or
     * before {@code through} (applied already: a replay).
     *
     * @return the position of the last change applied, or null when all were replays
     */
    private String applyKeyless(
            TableName table,
            List<NetChange> run,
            String through,
            Map<String, ColumnSpec> following,
            long followedSchema)
            throws SQLException {
        List<NetChange> todo = new ArrayList<>(run);
        todo.sort(Comparator.comparing(NetChange::position));
        String last = through;
        keylessWritten = 0;
        int from = 0;
        List<NetChange> group = new ArrayList<>();
        while (from < todo.size()) {
            group.clear();
            long schemaId = todo.get(from).schema().id();
            int to = from;
            while (to < todo.size() && todo.get(to).schema().id() == schemaId) {
                NetChange c = todo.get(to++);
                if (last == null || c.position().compareTo(last) > 0) {
                    group.add(c);
                    last = c.position();
                }
            }
            from = to;
            if (group.isEmpty()) {
                continue;
            }
            ColumnPlan plan =
                    plan(
                            table,
                            group.get(0).columns(),
                            schemaId,
                            group.get(group.size() - 1).position(),
                            following,
                            followedSchema);
            List<ColumnSpec> columns = plan.targets();
            if (columns.isEmpty()) {
                continue;
            }
            List<KeylessRow> rows = new ArrayList<>(group.size());
            for (NetChange c : group) {
                rows.add(
                        new KeylessRow(
                                c.op(),
                                c.position(),
                                c.commitMs(),
                                c.before() == null ? null : plan.values(c.before()),
                                c.after() == null ? null : plan.values(c.after())));
            }
            WarehouseDialect.KeylessOutcome out =
                    db().applyKeyless(connection, table, columns, rows);
            folded.merge(table.toString(), (long) rows.size(), Long::sum);
            keylessWritten += out.rowsWritten();
            if (out.unmatched() > 0) {
                keylessUnmatched += out.unmatched();
                NetChange first = group.get(Math.max(0, out.firstUnmatched()));
                String image = String.valueOf(first.before());
                LOG.warn(
                        "{} change(s) of {} (no key) found no warehouse row equal to their old"
                                + " image; the warehouse table differs from the source (the first"
                                + " at {}: {})",
                        out.unmatched(),
                        table,
                        first.position(),
                        image.length() > 500 ? image.substring(0, 500) + "..." : image);
            }
        }
        return last == null || last.equals(through) ? null : last;
    }

    /**
     * Merges staged by {@link #applyKeyed} and not yet run: they run together ({@link
     * WarehouseDialect#mergeAll}) at the end of {@link #write}, or before any other statement.
     */
    private final List<WarehouseDialect.MergeRequest> pendingMerges = new ArrayList<>();

    /** Rows the merges run so far wrote. */
    private long mergedRows;

    private void runMerges() throws SQLException {
        if (!pendingMerges.isEmpty()) {
            List<WarehouseDialect.MergeRequest> merges = List.copyOf(pendingMerges);
            pendingMerges.clear();
            mergedRows += dialect.mergeAll(connection, merges);
        }
    }

    /**
     * The dialect, for a statement on the writer's connection: the merges waiting run first, so
     * that statements run in the order the changes need.
     */
    private WarehouseDialect db() throws SQLException {
        runMerges();
        return dialect;
    }

    /** Queues the table's keyed changes for {@link #runMerges}; rows are counted when they run. */
    private void applyKeyed(
            TableName table,
            List<NetChange> changes,
            Map<String, ColumnSpec> following,
            long followedSchema)
            throws SQLException {
        for (List<NetChange> generation : BatchFolder.generations(changes)) {
            folded.merge(table.toString(), (long) generation.size(), Long::sum);
            Map<Long, List<NetChange>> bySchema = new LinkedHashMap<>();
            for (NetChange c : generation) {
                bySchema.computeIfAbsent(c.schema().id(), k -> new ArrayList<>()).add(c);
            }
            for (var e : bySchema.entrySet()) {
                List<NetChange> group = e.getValue();
                List<ColumnSpec> schema = group.get(0).columns();
                String latest = group.get(0).position();
                for (NetChange c : group) {
                    if (c.position().compareTo(latest) > 0) {
                        latest = c.position();
                    }
                }
                ColumnPlan plan =
                        plan(table, schema, e.getKey(), latest, following, followedSchema);
                List<ColumnSpec> columns = plan.targets();
                long keys = schema.stream().filter(ColumnSpec::key).count();
                if (columns.stream().filter(ColumnSpec::key).count() < keys || keys == 0) {
                    LOG.warn(
                            "{} change(s) of {} name key columns the warehouse table no longer"
                                    + " has: left out",
                            group.size(),
                            table);
                    continue;
                }
                List<StagedRow> rows = new ArrayList<>(group.size());
                String oldest = null;
                String newest = null;
                for (NetChange c : group) {
                    StagedRow row = stage(c, plan);
                    rows.add(row);
                    if (oldest == null || row.position().compareTo(oldest) < 0) {
                        oldest = row.position();
                    }
                    if (newest == null || row.position().compareTo(newest) > 0) {
                        newest = row.position();
                    }
                }
                boolean newer = false;
                if (dialect.mergesFasterWhenNewer()) {
                    String through = writtenThrough(table);
                    newer = through == null || oldest.compareTo(through) > 0;
                    writing.put(
                            table,
                            through == null || newest.compareTo(through) > 0 ? newest : through);
                }
                pendingMerges.add(
                        new WarehouseDialect.MergeRequest(
                                table,
                                columns,
                                warehouseOnly(table, columns, schema),
                                rows,
                                newer));
            }
        }
    }

    /** Separates the names in {@link StagedRow#unchanged()}: a character no column name holds. */
    static final char UNCHANGED_SEPARATOR = '\u001f';

    private static StagedRow stage(NetChange c, ColumnPlan plan) {
        List<ColumnSpec> columns = plan.targets();
        String[] values = new String[columns.size()];
        boolean delete = c.op() == NetOperation.DELETE;
        for (int i = 0; i < values.length; i++) {
            ColumnSpec col = columns.get(i);
            if (delete || c.after() == null) {
                values[i] = col.key() ? plan.keyValue(i, c.key()) : null;
                continue;
            }
            if (!plan.constant(i) && c.unchanged().contains(col.name())) {
                // the source did not send it; the warehouse row has it
                continue;
            }
            values[i] = plan.value(i, c.after());
        }
        StringBuilder unchanged = new StringBuilder().append(UNCHANGED_SEPARATOR);
        for (String u : c.unchanged()) {
            unchanged.append(u).append(UNCHANGED_SEPARATOR);
        }
        return new StagedRow(
                delete,
                BatchFolder.absentBefore(c),
                c.lastPosition(),
                c.commitMs(),
                c.key().toString(),
                unchanged.toString(),
                values);
    }

    private void ensureTable(TableName table, List<ColumnSpec> columns) throws SQLException {
        Map<String, String> existing = knownColumns.get(table);
        if (existing == null) {
            existing = db().existingColumns(connection, table);
            if (existing.isEmpty()) {
                db().createTable(connection, table, columns);
                LOG.info("Created warehouse table {}", table);
                existing = db().existingColumns(connection, table);
            }
            knownColumns.put(table, existing);
        }
        for (ColumnSpec col : columns) {
            String wanted = dialect.sqlType(ColumnKind.of(col), col);
            String have = existing.get(col.name());
            if (have == null) {
                db().addColumn(connection, table, col);
                existing.put(col.name(), wanted);
                LOG.info("Added column {} to warehouse table {}", col.name(), table);
            } else if (!dialect.sameType(have, wanted)
                    && !ExistingColumns.earlierMapping(col, have, dialect)) {
                // the source column changed type (a column an earlier mapping made is written
                // the way it was, instead)
                String aside = db().changeColumnType(connection, table, col, have);
                existing.put(col.name(), wanted);
                if (aside == null) {
                    LOG.info(
                            "Column {} of warehouse table {} changed type: {} to {}",
                            col.name(),
                            table,
                            have,
                            wanted);
                } else {
                    existing.put(aside, have);
                    LOG.warn(
                            "Column {} of warehouse table {} changed type from {} to {}, and not"
                                    + " every value casts: the old values are kept in column {},"
                                    + " and rows not written since hold NULL in {}",
                            col.name(),
                            table,
                            have,
                            wanted,
                            aside,
                            col.name());
                }
            }
        }
        Set<String> keys = new HashSet<>();
        for (ColumnSpec col : columns) {
            if (col.key()) {
                keys.add(col.name());
            }
        }
        if (!keys.equals(knownKeys.get(table))) {
            db().keyChanged(connection, table, columns);
            knownKeys.put(table, keys);
        }
    }

    /**
     * Whether sinks that share a topic's partitions can make each closed interval visible in one
     * transaction here ({@link StagingArea}): PostgreSQL. A DuckDB file admits one process.
     */
    public boolean admitsSharedCommits() {
        return dialect instanceof PostgresWarehouseDialect;
    }

    /**
     * The staging area of {@code topic} on this writer's connection: a change taken from it and
     * applied by {@link #write} commits with {@link #commit}.
     *
     * @throws IllegalStateException when this warehouse has none ({@link #admitsSharedCommits})
     */
    public StagingArea stagingArea(String topic) {
        if (!admitsSharedCommits()) {
            throw new IllegalStateException(dialect.name() + " warehouses take one sink");
        }
        return new StagingArea(connection, topic);
    }

    /**
     * A second connection for reading while the writer keeps writing (same DuckDB instance; the
     * file admits one process only).
     */
    public Connection openReader() throws SQLException {
        if (connection.isWrapperFor(DuckDBConnection.class)) {
            Connection c = connection.unwrap(DuckDBConnection.class).duplicate();
            c.setAutoCommit(true);
            return c;
        }
        return user == null
                ? DriverManager.getConnection(url)
                : DriverManager.getConnection(url, user, password);
    }

    /**
     * Runs one read-only statement on a reader connection while the writer keeps writing.
     *
     * @throws ReadOnlyQuery.RefusedException when the statement would write
     */
    public ReadOnlyQuery.Result query(String sql, int maxRows, Duration timeout)
            throws SQLException {
        Connection reader;
        if (connection.isWrapperFor(DuckDBConnection.class) || queryUser == null) {
            reader = openReader();
        } else {
            reader = DriverManager.getConnection(url, queryUser, queryPassword);
        }
        return ReadOnlyQuery.run(dialect, reader, sql, maxRows, timeout);
    }

    private String queryUser;
    private String queryPassword;

    /**
     * The role {@link #query} connects as (a PostgreSQL warehouse); null for the writer's own,
     * which reads in read-only transactions.
     */
    public WarehouseWriter queryAs(String user, String password) {
        this.queryUser = user;
        this.queryPassword = password;
        return this;
    }

    @Override
    public void close() throws SQLException {
        upkeep.close();
        connection.close();
    }
}
