package dev.cdclab.initialload;

import dev.cdclab.change.ColumnSpec;
import java.util.List;

/**
 * A table as the load reads it: its name, its columns as its changes will describe them, the
 * select-list expression of each (the column's text as the change events carry it), and its size.
 *
 * @param name {@code schema.table}
 * @param quoted the quoted name, for SQL
 * @param pages the table's pages (all partitions'), to split it between readers
 * @param partitions the quoted names of its leaf partitions, empty for a plain table
 */
record SourceTable(
        String name,
        String quoted,
        List<ColumnSpec> columns,
        List<String> selects,
        long pages,
        List<String> partitions) {}
