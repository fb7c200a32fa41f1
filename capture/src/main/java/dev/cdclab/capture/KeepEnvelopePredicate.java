package dev.cdclab.capture;

import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.transforms.predicates.Predicate;

/**
 * A Kafka Connect predicate true for the Debezium events the pipeline needs whole, so that {@code
 * ExtractNewRecordState} is told to let them pass ({@code transforms.unwrap.predicate} with {@code
 * negate=true}): {@code TRUNCATE} events ({@code op = "t"}), which that transform drops, and the
 * changes of tables without a key (no record key), whose old image ({@code before}) is how the
 * warehouse finds the row an update or delete changes.
 */
public final class KeepEnvelopePredicate<R extends ConnectRecord<R>> implements Predicate<R> {

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
        if (op == null || value.schema().field("source") == null) {
            return false;
        }
        return "t".equals(value.get(op)) || record.key() == null;
    }

    @Override
    public void configure(Map<String, ?> configs) {}

    @Override
    public void close() {}
}
