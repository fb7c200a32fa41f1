package dev.cdclab.change;

/**
 * Fields the capture stage adds to change-event keys, which the net-change app removes again: they
 * place events on partitions and are not columns.
 */
public final class ChangeKeyFields {
    /** Added by Debezium's {@code ToLogicalTopicRouter} to keep keys of routed tables apart. */
    public static final String ROUTER = "__dbz__sourceIdentifier";

    /**
     * The only field of the key cdc-lab gives events Debezium sends without one (tables without a
     * key, truncates): the table's topic, so all of a table's such events share a partition.
     */
    public static final String KEYLESS_TABLE = "__cdclab_table";

    /**
     * The header capture adds to those events: which of the changes that share their log position
     * (the rows of one {@code COPY} page) this one is, counting from 1, as Debezium counts them
     * ({@code lsn_events_processed} in its offsets). Debezium sends them again with the same count
     * after a restart, so a change of a table without a key keeps its identity when sent twice.
     */
    public static final String LSN_EVENT_HEADER = "cdclab.lsn-event";

    private ChangeKeyFields() {}
}
