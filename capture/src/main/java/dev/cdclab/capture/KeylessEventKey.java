package dev.cdclab.capture;

import dev.cdclab.change.ChangeKeyFields;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.Transformation;

/**
 * A Kafka Connect transformation that gives the events Debezium sends without a key (changes of
 * tables without a key, {@code TRUNCATE}s) a key naming their table: {@code {"__cdclab_table":
 * "<topic>"}}, the topic being the table's own before routing. Every such event of a table then
 * goes to the same partition of the change topic, in source order, where the producer would
 * otherwise scatter them. Runs before the router; events with a key pass unchanged. It also tells
 * such a change apart from others at its log position ({@link ChangeKeyFields#LSN_EVENT_HEADER}).
 */
public final class KeylessEventKey<R extends ConnectRecord<R>> implements Transformation<R> {
    private static final String TABLE_FIELD = ChangeKeyFields.KEYLESS_TABLE;

    /** Debezium's count of the events at one LSN in a PostgreSQL connector's offsets. */
    static final String LSN_EVENTS_PROCESSED = "lsn_events_processed";

    private static final Schema KEY_SCHEMA =
            SchemaBuilder.struct()
                    .name("dev.cdclab.KeylessKey")
                    .field(TABLE_FIELD, Schema.STRING_SCHEMA)
                    .build();

    @Override
    public R apply(R record) {
        if (record.key() != null || record.value() == null) {
            return record;
        }
        Struct key = new Struct(KEY_SCHEMA).put(TABLE_FIELD, record.topic());
        if (record instanceof SourceRecord source && source.sourceOffset() != null) {
            // which of the changes sharing a log position this is, as Debezium counts them in
            // its offsets: the same count when it sends the change again after a restart
            Object n = source.sourceOffset().get(LSN_EVENTS_PROCESSED);
            if (n instanceof Number count && count.longValue() > 0) {
                record.headers().addLong(ChangeKeyFields.LSN_EVENT_HEADER, count.longValue());
            }
        }
        return record.newRecord(
                record.topic(),
                record.kafkaPartition(),
                KEY_SCHEMA,
                key,
                record.valueSchema(),
                record.value(),
                record.timestamp(),
                record.headers());
    }

    @Override
    public ConfigDef config() {
        return new ConfigDef();
    }

    @Override
    public void configure(Map<String, ?> configs) {}

    @Override
    public void close() {}
}
