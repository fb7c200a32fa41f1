package dev.cdclab.sink.warehouse;

/** A warehouse table named like its source table: same schema, same name. */
public record TableName(String schema, String table) {

    /** Parses {@code schema.table}. */
    public static TableName of(String qualified) {
        int dot = qualified.indexOf('.');
        if (dot <= 0 || dot == qualified.length() - 1) {
            throw new IllegalArgumentException("not a schema-qualified table: " + qualified);
        }
        return new TableName(qualified.substring(0, dot), qualified.substring(dot + 1));
    }

    @Override
    public String toString() {
        return schema + "." + table;
    }
}
