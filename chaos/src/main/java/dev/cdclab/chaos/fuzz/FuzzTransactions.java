package dev.cdclab.chaos.fuzz;

import dev.cdclab.chaos.fuzz.FuzzSchema.Column;
import dev.cdclab.chaos.fuzz.FuzzSchema.Table;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;

/**
 * Writes the fuzzer's transactions: DML with NULLs, edge values, large values and key updates, and
 * DDL at random points inside them (columns added, dropped, renamed and retyped, keys added and
 * dropped, tables truncated and renamed), each statement changing the fuzzer's belief of the schema
 * as it would change the source.
 */
final class FuzzTransactions {
    /** What a statement does, for the report. */
    enum Kind {
        INSERT,
        BULK_INSERT,
        UPDATE,
        UPDATE_RANGE,
        SET_NULL,
        KEY_UPDATE,
        PARTITION_MOVE,
        LARGE_VALUE,
        DELETE,
        DELETE_RANGE,
        DUPLICATE_ROW,
        ADD_COLUMN,
        DROP_COLUMN,
        RENAME_COLUMN,
        TYPE_CHANGE,
        ADD_KEY,
        DROP_KEY,
        TRUNCATE,
        RENAME_TABLE,
        CREATE_TABLE
    }

    /** One statement and what it does. */
    record Statement(Kind kind, String sql) {}

    private final Random r;
    private final String prefix;
    private final boolean ddl;
    private final Map<Kind, Integer> counts = new EnumMap<>(Kind.class);

    FuzzTransactions(Random r, String prefix, boolean ddl) {
        this.r = r;
        this.prefix = prefix;
        this.ddl = ddl;
    }

    /** Statements written so far, by kind (those of transactions the source refused included). */
    Map<Kind, Integer> counts() {
        return counts;
    }

    /** One transaction's statements, changing {@code s} as they would change the source. */
    List<Statement> next(FuzzSchema s) {
        List<Statement> out = new ArrayList<>();
        int n = 1 + (r.nextInt(4) == 0 ? r.nextInt(12) : r.nextInt(3));
        for (int i = 0; i < n; i++) {
            if (s.tables.isEmpty()) {
                break;
            }
            Statement st = ddl && r.nextInt(9) == 0 ? schemaChange(s) : dml(s);
            if (st != null) {
                out.add(st);
                counts.merge(st.kind(), 1, Integer::sum);
            }
        }
        return out;
    }

    private Table anyTable(FuzzSchema s) {
        List<Table> all = new ArrayList<>(s.tables.values());
        return all.get(r.nextInt(all.size()));
    }

    private long anyId(Table t) {
        if (t.ids.isEmpty() || r.nextInt(10) == 0) {
            return 1 + r.nextInt((int) Math.max(1, t.nextId));
        }
        Long id = t.ids.ceiling(1 + (long) (r.nextDouble() * t.nextId));
        return id == null ? t.ids.first() : id;
    }

    private Statement dml(FuzzSchema s) {
        Table t = anyTable(s);
        int pick = r.nextInt(100);
        if (pick < 30 || t.ids.size() < 3) {
            return insert(t);
        }
        if (pick < 36) {
            return bulkInsert(t);
        }
        if (pick < 56) {
            return update(t);
        }
        if (pick < 62) {
            return updateRange(t);
        }
        if (pick < 66) {
            return setNull(t);
        }
        if (pick < 70 && !t.key.isEmpty()) {
            return keyUpdate(t);
        }
        if (pick < 73 && t.partitionedBy != null) {
            long id = anyId(t);
            return new Statement(
                    Kind.PARTITION_MOVE,
                    "UPDATE " + t.quoted() + " SET part = " + r.nextInt(200) + " WHERE id = " + id);
        }
        if (pick < 76) {
            return largeValue(t);
        }
        if (pick < 86) {
            long id = anyId(t);
            t.ids.remove(id);
            return new Statement(Kind.DELETE, "DELETE FROM " + t.quoted() + " WHERE id = " + id);
        }
        if (pick < 89) {
            long from = anyId(t);
            long to = from + r.nextInt(20);
            t.ids.subSet(from, true, to, true).clear();
            return new Statement(
                    Kind.DELETE_RANGE,
                    "DELETE FROM " + t.quoted() + " WHERE id BETWEEN " + from + " AND " + to);
        }
        if (t.key.isEmpty()) {
            // an exact copy of a row: a table without a key keeps duplicates
            return new Statement(
                    Kind.DUPLICATE_ROW,
                    "INSERT INTO "
                            + t.quoted()
                            + " SELECT * FROM "
                            + t.quoted()
                            + " WHERE id = "
                            + anyId(t)
                            + " LIMIT 1");
        }
        return insert(t);
    }

