package dev.cdclab.config;

import java.util.Locale;

/** The source databases the pipeline captures from. */
public enum SourceKind {
    /** PostgreSQL through logical decoding (pgoutput); the runnable default. */
    POSTGRES,
    /** SQL Server through its CDC capture job and change tables. */
    SQLSERVER;

    /** The lower-case name used on the command line and in reports. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses {@code postgres} (or {@code postgresql}) and {@code sqlserver}.
     *
     * @throws IllegalArgumentException naming the choices
     */
    public static SourceKind parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        return switch (t) {
            case "postgres", "postgresql" -> POSTGRES;
            case "sqlserver", "mssql" -> SQLSERVER;
            default ->
                    throw new IllegalArgumentException(
                            "'" + text + "' is not a source; use postgres or sqlserver");
        };
    }
}
