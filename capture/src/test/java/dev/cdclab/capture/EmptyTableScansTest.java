package dev.cdclab.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

class EmptyTableScansTest {
    private static final Schema NOTIFICATION =
            SchemaBuilder.struct()
                    .name("io.debezium.connector.common.Notification")
                    .field("id", Schema.STRING_SCHEMA)
                    .field("aggregate_type", Schema.STRING_SCHEMA)
                    .field("type", Schema.STRING_SCHEMA)
                    .field(
                            "additional_data",
                            SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA)
                                    .optional()
                                    .build())
                    .field("timestamp", Schema.INT64_SCHEMA)
                    .build();

    private final EmptyTableScans<SourceRecord> transform = new EmptyTableScans<>();

    EmptyTableScansTest() {
        transform.configure(Map.of(EmptyTableScans.TOPIC_CONFIG, "p.changes"));
    }

    private static SourceRecord notification(
            String aggregate, String type, Map<String, String> data, Map<String, ?> offset) {
        Struct v =
                new Struct(NOTIFICATION)
                        .put("id", "n1")
                        .put("aggregate_type", aggregate)
                        .put("type", type)
                        .put("additional_data", data)
                        .put("timestamp", 1L);
        return new SourceRecord(Map.of(), offset, "p.notifications", null, null, NOTIFICATION, v);
    }

    @Test
    void aTableScannedEmptyHasItsNotificationMovedToTheChangeTopicWithTheSnapshotsPosition() {
        SourceRecord out =
                transform.apply(
                        notification(
                                "Initial Snapshot",
                                "TABLE_SCAN_COMPLETED",
                                Map.of(
                                        "scanned_collection", "public.notes",
                                        "total_rows_scanned", "0",
                                        "status", "SUCCEEDED"),
                                Map.of("lsn", 4000L, "snapshot", "INITIAL")));
        assertThat(out.topic()).isEqualTo("p.changes");
        assertThat(out.headers().lastWithName(EmptyTableScans.TABLE_HEADER).value())
                .isEqualTo("public.notes");
        assertThat(out.headers().lastWithName(EmptyTableScans.LSN_HEADER).value())
                .isEqualTo("4000");
        assertThat(out.headers().lastWithName(EmptyTableScans.COMMIT_LSN_HEADER)).isNull();
        assertThat(out.timestamp())
                .as("the time the scan ended, not the time Connect sends the record")
                .isEqualTo(1L);
    }

    @Test
    void aSqlServerSnapshotGivesItsCommitLsn() {
        SourceRecord out =
                transform.apply(
                        notification(
                                "Initial Snapshot",
                                "TABLE_SCAN_COMPLETED",
                                Map.of(
                                        "scanned_collection", "lab.dbo.notes",
                                        "total_rows_scanned", "0",
                                        "status", "SUCCEEDED"),
                                Map.of("commit_lsn", "00000025:00000d98:0003")));
        assertThat(out.headers().lastWithName(EmptyTableScans.COMMIT_LSN_HEADER).value())
                .isEqualTo("00000025:00000d98:0003");
    }

    @Test
    void everyOtherNotificationStaysOnTheNotificationTopic() {
        Map<String, Object> offset = Map.of("lsn", 4000L);
        SourceRecord withRows =
                notification(
                        "Initial Snapshot",
                        "TABLE_SCAN_COMPLETED",
                        Map.of(
                                "scanned_collection", "public.items",
                                "total_rows_scanned", "12",
                                "status", "SUCCEEDED"),
                        offset);
        SourceRecord started = notification("Initial Snapshot", "STARTED", Map.of(), offset);
        SourceRecord incremental =
                notification(
                        "Incremental Snapshot",
                        "TABLE_SCAN_COMPLETED",
                        Map.of("scanned_collection", "public.items", "status", "EMPTY"),
                        offset);
        assertThat(transform.apply(withRows))
                .as("a table with rows: its rows end its reading")
                .isSameAs(withRows);
        assertThat(transform.apply(started)).isSameAs(started);
        assertThat(transform.apply(incremental)).isSameAs(incremental);
    }

    @Test
    void changeEventsPassUnchanged() {
        Schema value = SchemaBuilder.struct().name("p.public.items.Envelope").build();
        SourceRecord change =
                new SourceRecord(
                        Map.of(), Map.of(), "p.public.items", null, null, value, new Struct(value));
        assertThat(transform.apply(change)).isSameAs(change);
    }
}
