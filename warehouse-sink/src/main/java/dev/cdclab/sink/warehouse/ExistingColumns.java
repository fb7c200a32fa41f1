package dev.cdclab.sink.warehouse;

import dev.cdclab.change.ColumnSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Columns of an existing warehouse table that an earlier type mapping made: arrays, JSON, money,
 * points and network types as text, bit strings as binary, intervals as microseconds. Such a column
 * keeps its type and is written as it always was, so that a table made before a mapping changed
 * goes on taking rows; a new table, or a new column, gets the current mapping.
 */
final class ExistingColumns {
    private static final Set<String> TEXT_TYPES = Set.of("VARCHAR", "TEXT", "CHARACTER VARYING");
    private static final Set<String> BINARY_TYPES = Set.of("BLOB", "BYTEA");

    private ExistingColumns() {}

    /**
     * The columns as the table holds them.
     *
     * @param existing column name to the warehouse's type name ({@code information_schema}'s {@code
     *     data_type}, or the type the sink created it with)
     */
    static List<ColumnSpec> fit(
            List<ColumnSpec> columns, Map<String, String> existing, WarehouseDialect dialect) {
        List<ColumnSpec> out = null;
        for (int i = 0; i < columns.size(); i++) {
            ColumnSpec c = columns.get(i);
            ColumnSpec fitted = fit(c, existing == null ? null : existing.get(c.name()), dialect);
            if (fitted != c) {
                if (out == null) {
                    out = new ArrayList<>(columns);
                }
                out.set(i, fitted);
            }
        }
        return out == null ? columns : out;
    }

    /**
     * True when the column's warehouse type differs only because an earlier mapping made it (the
     * kinds that mapping held as text, binary or microseconds): it is written as it was, and not
     * altered as a source column whose type changed would be.
     */
    static boolean earlierMapping(ColumnSpec c, String existingType, WarehouseDialect dialect) {
        return switch (ColumnKind.of(c)) {
            case ARRAY, JSON, MONEY, POINT, NETWORK, RANGE, XML, TSVECTOR, BITS, INTERVAL ->
                    fit(c, existingType, dialect) != c;
            default -> false;
        };
    }

    /** A column as a warehouse column of type {@code existingType} holds it. */
    static ColumnSpec fit(ColumnSpec c, String existingType, WarehouseDialect dialect) {
        if (existingType == null) {
            return c;
        }
        ColumnKind kind = ColumnKind.of(c);
        String has = existingType.toUpperCase(Locale.ROOT);
        String wanted = dialect.sqlType(kind, c).toUpperCase(Locale.ROOT);
        if (has.equals(wanted) || TEXT_TYPES.contains(wanted)) {
            return c;
        }
        if (TEXT_TYPES.contains(has)) {
            // arrays and points as their JSON, everything else as the text Debezium sends
            return new ColumnSpec(
                    c.name(),
                    "TEXT",
                    c.key(),
                    c.optional(),
                    c.length(),
                    c.scale(),
                    ColumnKind.isUnknownType(c) ? "bytes" : c.connectType(),
                    null,
                    c.defaultJson());
        }
        if (kind == ColumnKind.INTERVAL && has.equals("BIGINT")) {
            return new ColumnSpec(
                    c.name(),
                    "INTERVAL",
                    c.key(),
                    c.optional(),
                    c.length(),
                    c.scale(),
                    c.connectType(),
                    "io.debezium.time.MicroDuration",
                    c.defaultJson());
        }
        if (kind == ColumnKind.BITS && BINARY_TYPES.contains(has)) {
            return new ColumnSpec(
                    c.name(),
                    "BYTEA",
                    c.key(),
                    c.optional(),
                    c.length(),
                    c.scale(),
                    c.connectType(),
                    null,
                    c.defaultJson());
        }
        return c;
    }
}
