package dev.cdclab.capture;

import dev.cdclab.config.RunNames;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;

/**
 * Picks the ids of the heartbeat table's rows so that the Kafka key of row {@code p} hashes to
 * partition {@code p} of the changes topic. One heartbeat transaction then puts an event into every
 * partition, behind every change committed before it: each partition carries its own commit-time
 * watermark, in order with its data.
 */
public final class HeartbeatRows {
    private HeartbeatRows() {}

    /**
     * Row ids, one per partition, index = partition.
     *
     * @param topicPrefix the connector's topic prefix
     * @param partitions partitions of the changes topic
     */
    public static List<Integer> idsFor(String topicPrefix, int partitions) {
        return idsFor(
                topicPrefix,
                topicPrefix + "." + DebeziumConnectorConfig.HEARTBEAT_TABLE,
                partitions);
    }

    /**
     * Row ids, one per partition, index = partition.
     *
     * @param topicPrefix the connector's topic prefix
     * @param sourceTopic the topic Debezium names for the heartbeat table before routing ({@code
     *     <prefix>.cdc_lab.heartbeat}; SQL Server puts the database in: {@code
     *     <prefix>.<db>.cdc_lab.heartbeat})
     * @param partitions partitions of the changes topic
     */
    public static List<Integer> idsFor(String topicPrefix, String sourceTopic, int partitions) {
        Schema keySchema =
                SchemaBuilder.struct()
                        .field("id", Schema.INT32_SCHEMA)
                        .field(DebeziumConnectorConfig.TABLE_KEY_FIELD, Schema.STRING_SCHEMA)
                        .build();
        try (JsonConverter converter = new JsonConverter()) {
            converter.configure(Map.of("schemas.enable", "false"), true);
            Integer[] ids = new Integer[partitions];
            int found = 0;
            for (int id = 1; found < partitions; id++) {
                if (id > 1_000_000) {
                    throw new IllegalStateException("cannot cover " + partitions + " partitions");
                }
                Struct key =
                        new Struct(keySchema)
                                .put("id", id)
                                .put(DebeziumConnectorConfig.TABLE_KEY_FIELD, sourceTopic);
                byte[] bytes =
                        converter.fromConnectData(
                                RunNames.changeTopic(topicPrefix), keySchema, key);
                int p = Utils.toPositive(Utils.murmur2(bytes)) % partitions;
                if (ids[p] == null) {
                    ids[p] = id;
                    found++;
                }
            }
            List<Integer> out = new ArrayList<>(partitions);
            Collections.addAll(out, ids);
            return out;
        }
    }
}
