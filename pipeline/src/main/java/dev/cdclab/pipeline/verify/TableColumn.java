package dev.cdclab.pipeline.verify;

import dev.cdclab.sink.warehouse.ColumnKind;

/**
 * A source column as verification reads it.
 *
 * @param name column name
 * @param kind how values are compared
 * @param key true for primary-key columns
 */
public record TableColumn(String name, ColumnKind kind, boolean key) {}
