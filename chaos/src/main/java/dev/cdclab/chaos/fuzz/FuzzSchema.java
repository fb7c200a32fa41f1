package dev.cdclab.chaos.fuzz;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * What the fuzzer believes the source's tables are: their columns, keys and the ids of their rows,
 * so that it writes statements that mostly succeed. The source is the truth: a statement that fails
 * there rolls its transaction back, and the fuzzer goes back to its belief before the transaction
 * ({@link #copy}).
 */
final class FuzzSchema {
    /** A column as the fuzzer made it. */
    record Column(String name, FuzzType type, boolean nullable, String defaultSql) {
        Column renamed(String to) {
            return new Column(to, type, nullable, defaultSql);
        }

        Column retyped(FuzzType to) {
            return new Column(name, to, nullable, null);
        }

        String ddl() {
            return "\""
                    + name
                    + "\" "
                    + type.sql()
                    + (nullable ? "" : " NOT NULL")
                    + (defaultSql == null ? "" : " DEFAULT " + defaultSql);
        }
    }

    /** A table: its columns in order, its key (none: compared as rows), its rows' ids. */
    static final class Table {
        String name;
        final List<Column> columns = new ArrayList<>();
        final List<String> key = new ArrayList<>();

        /** The partitioned table's partition key column, or null. */
        String partitionedBy;

        /** The primary key constraint's name (it keeps it when the table is renamed), or null. */
        String keyConstraint;

        /** Ids of the rows the fuzzer wrote and did not delete, by its {@code id} column. */
        final TreeSet<Long> ids = new TreeSet<>();

        long nextId = 1;
        int nextColumn;

        Table copy() {
            Table t = new Table();
            t.name = name;
            t.columns.addAll(columns);
            t.key.addAll(key);
            t.partitionedBy = partitionedBy;
            t.keyConstraint = keyConstraint;
            t.ids.addAll(ids);
            t.nextId = nextId;
            t.nextColumn = nextColumn;
            return t;
        }

        Column column(String name) {
            for (Column c : columns) {
                if (c.name().equals(name)) {
                    return c;
                }
            }
            return null;
        }

        /** Columns that are neither the id, in the key, nor the partition key. */
        List<Column> free() {
            return columns.stream()
                    .filter(c -> !c.name().equals("id"))
                    .filter(c -> !key.contains(c.name()))
                    .filter(c -> !c.name().equals(partitionedBy))
                    .toList();
        }

        String quoted() {
            return "public.\"" + name + "\"";
        }
    }

    final Map<String, Table> tables = new LinkedHashMap<>();
    int nextTable = 1;

    FuzzSchema copy() {
        FuzzSchema s = new FuzzSchema();
        tables.forEach((k, v) -> s.tables.put(k, v.copy()));
        s.nextTable = nextTable;
        return s;
    }

    /**
     * A new table of {@code width} columns besides {@code id}: a key of 0 to 3 columns (the id
     * always among them when there is one), nullable columns with and without defaults, and, now
     * and then, a table partitioned by range.
     *
     * @return its DDL statements
     */
    List<String> newTable(Random r, String prefix, int width) {
        Table t = new Table();
        t.name = prefix + "_t" + nextTable++;
        FuzzType[] types = FuzzType.values();
        t.columns.add(new Column("id", FuzzType.INT8, false, null));
        for (int i = 0; i < width; i++) {
            FuzzType type = types[r.nextInt(types.length)];
            boolean nullable = r.nextInt(5) != 0;
            String dflt = r.nextInt(3) == 0 ? type.value(r, false) : null;
            if (!nullable && dflt == null) {
                dflt = type.value(r, false);
            }
            t.columns.add(new Column("c" + t.nextColumn++, type, nullable, dflt));
        }
        int keyColumns = r.nextInt(5) == 0 ? 0 : 1 + (r.nextInt(4) == 0 ? r.nextInt(3) : 0);
        boolean partitioned = keyColumns > 0 && r.nextInt(6) == 0;
        List<String> ddl = new ArrayList<>();
        if (keyColumns > 0) {
            t.key.add("id");
            for (Column c : t.columns) {
                if (t.key.size() >= keyColumns) {
                    break;
                }
                if (!c.name().equals("id") && c.type().keyable()) {
                    t.key.add(c.name());
                }
            }
            // key columns are NOT NULL
            for (int i = 0; i < t.columns.size(); i++) {
                Column c = t.columns.get(i);
                if (t.key.contains(c.name()) && c.nullable()) {
                    String dflt =
                            c.defaultSql() != null ? c.defaultSql() : c.type().value(r, false);
                    t.columns.set(i, new Column(c.name(), c.type(), false, dflt));
                }
            }
        }
        if (partitioned) {
            t.columns.add(new Column("part", FuzzType.INT4, false, "0"));
            t.key.add("part");
            t.partitionedBy = "part";
        }
        String columns = t.columns.stream().map(Column::ddl).collect(Collectors.joining(", "));
        String pk = t.key.isEmpty() ? "" : ", PRIMARY KEY (" + quotedList(t.key) + ")";
        t.keyConstraint = t.key.isEmpty() ? null : t.name + "_pkey";
        ddl.add(
                "CREATE TABLE "
                        + t.quoted()
                        + " ("
                        + columns
                        + pk
                        + ")"
                        + (partitioned ? " PARTITION BY RANGE (part)" : ""));
        if (partitioned) {
            ddl.add(
                    "CREATE TABLE public.\""
                            + t.name
                            + "_p0\" PARTITION OF "
                            + t.quoted()
                            + " FOR VALUES FROM (MINVALUE) TO (100)");
            ddl.add(
                    "CREATE TABLE public.\""
                            + t.name
                            + "_p1\" PARTITION OF "
                            + t.quoted()
                            + " FOR VALUES FROM (100) TO (MAXVALUE)");
        }
        tables.put(t.name, t);
        return ddl;
    }

    static String quotedList(List<String> names) {
        return names.stream().map(n -> "\"" + n + "\"").collect(Collectors.joining(", "));
    }
}
