package dev.cdclab.sink.warehouse;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cdclab.change.ColumnSpec;
import dev.cdclab.change.Schemas;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What the warehouse keeps about a whole table name, beside its rows ({@code cdc_lab.table_state}).
 *
 * @param emptiedAt source position of the last {@code TRUNCATE} (or snapshot of a table without a
 *     key) applied: every row written before it is gone, and a change at or before it is stale
 * @param keylessThrough source position of the last change of the table applied while it had no
 *     key: changes of a table without a key are applied one by one, so a replay at or before it is
 *     a duplicate
 * @param diverged why the warehouse table no longer follows the source, or null
 * @param schemaAt source position of the newest change (or column rename) whose columns the
 *     warehouse table follows: a change older than it does not alter the table again; null for none
 * @param moves where the table the name referred to went, oldest first: at each position a rename
 *     or drop took it to another name (a drop: the name it is kept under, or null when the
 *     warehouse never had it). A change of this name older than a move belongs to the table that
 *     moved.
 * @param columnChanges columns the source added with a value for the rows there were, and columns
 *     it renamed, oldest first: a change made before one and written after it (late in a
 *     transaction, or read again after a restart) is fitted to the columns as they are now
 */
public record TableState(
        String emptiedAt,
        String keylessThrough,
        String diverged,
        String schemaAt,
        List<Move> moves,
        List<ColumnChange> columnChanges) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A table the warehouse knows nothing about yet. */
    public static final TableState NONE =
            new TableState(null, null, null, null, List.of(), List.of());

    public TableState {
        moves = moves == null ? List.of() : List.copyOf(moves);
        columnChanges = columnChanges == null ? List.of() : List.copyOf(columnChanges);
    }

    /** The state of a name without a schema position or moves, as earlier sinks saved it. */
    public TableState(String emptiedAt, String keylessThrough, String diverged) {
        this(emptiedAt, keylessThrough, diverged, null, List.of(), List.of());
    }

    /**
     * A column added at {@code position} whose rows there were took {@code value} (staged text); or
     * (with {@code added} null) the column {@code column} renamed to {@code renamedTo}; or (both
     * null) the column's type changed, so that a change made before is read as it was made (a date
     * into a column now text is its date, not the days Debezium sends; {@code unpadded}: a {@code
     * char(n)} value without the trailing spaces the source's cast took from it).
     */
    public record ColumnChange(
            String position,
            String column,
            String renamedTo,
            ColumnSpec added,
            String value,
            boolean unpadded) {
        public static ColumnChange added(String position, ColumnSpec column, String value) {
            return new ColumnChange(position, column.name(), null, column, value, false);
        }

        public static ColumnChange renamed(String position, String column, String to) {
            return new ColumnChange(position, column, to, null, null, false);
        }

        public static ColumnChange retyped(String position, String column, boolean unpadded) {
            return new ColumnChange(position, column, null, null, null, unpadded);
        }
    }

    /** This state with {@code change} recorded after the ones before. */
    public TableState withColumnChange(ColumnChange change) {
        if (columnChanges.contains(change)) {
            return this; // an event read again
        }
        List<ColumnChange> all = new ArrayList<>(columnChanges);
        all.add(change);
        return new TableState(emptiedAt, keylessThrough, diverged, schemaAt, moves, all);
    }

    /**
     * The table a name referred to went to {@code to} (null: nowhere the warehouse keeps) at {@code
     * position}.
     */
    public record Move(String position, String to) {}

    /** True when a change at {@code position} was written before the table was last emptied. */
    public boolean staleAfterEmptying(String position) {
        return emptiedAt != null && position.compareTo(emptiedAt) <= 0;
    }

    /** True when a keyless change at {@code position} is applied already. */
    public boolean keylessApplied(String position) {
        return keylessThrough != null && position.compareTo(keylessThrough) <= 0;
    }

    /**
     * The first move after {@code position}: where the table a change at {@code position} was made
     * to is now. Null when the name still refers to that table.
     */
    public Move moveAfter(String position) {
        for (Move m : moves) {
            if (m.position().compareTo(position) > 0) {
                return m;
            }
        }
        return null;
    }

    /** True when a rename or drop at {@code position} is applied already, or one after it. */
    public boolean movedAtOrAfter(String position) {
        return !moves.isEmpty() && moves.get(moves.size() - 1).position().compareTo(position) >= 0;
    }

    /** True when the table follows columns as of {@code position} or later. */
    public boolean schemaAtOrAfter(String position) {
        return schemaAt != null && schemaAt.compareTo(position) >= 0;
    }

    public TableState emptied(String position) {
        return new TableState(position, keylessThrough, diverged, schemaAt, moves, columnChanges);
    }

    public TableState keylessAppliedThrough(String position) {
        return new TableState(emptiedAt, position, diverged, schemaAt, moves, columnChanges);
    }

    public TableState diverging(String reason) {
        return new TableState(emptiedAt, keylessThrough, reason, schemaAt, moves, columnChanges);
    }

    /**
     * The table follows the columns of a change at {@code position}, unless it already does later.
     */
    public TableState followingSchemaAt(String position) {
        if (schemaAtOrAfter(position)) {
            return this;
        }
        return new TableState(emptiedAt, keylessThrough, diverged, position, moves, columnChanges);
    }

    /**
     * What the name keeps once its table went to {@code to} at {@code position}: its moves only,
     * for the changes of that table still to come.
     */
    public TableState movedTo(String position, String to) {
        List<Move> all = new ArrayList<>(moves);
        all.add(new Move(position, to));
        return new TableState(null, null, null, null, all, List.of());
    }

    /**
     * This state taken over by a name whose own moves were {@code theirs}: a table renamed onto a
     * name keeps its state, and the name keeps its history.
     */
    public TableState under(List<Move> theirs) {
        return new TableState(emptiedAt, keylessThrough, diverged, schemaAt, theirs, columnChanges);
    }

    /** The moves as stored: a JSON array of {@code [position, to]}; null for none. */
    public String movesJson() {
        if (moves.isEmpty()) {
            return null;
        }
        ArrayNode a = JSON.createArrayNode();
        for (Move m : moves) {
            a.addArray().add(m.position()).add(m.to());
        }
        return a.toString();
    }

    /** Moves as {@link #movesJson()} stores them. */
    public static List<Move> movesOf(String json) {
        if (json == null || json.isBlank()) {
            return List.of();
        }
        try {
            List<Move> out = new ArrayList<>();
            for (JsonNode m : JSON.readTree(json)) {
                out.add(new Move(m.get(0).asText(), m.get(1).isNull() ? null : m.get(1).asText()));
            }
            return out;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("unreadable table moves in cdc_lab.table_state", e);
        }
    }

    /** The column changes as stored: a JSON array of objects; null for none. */
    public String columnChangesJson() {
        if (columnChanges.isEmpty()) {
            return null;
        }
        ArrayNode a = JSON.createArrayNode();
        for (ColumnChange c : columnChanges) {
            ObjectNode o = a.addObject().put("at", c.position()).put("column", c.column());
            if (c.renamedTo() != null) {
                o.put("to", c.renamedTo());
            } else if (c.added() != null) {
                try {
                    o.set(
                            "added",
                            JSON.readTree(
                                    new String(
                                            Schemas.toJson(List.of(c.added())),
                                            StandardCharsets.UTF_8)));
                } catch (JsonProcessingException e) {
                    throw new IllegalStateException("cannot write a column's spec", e);
                }
                o.put("value", c.value());
            } else if (c.unpadded()) {
                o.put("unpadded", true);
            }
        }
        return a.toString();
    }

    /** Column changes as {@link #columnChangesJson()} stores them. */
    public static List<ColumnChange> columnChangesOf(String json) {
        if (json == null || json.isBlank()) {
            return List.of();
        }
        try {
            List<ColumnChange> out = new ArrayList<>();
            for (JsonNode c : JSON.readTree(json)) {
                JsonNode added = c.get("added");
                String at = c.get("at").asText();
                String column = c.get("column").asText();
                if (c.hasNonNull("to")) {
                    out.add(ColumnChange.renamed(at, column, c.get("to").asText()));
                    continue;
                }
                out.add(
                        added == null
                                ? ColumnChange.retyped(
                                        at, column, c.path("unpadded").asBoolean(false))
                                : ColumnChange.added(
                                        c.get("at").asText(),
                                        Schemas.fromJson(added).get(0),
                                        c.hasNonNull("value") ? c.get("value").asText() : null));
            }
            return out;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("unreadable column changes in cdc_lab.table_state", e);
        }
    }
}