    private Statement insert(Table t) {
        int rows = 1 + (r.nextInt(3) == 0 ? r.nextInt(5) : 0);
        List<Column> cols = new ArrayList<>();
        for (Column c : t.columns) {
            // a column left out takes its default
            if (c.name().equals("id") || !c.nullable() || r.nextInt(5) != 0) {
                cols.add(c);
            }
        }
        StringBuilder values = new StringBuilder();
        for (int i = 0; i < rows; i++) {
            long id = t.nextId++;
            t.ids.add(id);
            values.append(i == 0 ? "(" : ", (");
            for (int j = 0; j < cols.size(); j++) {
                Column c = cols.get(j);
                values.append(j == 0 ? "" : ", ").append(value(t, c, id));
            }
            values.append(')');
        }
        return new Statement(
                Kind.INSERT,
                "INSERT INTO "
                        + t.quoted()
                        + " ("
                        + cols.stream()
                                .map(c -> "\"" + c.name() + "\"")
                                .collect(Collectors.joining(", "))
                        + ") VALUES "
                        + values);
    }

    private String value(Table t, Column c, long id) {
        if (c.name().equals("id")) {
            return Long.toString(id);
        }
        if (c.name().equals(t.partitionedBy)) {
            return Integer.toString(r.nextInt(200));
        }
        if (t.key.contains(c.name())) {
            // unique with the id: a key column takes a value the id decides
            return keyValue(c.type(), id);
        }
        return c.type().value(r, c.nullable());
    }

    private static String keyValue(FuzzType type, long id) {
        return switch (type) {
            case INT2 -> Long.toString(id % 30000);
            case TEXT, VARCHAR -> "'k" + id + "'";
            case UUID -> "'" + new java.util.UUID(0, id) + "'";
            case DATE -> "DATE '2000-01-01' + " + (id % 100_000);
            case NUMERIC_12_3 -> id + ".5";
            default -> Long.toString(id);
        };
    }

    private Statement bulkInsert(Table t) {
        int rows = 50 + r.nextInt(r.nextInt(10) == 0 ? 20_000 : 500);
        long from = t.nextId;
        t.nextId += rows;
        for (long id = from; id < from + rows; id++) {
            t.ids.add(id);
        }
        List<String> names = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (Column c : t.columns) {
            names.add("\"" + c.name() + "\"");
            if (c.name().equals("id")) {
                values.add("g");
            } else if (c.name().equals(t.partitionedBy)) {
                values.add("g % 200");
            } else if (t.key.contains(c.name())) {
                values.add(bulkKey(c.type()));
            } else {
                values.add(c.type().value(r, c.nullable()));
            }
        }
        return new Statement(
                Kind.BULK_INSERT,
                "INSERT INTO "
                        + t.quoted()
                        + " ("
                        + String.join(", ", names)
                        + ") SELECT "
                        + String.join(", ", values)
                        + " FROM generate_series("
                        + from
                        + ", "
                        + (from + rows - 1)
                        + ") g");
    }

    private static String bulkKey(FuzzType type) {
        return switch (type) {
            case INT2 -> "(g % 30000)::smallint";
            case TEXT, VARCHAR -> "'k' || g";
            case UUID -> "('00000000-0000-0000-0000-' || lpad(to_hex(g), 12, '0'))::uuid";
            case DATE -> "DATE '2000-01-01' + (g % 100000)::int";
            case NUMERIC_12_3 -> "g + 0.5";
            default -> "g";
        };
    }

    private Statement update(Table t) {
        List<Column> free = t.free();
        if (free.isEmpty()) {
            return insert(t);
        }
        StringBuilder set = new StringBuilder();
        int n = 1 + r.nextInt(Math.min(3, free.size()));
        for (int i = 0; i < n; i++) {
            Column c = free.get(r.nextInt(free.size()));
            if (set.indexOf("\"" + c.name() + "\" =") >= 0) {
                continue;
            }
            set.append(set.length() == 0 ? "" : ", ")
                    .append('"')
                    .append(c.name())
                    .append("\" = ")
                    .append(c.type().value(r, c.nullable()));
        }
        return new Statement(
                Kind.UPDATE, "UPDATE " + t.quoted() + " SET " + set + " WHERE id = " + anyId(t));
    }

    private Statement updateRange(Table t) {
        List<Column> free = t.free();
        if (free.isEmpty()) {
            return insert(t);
        }
        Column c = free.get(r.nextInt(free.size()));
        long from = anyId(t);
        return new Statement(
                Kind.UPDATE_RANGE,
                "UPDATE "
                        + t.quoted()
                        + " SET \""
                        + c.name()
                        + "\" = "
                        + c.type().value(r, c.nullable())
                        + " WHERE id BETWEEN "
                        + from
                        + " AND "
                        + (from + r.nextInt(r.nextInt(8) == 0 ? 5000 : 50)));
    }

    private Statement setNull(Table t) {
        List<Column> nullable = t.free().stream().filter(Column::nullable).toList();
        if (nullable.isEmpty()) {
            return update(t);
        }
        Column c = nullable.get(r.nextInt(nullable.size()));
        return new Statement(
                Kind.SET_NULL,
                "UPDATE "
                        + t.quoted()
                        + " SET \""
                        + c.name()
                        + "\" = NULL WHERE id % "
                        + (2 + r.nextInt(5))
                        + " = 0");
    }

