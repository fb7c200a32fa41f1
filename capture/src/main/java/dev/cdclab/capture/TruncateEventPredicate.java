package dev.cdclab.capture;

import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.transforms.predicates.Predicate;

/**
 * A Kafka Connect predicate true for Debezium's {@code TRUNCATE} events ({@code op = "t"}), so that
 * {@code ExtractNewRecordState}, which drops them, can be told to let them pass whole ({@code
 * transforms.unwrap.predicate} with {@code negate=true}): the net-change app then sees the truncate
 * and stops on it instead of the warehouse diverging without a word.
 */
public final class TruncateEventPredicate<R extends ConnectRecord<R>> implements Predicate<R> {

    @Override
    public ConfigDef config() {
        return new ConfigDef();
    }

    @Override
    public boolean test(R record) {
        if (!(record.value() instanceof Struct value)) {
            return false;
        }
        Field op = value.schema().field("op");
        return op != null && "t".equals(value.get(op));
    }

    @Override
    public void configure(Map<String, ?> configs) {}

    @Override
    public void close() {}
}
