package dev.cdclab.capture;

import dev.cdclab.change.EmptyTableHeaders;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.Headers;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.Transformation;

/**
 * A Kafka Connect transformation that moves the notification Debezium sends when a snapshot finds a
 * table empty into the change topic ({@value #TOPIC_CONFIG}). A snapshot sends no row for an empty
 * table, so without it the warehouse would keep the rows such a table had before. The moved record
 * carries, in headers, the table ({@link #TABLE_HEADER}) and the snapshot's log position from the
 * record's source offset ({@link #LSN_HEADER} for PostgreSQL, {@link #COMMIT_LSN_HEADER} for SQL
 * Server): the offset is not in the record's value. Other records pass unchanged.
 */
public final class EmptyTableScans<R extends ConnectRecord<R>> implements Transformation<R> {
    /** The change topic, where the notifications of empty tables go. */
    public static final String TOPIC_CONFIG = "topic";

    /** Header naming the table a snapshot found empty, as Debezium names it. */
    public static final String TABLE_HEADER = EmptyTableHeaders.TABLE;

    /** Header holding a PostgreSQL snapshot's LSN. */
    public static final String LSN_HEADER = EmptyTableHeaders.LSN;

    /** Header holding a SQL Server snapshot's commit LSN. */
    public static final String COMMIT_LSN_HEADER = EmptyTableHeaders.COMMIT_LSN;

    private static final String NOTIFICATION_SCHEMA = "io.debezium.connector.common.Notification";

    private static final ConfigDef CONFIG =
            new ConfigDef()
                    .define(
                            TOPIC_CONFIG,
                            ConfigDef.Type.STRING,
                            ConfigDef.NO_DEFAULT_VALUE,
                            new ConfigDef.NonEmptyString(),
                            ConfigDef.Importance.HIGH,
                            "The change topic: where the notification of a table a snapshot found"
                                    + " empty goes.");

    private String topic;

    @Override
    public R apply(R record) {
        Schema schema = record.valueSchema();
        if (schema == null
                || !NOTIFICATION_SCHEMA.equals(schema.name())
                || !(record.value() instanceof Struct value)
                || !(record instanceof SourceRecord source)
                || !"Initial Snapshot".equals(value.getString("aggregate_type"))
                || !"TABLE_SCAN_COMPLETED".equals(value.getString("type"))) {
            return record;
        }
        Map<String, String> data = value.getMap("additional_data");
        String table = data == null ? null : data.get("scanned_collection");
        Map<String, ?> offset = source.sourceOffset();
        Object lsn = offset == null ? null : offset.get("lsn");
        Object commitLsn = offset == null ? null : offset.get("commit_lsn");
        if (table == null
                || !"0".equals(data.get("total_rows_scanned"))
                || !"SUCCEEDED".equals(data.get("status"))
                || (lsn == null && commitLsn == null)) {
            return record;
        }
        Headers headers = record.headers().duplicate();
        headers.addString(TABLE_HEADER, table);
        if (commitLsn != null) {
            headers.addString(COMMIT_LSN_HEADER, commitLsn.toString());
        } else {
            headers.addString(LSN_HEADER, lsn.toString());
        }
        // the record's time places the empty table's event in a fixed interval: the notification's
        // own, the nearest to the scan Debezium gives (Kafka would stamp it later still, when
        // Connect sends it). It is not a commit time: Debezium sends the notification after the
        // snapshot, and it can be after transactions the stream has yet to deliver, so the
        // net-change app never counts it as one.
        Long scanned = schema.field("timestamp") == null ? null : value.getInt64("timestamp");
        return record.newRecord(
                topic,
                null,
                record.keySchema(),
                record.key(),
                record.valueSchema(),
                record.value(),
                scanned != null ? scanned : record.timestamp(),
                headers);
    }

    @Override
    public ConfigDef config() {
        return CONFIG;
    }

    @Override
    public void configure(Map<String, ?> configs) {
        topic = new AbstractConfig(CONFIG, configs).getString(TOPIC_CONFIG);
    }

    @Override
    public void close() {}
}
