package dev.cdclab.orchestration.infra;

import java.util.Locale;

/** Where the services a pipeline runs on come from. */
public enum InfraKind {
    /** Started in this JVM: PostgreSQL from embedded binaries, a KRaft broker, a Connect worker. */
    EMBEDDED,
    /** Started by Testcontainers: the source database, and Kafka when asked. */
    CONTAINERS,
    /** Given by the user: a source, Kafka, optionally a Connect cluster. */
    EXTERNAL;

    /** The lower-case name used on the command line and in reports. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses {@code embedded}, {@code containers} or {@code external}. */
    public static InfraKind parse(String text) {
        for (InfraKind k : values()) {
            if (k.label().equalsIgnoreCase(text.trim())) {
                return k;
            }
        }
        throw new IllegalArgumentException(
                "'"
                        + text
                        + "' is not an infrastructure kind; use embedded, containers or external");
    }
}
