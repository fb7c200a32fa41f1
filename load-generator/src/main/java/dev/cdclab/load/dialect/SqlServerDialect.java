package dev.cdclab.load.dialect;

import com.microsoft.sqlserver.jdbc.ISQLServerBulkRecord;
import com.microsoft.sqlserver.jdbc.SQLServerBulkCopy;
import com.microsoft.sqlserver.jdbc.SQLServerBulkCopyOptions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import microsoft.sql.DateTimeOffset;

/**
 * T-SQL: {@code NVARCHAR} text, {@code DATETIMEOFFSET} timestamps, bracket quoting, an {@code AFTER
 * INSERT} trigger over {@code inserted}, and prefill through {@link SQLServerBulkCopy}.
 */
public final class SqlServerDialect implements SqlDialect {
    /** SQL Server's limit on parameters in one statement is 2,100; one is kept spare. */
    private static final int MAX_PARAMETERS = 2099;

    /** Deadlock victim, lock request time-out, cannot obtain a lock resource, snapshot conflict. */
    private static final Set<Integer> RETRYABLE = Set.of(1205, 1222, 1204, 3960);

    @Override
    public String name() {
        return "sqlserver";
    }

    @Override
    public boolean isRetryable(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && RETRYABLE.contains(s.getErrorCode())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public int maxRowsPerInsert(int columns) {
        return Math.max(1, Math.min(1000, MAX_PARAMETERS / Math.max(1, columns)));
    }

    @Override
    public String bigint() {
        return "BIGINT";
    }

    @Override
    public String integer() {
        return "INT";
    }

    @Override
    public String varchar(int n) {
        return "NVARCHAR(" + n + ")";
    }

    @Override
    public String text() {
        return "NVARCHAR(MAX)";
    }

    @Override
    public String decimal(int precision, int scale) {
        return "DECIMAL(" + precision + "," + scale + ")";
    }

    @Override
    public String timestamptz() {
        return "DATETIMEOFFSET(6)";
    }

    @Override
    public String float8() {
        return "FLOAT";
    }

    @Override
    public String quote(String identifier) {
        return "[" + identifier.replace("]", "]]") + "]";
    }

    @Override
    public String dropTable(String table) {
        // a table's triggers go with it
        return "DROP TABLE IF EXISTS " + table;
    }

    @Override
    public List<String> updateOnInsertTrigger(
            String table, String keyColumn, String column, String value) {
        String name = table.replace('.', '_') + "_fill_" + column;
        return List.of(
                "CREATE OR ALTER TRIGGER "
                        + name
                        + " ON "
                        + table
                        + " AFTER INSERT AS BEGIN SET NOCOUNT ON; UPDATE t SET "
                        + column
                        + " = "
                        + value
                        + " FROM "
                        + table
                        + " t JOIN inserted i ON t."
                        + keyColumn
                        + " = i."
                        + keyColumn
                        + " WHERE i."
                        + column
                        + " IS NULL; END");
    }

    @Override
    public long bulkLoad(Connection c, String table, List<String> columns, Iterable<Object[]> rows)
            throws SQLException {
        Rows source = new Rows(c, table, columns, rows.iterator());
        SQLServerBulkCopyOptions options = new SQLServerBulkCopyOptions();
        options.setBatchSize(10_000);
        options.setBulkCopyTimeout(0);
        options.setTableLock(true);
        try (SQLServerBulkCopy copy = new SQLServerBulkCopy(c)) {
            copy.setBulkCopyOptions(options);
            copy.setDestinationTableName(table);
            for (String col : columns) {
                copy.addColumnMapping(col, col);
            }
            copy.writeToServer(source);
        }
        return source.count;
    }

    /** Generated rows as a bulk-copy source, typed from the destination table's own columns. */
    private static final class Rows implements ISQLServerBulkRecord {
        private static final long serialVersionUID = 1L;

        private final List<String> names;
        private final int[] types;
        private final int[] precision;
        private final int[] scale;
        private final transient Iterator<Object[]> rows;
        private Object[] current;
        long count;

        Rows(Connection c, String table, List<String> columns, Iterator<Object[]> rows)
                throws SQLException {
            this.names = List.copyOf(columns);
            this.rows = rows;
            this.types = new int[columns.size()];
            this.precision = new int[columns.size()];
            this.scale = new int[columns.size()];
            String select =
                    "SELECT "
                            + columns.stream().collect(Collectors.joining(", "))
                            + " FROM "
                            + table
                            + " WHERE 1 = 0";
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(select)) {
                ResultSetMetaData md = rs.getMetaData();
                for (int i = 0; i < columns.size(); i++) {
                    types[i] = md.getColumnType(i + 1);
                    precision[i] = md.getPrecision(i + 1);
                    scale[i] = md.getScale(i + 1);
                }
            }
        }

        @Override
        public Set<Integer> getColumnOrdinals() {
            Set<Integer> s = new LinkedHashSet<>();
            for (int i = 1; i <= names.size(); i++) {
                s.add(i);
            }
            return s;
        }

        @Override
        public String getColumnName(int column) {
            return names.get(column - 1);
        }

        @Override
        public int getColumnType(int column) {
            return types[column - 1];
        }

        @Override
        public int getPrecision(int column) {
            return precision[column - 1];
        }

        @Override
        public int getScale(int column) {
            return scale[column - 1];
        }

        @Override
        public boolean isAutoIncrement(int column) {
            return false;
        }

        @Override
        public Object[] getRowData() {
            Object[] out = current.clone();
            for (int i = 0; i < out.length; i++) {
                if (out[i] instanceof OffsetDateTime t) {
                    out[i] = DateTimeOffset.valueOf(t);
                }
            }
            return out;
        }

        @Override
        public boolean next() {
            if (!rows.hasNext()) {
                return false;
            }
            current = rows.next();
            count++;
            return true;
        }

        @Override
        public void addColumnMetadata(
                int column,
                String name,
                int jdbcType,
                int precision,
                int scale,
                DateTimeFormatter formatter) {
            throw new UnsupportedOperationException("columns come from the destination table");
        }

        @Override
        public void addColumnMetadata(
                int column, String name, int jdbcType, int precision, int scale) {
            throw new UnsupportedOperationException("columns come from the destination table");
        }

        @Override
        public void setTimestampWithTimezoneFormat(String format) {}

        @Override
        public void setTimestampWithTimezoneFormat(DateTimeFormatter formatter) {}

        @Override
        public void setTimeWithTimezoneFormat(String format) {}

        @Override
        public void setTimeWithTimezoneFormat(DateTimeFormatter formatter) {}

        @Override
        public DateTimeFormatter getColumnDateTimeFormatter(int column) {
            return null;
        }
    }
}
