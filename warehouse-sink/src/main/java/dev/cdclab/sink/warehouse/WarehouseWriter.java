package dev.cdclab.sink.warehouse;

import dev.cdclab.change.ColumnSpec;
import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetOperation;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
    private final Map<TableName, Map<String, String>> knownColumns = new HashMap<>();

    /**
     * Opens the warehouse.
     *
     * @throws SQLException when it cannot be opened (for DuckDB: another process holds the file)
     */
    public WarehouseWriter(String url, String user, String password) throws SQLException {
        this.url = url;
        this.user = user;
        this.password = password;
        this.dialect = WarehouseDialect.forUrl(url);
        Connection c = dialect.connect(url, user, password);
        try {
            dialect.createMetadataTables(c);
            c.commit();
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

    /** Outcome of one applied batch. */
    public record Applied(long rowsWritten, long committedAtMs) {}

    /**
     * Applies the batch and records {@code appliedThroughMs} in one transaction.
     *
     * @throws SQLException after rolling back
     */
    public Applied apply(List<NetChange> batch, long appliedThroughMs) throws SQLException {
        long written = write(batch);
        return new Applied(written, commit(appliedThroughMs));
    }

    /**
     * Writes the batch into the open transaction (opening one if none is), without committing: a
     * big interval is written in several batches, then committed once.
     *
     * @return rows written
     * @throws SQLException after rolling the open transaction back
     */
    public long write(List<NetChange> batch) throws SQLException {
        long written = 0;
        try {
            for (List<NetChange> generation : BatchFolder.generations(batch)) {
                Map<String, List<NetChange>> byTable = new LinkedHashMap<>();
                for (NetChange c : generation) {
                    byTable.computeIfAbsent(c.table(), t -> new ArrayList<>()).add(c);
                }
                for (Map.Entry<String, List<NetChange>> e : byTable.entrySet()) {
                    written += applyTable(TableName.of(e.getKey()), e.getValue());
                }
            }
        } catch (SQLException | RuntimeException e) {
            rollbackAfter(e);
            throw e;
        }
        return written;
    }

    /**
     * Records {@code appliedThroughMs} and commits the open transaction.
     *
     * @return the commit time
     * @throws SQLException after rolling back
     */
    public long commit(long appliedThroughMs) throws SQLException {
        try {
            dialect.saveProgress(connection, appliedThroughMs, System.currentTimeMillis());
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            rollbackAfter(e);
            throw e;
        }
        return System.currentTimeMillis();
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
    public List<Refused> refused(List<NetChange> batch) throws SQLException {
        if (!connection.isValid(5)) {
            return List.of();
        }
        List<Refused> out = new ArrayList<>();
        bisect(batch, out);
        return out;
    }

    private void bisect(List<NetChange> part, List<Refused> out) throws SQLException {
        if (part.isEmpty()) {
            return;
        }
        try {
            write(part);
            rollback();
        } catch (SQLException | RuntimeException e) {
            if (!connection.isValid(5)) {
                throw e instanceof SQLException se ? se : new SQLException(e);
            }
            if (part.size() == 1) {
                out.add(new Refused(part.get(0), firstLine(e.getMessage())));
                return;
            }
            int half = part.size() / 2;
            bisect(part.subList(0, half), out);
            bisect(part.subList(half, part.size()), out);
        }
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "refused by the warehouse";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }

    /** Rolls the open transaction back: nothing written since the last commit stays. */
    public void rollback() throws SQLException {
        // DDL of the rolled-back transaction is gone too
        knownColumns.clear();
        dialect.rolledBack();
        connection.rollback();
    }

    private void rollbackAfter(Exception e) {
        try {
            connection.rollback();
        } catch (SQLException re) {
            e.addSuppressed(re);
        }
        // a failed statement may leave DDL caches stale
        knownColumns.clear();
        dialect.rolledBack();
    }

    private long applyTable(TableName table, List<NetChange> changes) throws SQLException {
        Map<Long, List<NetChange>> bySchema = new LinkedHashMap<>();
        for (NetChange c : changes) {
            bySchema.computeIfAbsent(c.schema().id(), k -> new ArrayList<>()).add(c);
        }
        long written = 0;
        for (List<NetChange> group : bySchema.values()) {
            List<ColumnSpec> columns = group.get(0).columns();
            if (columns.stream().noneMatch(ColumnSpec::key)) {
                throw new SQLException("table " + table + " has no key columns; cannot merge");
            }
            ensureTable(table, columns);
            columns = ExistingColumns.fit(columns, knownColumns.get(table), dialect);
            List<StagedRow> rows = new ArrayList<>(group.size());
            for (NetChange c : group) {
                rows.add(stage(c, columns));
            }
            written += dialect.merge(connection, table, columns, rows);
        }
        return written;
    }

    private static StagedRow stage(NetChange c, List<ColumnSpec> columns) {
        String[] values = new String[columns.size()];
        boolean delete = c.op() == NetOperation.DELETE;
        for (int i = 0; i < values.length; i++) {
            ColumnSpec col = columns.get(i);
            if (!delete && c.unchanged().contains(col.name())) {
                // the source did not send it; the warehouse row has it
                continue;
            }
            var value =
                    delete || c.after() == null
                            ? c.key().get(col.name())
                            : c.after().get(col.name());
            values[i] = ValueText.of(col, ColumnKind.of(col), value);
        }
        StringBuilder unchanged = new StringBuilder("|");
        for (String u : c.unchanged()) {
            unchanged.append(u).append('|');
        }
        return new StagedRow(
                delete,
                c.lastPosition(),
                c.commitMs(),
                c.key().toString(),
                unchanged.toString(),
                values);
    }

    private void ensureTable(TableName table, List<ColumnSpec> columns) throws SQLException {
        Map<String, String> existing = knownColumns.get(table);
        if (existing == null) {
            existing = dialect.existingColumns(connection, table);
            if (existing.isEmpty()) {
                dialect.createTable(connection, table, columns);
                LOG.info("Created warehouse table {}", table);
                existing = dialect.existingColumns(connection, table);
            }
            knownColumns.put(table, existing);
        }
        for (ColumnSpec col : columns) {
            if (!existing.containsKey(col.name())) {
                dialect.addColumn(connection, table, col);
                existing.put(col.name(), dialect.sqlType(ColumnKind.of(col), col));
                LOG.info("Added column {} to warehouse table {}", col.name(), table);
            }
        }
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

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
