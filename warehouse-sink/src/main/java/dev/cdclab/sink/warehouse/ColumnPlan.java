package dev.cdclab.sink.warehouse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cdclab.change.ColumnSpec;
import dev.cdclab.change.RowImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How changes made under one source schema are written into a warehouse table: which columns are
 * staged, how each value is read (the schema it was made under) and how it is cast (the type the
 * warehouse column has now). A table that changed within a warehouse transaction follows the newest
 * of its schemas; the changes made before hold their values cast to the newer types (as the
 * source's own {@code ALTER ... TYPE} cast the rows it had), and the columns added after them the
 * values the source gave rows it had then (the column's default, or NULL).
 */
final class ColumnPlan {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The staged columns, as the warehouse casts them; key flags as the changes have them. */
    private final List<ColumnSpec> targets;

    /** How each staged value is read from a change's image; null where it is a constant. */
    private final List<ColumnSpec> reads;

    /** The text of a constant value (a later column's default), or null for NULL. */
    private final List<String> constants;

    /** Whether each staged value loses trailing spaces: made as {@code char(n)}, cast since. */
    private final List<Boolean> unpadded;

    private ColumnPlan(
            List<ColumnSpec> targets,
            List<ColumnSpec> reads,
            List<String> constants,
            List<Boolean> unpadded) {
        this.targets = List.copyOf(targets);
        this.reads = reads;
        this.constants = constants;
        this.unpadded = unpadded;
    }

    /** Changes made under the columns the warehouse table follows: read and cast as they are. */
    static ColumnPlan asTheyAre(List<ColumnSpec> columns) {
        List<String> none = new ArrayList<>(columns.size());
        List<Boolean> kept = new ArrayList<>(columns.size());
        for (int i = 0; i < columns.size(); i++) {
            none.add(null);
            kept.add(false);
        }
        return new ColumnPlan(columns, new ArrayList<>(columns), none, kept);
    }

    /**
     * Changes made under {@code made}, written into a table the warehouse holds as {@code
     * warehouse} (column names to its types).
     *
     * @param newest the columns of the newest schema in the transaction, by name, when the table
     *     follows it there: an older change's value is cast to the newer type, and a column added
     *     after the change gets the value the source gave the rows it had (its default); null when
     *     the changes are older than what the table already follows (a replay), whose columns of
     *     another type or no longer in the table are left as the warehouse has them
     */
    static ColumnPlan fitting(
            List<ColumnSpec> made,
            Map<String, String> warehouse,
            Map<String, ColumnSpec> newest,
            WarehouseDialect dialect) {
        return fitting(made, warehouse, newest, Map.of(), Map.of(), Map.of(), dialect);
    }

    /**
     * As {@link #fitting(List, Map, Map, WarehouseDialect)}, and columns added after the changes
     * were made ({@code addedAfter}: the column as added, by name, with the value rows there were
     * took) hold that value, as at the source, even where the table follows no newer schema in this
     * batch; and columns renamed after the changes were made ({@code renamedAfter}: old name to the
     * name the warehouse has) are written under their new names, and columns whose type changed
     * after the changes were made ({@code retypedAfter}, each with whether the source's cast took
     * {@code char(n)}'s padding from it) are read as the changes made them.
     */
    static ColumnPlan fitting(
            List<ColumnSpec> made,
            Map<String, String> warehouse,
            Map<String, ColumnSpec> newest,
            Map<String, Map.Entry<ColumnSpec, String>> addedAfter,
            Map<String, String> renamedAfter,
            Map<String, Boolean> retypedAfter,
            WarehouseDialect dialect) {
        List<ColumnSpec> targets = new ArrayList<>();
        List<ColumnSpec> reads = new ArrayList<>();
        List<String> constants = new ArrayList<>();
        List<Boolean> unpadded = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (ColumnSpec c : made) {
            names.add(c.name());
        }
        for (ColumnSpec made0 : made) {
            ColumnSpec c = made0;
            String has = warehouse == null ? null : warehouse.get(c.name());
            String to = renamedAfter.get(c.name());
            if (has == null && to != null && !names.contains(to) && warehouse != null) {
                has = warehouse.get(to);
                if (has != null) {
                    c = c.withName(to);
                    names.add(to);
                }
            }
            if (has == null) {
                continue;
            }
            ColumnSpec now = newest == null ? null : newest.get(c.name());
            ColumnSpec target = now == null ? c : now.withKey(c.key());
            target = ExistingColumns.fit(target, has, dialect);
            if (!dialect.sameType(has, dialect.sqlType(ColumnKind.of(target), target))
                    && !ExistingColumns.earlierMapping(target, has, dialect)) {
                continue;
            }
            targets.add(target);
            // a column whose type did not change is read as it is written (an earlier mapping's
            // column included); one that changed type, as it was made
            boolean changed =
                    now != null
                            ? !dialect.sqlType(ColumnKind.of(c), c)
                                    .equals(dialect.sqlType(ColumnKind.of(now), now))
                            : retypedAfter.containsKey(made0.name());
            // read from the image under the name the change was made with
            reads.add((changed ? c : target).withName(made0.name()));
            constants.add(null);
            // whether or not the warehouse's type changed (DuckDB holds both as VARCHAR)
            unpadded.add(
                    padded(c)
                            && (now != null
                                    ? !padded(now)
                                    : retypedAfter.getOrDefault(made0.name(), false)));
        }
        if (newest != null) {
            for (ColumnSpec later : newest.values()) {
                String has = warehouse == null ? null : warehouse.get(later.name());
                if (names.contains(later.name()) || has == null) {
                    continue;
                }
                ColumnSpec target = ExistingColumns.fit(later, has, dialect);
                targets.add(target.withKey(false));
                reads.add(null);
                // the value the column's addition gave the rows there were, when the sink saw it:
                // the events' default is missing for some types (Debezium gives none for inet)
                Map.Entry<ColumnSpec, String> added = addedAfter.get(later.name());
                constants.add(added != null ? added.getValue() : defaultText(target));
                unpadded.add(false);
                names.add(later.name());
            }
        }
        for (var e : addedAfter.entrySet()) {
            String has = warehouse == null ? null : warehouse.get(e.getKey());
            if (names.contains(e.getKey()) || has == null) {
                continue;
            }
            targets.add(ExistingColumns.fit(e.getValue().getKey(), has, dialect).withKey(false));
            reads.add(null);
            constants.add(e.getValue().getValue());
            unpadded.add(false);
        }
        return new ColumnPlan(targets, reads, constants, unpadded);
    }

    /** The value the source gives a row that existed before the column was added, as text. */
    private static String defaultText(ColumnSpec c) {
        if (c.defaultJson() == null) {
            return null;
        }
        try {
            return ValueText.of(c, ColumnKind.of(c), JSON.readTree(c.defaultJson()));
        } catch (IOException e) {
            throw new UncheckedIOException("default of column " + c.name(), e);
        }
    }

    /** The staged columns, as the warehouse casts them. */
    List<ColumnSpec> targets() {
        return targets;
    }

    /** True when the staged column {@code i} is a constant, not read from the change. */
    boolean constant(int i) {
        return reads.get(i) == null;
    }

    /** The value of staged column {@code i} in {@code image} as text; null for SQL NULL. */
    String value(int i, RowImage image) {
        ColumnSpec read = reads.get(i);
        if (read == null) {
            return constants.get(i);
        }
        JsonNode v = image == null ? null : image.get(read.name());
        String text = ValueText.of(read, ColumnKind.of(read), v);
        if (text != null && unpadded.get(i)) {
            // made as char(n) and cast since to a type without padding, as the source did
            return rtrimSpaces(text);
        }
        return text;
    }

    private static boolean padded(ColumnSpec c) {
        return "BPCHAR".equalsIgnoreCase(c.sourceType());
    }

    private static String rtrimSpaces(String s) {
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == ' ') {
            end--;
        }
        return s.substring(0, end);
    }

    /** The value of staged column {@code i} in a key (null when it is not a key column). */
    String keyValue(int i, com.fasterxml.jackson.databind.node.ObjectNode key) {
        ColumnSpec read = reads.get(i);
        if (read == null) {
            return null;
        }
        return ValueText.of(read, ColumnKind.of(read), key.get(read.name()));
    }

    /** Every staged value of {@code image}, in column order. */
    String[] values(RowImage image) {
        String[] out = new String[targets.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = value(i, image);
        }
        return out;
    }
}
