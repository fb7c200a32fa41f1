package dev.cdclab.change;

import java.util.Locale;

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
 * @param elementConnectType for an array, the Connect schema type of its elements ({@code int32},
 *     {@code string}, ...); null for other columns, and for an array whose record does not carry it
 * @param elementSemanticType for an array, the Connect schema name of its elements, e.g. {@code
 *     io.debezium.time.Date}; null when the element type says it all
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
        String defaultJson,
        String elementConnectType,
        String elementSemanticType) {

    /** A column that is not an array. */
    public ColumnSpec(
            String name,
            String sourceType,
            boolean key,
            boolean optional,
            Integer length,
            Integer scale,
            String connectType,
            String semanticType,
            String defaultJson) {
        this(
                name,
                sourceType,
                key,
                optional,
                length,
                scale,
                connectType,
                semanticType,
                defaultJson,
                null,
                null);
    }

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

    /** A copy under another name (the column renamed). */
    public ColumnSpec withName(String newName) {
        return newName.equals(name)
                ? this
                : new ColumnSpec(
                        newName,
                        sourceType,
                        key,
                        optional,
                        length,
                        scale,
                        connectType,
                        semanticType,
                        defaultJson,
                        elementConnectType,
                        elementSemanticType);
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
                        defaultJson,
                        elementConnectType,
                        elementSemanticType);
    }

    /**
     * An array's element as a column of its own: the source type without the array's leading
     * underscore ({@code _DATE} gives {@code DATE}), the array's length and scale (PostgreSQL
     * declares them on the array), the element's Connect type and name. Null when this is not an
     * array or its element type is not known.
     */
    public ColumnSpec element() {
        if (elementConnectType == null) {
            return null;
        }
        String elementSource =
                sourceType != null && sourceType.startsWith("_")
                        ? sourceType.substring(1)
                        : elementConnectType.toUpperCase(Locale.ROOT);
        return new ColumnSpec(
                name,
                elementSource,
                false,
                true,
                length,
                scale,
                elementConnectType,
                elementSemanticType);
    }
}
