package dev.cdclab.orchestration.verify;

import dev.cdclab.sink.warehouse.ColumnKind;

/**
 * A source column as verification reads it.
 *
 * @param name column name
 * @param kind how values are compared
 * @param key true for primary-key columns
 * @param sourceType the source's type name, lower case ({@code pg_type.typname}: arrays start with
 *     an underscore; a domain's base type); values of some types are compared in a form of their
 *     own
 * @param element for an {@link ColumnKind#ARRAY}, its elements as a column; else null
 */
public record TableColumn(
        String name, ColumnKind kind, boolean key, String sourceType, TableColumn element) {
    public TableColumn(String name, ColumnKind kind, boolean key, String sourceType) {
        this(name, kind, key, sourceType, null);
    }

    public TableColumn(String name, ColumnKind kind, boolean key) {
        this(name, kind, key, "", null);
    }
}