    private Statement keyUpdate(Table t) {
        long id = anyId(t);
        long to = t.nextId++;
        if (t.ids.remove(id)) {
            t.ids.add(to);
        }
        String set = "id = " + to;
        for (String k : t.key) {
            Column c = t.column(k);
            if (!k.equals("id") && !k.equals(t.partitionedBy)) {
                set += ", \"" + k + "\" = " + keyValue(c.type(), to);
            }
        }
        return new Statement(
                Kind.KEY_UPDATE, "UPDATE " + t.quoted() + " SET " + set + " WHERE id = " + id);
    }

    private Statement largeValue(Table t) {
        List<Column> large =
                t.free().stream()
                        .filter(
                                c ->
                                        c.type() == FuzzType.TEXT
                                                || c.type() == FuzzType.BYTEA
                                                || c.type() == FuzzType.JSONB)
                        .toList();
        if (large.isEmpty()) {
            return update(t);
        }
        Column c = large.get(r.nextInt(large.size()));
        return new Statement(
                Kind.LARGE_VALUE,
                "UPDATE "
                        + t.quoted()
                        + " SET \""
                        + c.name()
                        + "\" = "
                        + c.type().largeValue(r)
                        + " WHERE id = "
                        + anyId(t));
    }

    private Statement schemaChange(FuzzSchema s) {
        Table t = anyTable(s);
        int pick = r.nextInt(100);
        List<Column> free = t.free();
        if (pick < 22 || free.isEmpty()) {
            FuzzType[] types = FuzzType.values();
            FuzzType type = types[r.nextInt(types.length)];
            String dflt = r.nextBoolean() ? type.value(r, false) : null;
            Column c = new Column("c" + t.nextColumn++, type, true, dflt);
            t.columns.add(c);
            return new Statement(
                    Kind.ADD_COLUMN, "ALTER TABLE " + t.quoted() + " ADD COLUMN " + c.ddl());
        }
        Column c = free.get(r.nextInt(free.size()));
        if (pick < 36) {
            t.columns.remove(c);
            return new Statement(
                    Kind.DROP_COLUMN,
                    "ALTER TABLE " + t.quoted() + " DROP COLUMN \"" + c.name() + "\"");
        }
        if (pick < 50) {
            String to = c.name() + "r" + r.nextInt(100);
            if (t.column(to) != null) {
                return null;
            }
            t.columns.set(t.columns.indexOf(c), c.renamed(to));
            return new Statement(
                    Kind.RENAME_COLUMN,
                    "ALTER TABLE "
                            + t.quoted()
                            + " RENAME COLUMN \""
                            + c.name()
                            + "\" TO \""
                            + to
                            + "\"");
        }
        if (pick < 66) {
            List<FuzzType> to = c.type().changesTo();
            if (to.isEmpty()) {
                return null;
            }
            FuzzType type = to.get(r.nextInt(to.size()));
            t.columns.set(t.columns.indexOf(c), c.retyped(type));
            // a default of the old type may not cast: the column keeps none
            return new Statement(
                    Kind.TYPE_CHANGE,
                    "ALTER TABLE "
                            + t.quoted()
                            + " ALTER COLUMN \""
                            + c.name()
                            + "\" DROP DEFAULT, ALTER COLUMN \""
                            + c.name()
                            + "\" TYPE "
                            + type.sql());
        }
        if (pick < 72 && t.key.isEmpty()) {
            t.key.add("id");
            t.keyConstraint = t.name + "_pkey";
            return new Statement(
                    Kind.ADD_KEY, "ALTER TABLE " + t.quoted() + " ADD PRIMARY KEY (id)");
        }
        if (pick < 76 && !t.key.isEmpty() && t.partitionedBy == null) {
            t.key.clear();
            String constraint = t.keyConstraint;
            t.keyConstraint = null;
            return new Statement(
                    Kind.DROP_KEY,
                    "ALTER TABLE " + t.quoted() + " DROP CONSTRAINT \"" + constraint + "\"");
        }
        if (pick < 86) {
            t.ids.clear();
            return new Statement(Kind.TRUNCATE, "TRUNCATE " + t.quoted());
        }
        if (pick < 93 && t.partitionedBy == null) {
            String to = prefix + "_t" + s.nextTable++;
            s.tables.remove(t.name);
            String from = t.quoted();
            t.name = to;
            s.tables.put(to, t);
            return new Statement(
                    Kind.RENAME_TABLE, "ALTER TABLE " + from + " RENAME TO \"" + to + "\"");
        }
        List<String> ddlOfNew = s.newTable(r, prefix, 1 + r.nextInt(5));
        return new Statement(Kind.CREATE_TABLE, String.join(";\n", ddlOfNew));
    }
}
