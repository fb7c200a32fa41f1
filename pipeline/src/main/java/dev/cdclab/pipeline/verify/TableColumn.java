package dev.cdclab.pipeline.verify;

import dev.cdclab.sink.warehouse.ColumnKind;

/**
 * A source column as verification reads it.
 *
 * @param name column name
 * @param kind how values are compared
 * @param key true for primary-key columns
 * @param sourceType the source's type name, lower case ({@code pg_type.typname}: arrays start with
 *     an underscore); values of some types are compared in a form of their own
 */
public record TableColumn(String name, ColumnKind kind, boolean key, String sourceType) {
    public TableColumn(String name, ColumnKind kind, boolean key) {
        this(name, kind, key, "");
    }
}
