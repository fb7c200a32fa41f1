package dev.cdclab.change;

/**
 * A column of a captured table as the source declares it.
 *
 * @param name column name
 * @param sourceType the source database's type name, e.g. {@code INT4}, {@code NUMERIC}
 * @param key true for primary-key columns
 * @param optional true when the column is nullable
 * @param length declared length or precision, when the source reports one
 * @param scale declared scale, when the source reports one
 * @param connectType the Kafka Connect schema type of the value ({@code int32}, {@code string},
 *     ...)
 * @param semanticType the Connect schema name that says how to read the value, e.g. {@code
 *     io.debezium.time.MicroTimestamp}; null when the plain type says it all
 * @param defaultJson the column's default as the connector encodes values (JSON text, e.g. {@code
 *     7}), null when it has none Debezium can express; rows that existed before the column was
 *     added hold it
 */
public record ColumnSpec(
        String name,
        String sourceType,
        boolean key,
        boolean optional,
        Integer length,
        Integer scale,
        String connectType,
        String semanticType,
        String defaultJson) {

    /** A column without a default. */
    public ColumnSpec(
            String name,
            String sourceType,
            boolean key,
            boolean optional,
            Integer length,
            Integer scale,
            String connectType,
            String semanticType) {
        this(name, sourceType, key, optional, length, scale, connectType, semanticType, null);
    }

    /** A copy marked as (not) part of the primary key. */
    public ColumnSpec withKey(boolean isKey) {
        return isKey == key
                ? this
                : new ColumnSpec(
                        name,
                        sourceType,
                        isKey,
                        optional,
                        length,
                        scale,
                        connectType,
                        semanticType,
                        defaultJson);
    }
}
