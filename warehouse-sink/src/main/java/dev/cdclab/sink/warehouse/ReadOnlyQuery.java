package dev.cdclab.sink.warehouse;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One read-only SQL statement against the warehouse while the sink writes it, on a connection of
 * its own: each dialect makes the transaction unable to write (or refuses the statement), and it is
 * rolled back whatever happened.
 */
public final class ReadOnlyQuery {
    private ReadOnlyQuery() {}

    /** The statement would write, or is more than one statement. */
    public static final class RefusedException extends SQLException {
        private static final long serialVersionUID = 1L;

        public RefusedException(String message) {
            super(message);
        }
    }

    /**
     * A query's answer: its column names and at most {@code maxRows} rows, each value as JDBC
     * returned it.
     *
     * @param truncated true when the query had more rows than were kept
     */
    public record Result(List<String> columns, List<List<Object>> rows, boolean truncated) {}

    /** Runs {@code sql} on {@code reader} (which it closes) with {@code dialect}'s guard. */
    static Result run(
            WarehouseDialect dialect, Connection reader, String sql, int maxRows, Duration timeout)
            throws SQLException {
        try (Connection c = reader) {
            dialect.beginReadOnly(c, sql);
            try (Statement s = c.createStatement()) {
                try {
                    s.setQueryTimeout((int) Math.max(1, timeout.toSeconds()));
                } catch (SQLFeatureNotSupportedException e) {
                    // the warehouse cannot bound it; the query runs to its end
                }
                s.setMaxRows(maxRows + 1);
                try (ResultSet rs = s.executeQuery(sql)) {
                    ResultSetMetaData md = rs.getMetaData();
                    List<String> columns = new ArrayList<>();
                    for (int i = 1; i <= md.getColumnCount(); i++) {
                        columns.add(md.getColumnLabel(i));
                    }
                    List<List<Object>> rows = new ArrayList<>();
                    boolean truncated = false;
                    while (rs.next()) {
                        if (rows.size() == maxRows) {
                            truncated = true;
                            break;
                        }
                        List<Object> row = new ArrayList<>(columns.size());
                        for (int i = 1; i <= columns.size(); i++) {
                            row.add(rs.getObject(i));
                        }
                        rows.add(row);
                    }
                    return new Result(columns, rows, truncated);
                }
            } finally {
                if (!c.getAutoCommit()) {
                    c.rollback();
                }
            }
        }
    }
}
