package dev.cdclab.streams.topology;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The input offsets Kafka Streams has committed under {@code at_least_once}, as the stream thread's
 * main consumer reports them. Streams commits offsets only after every record sent before has been
 * acknowledged, so an offset committed past a record means its output is in Kafka.
 *
 * <p>Streams commits on the stream thread that processes the task, so each thread keeps its own.
 */
public final class CommittedInput implements ConsumerInterceptor<Object, Object> {
    private static final ThreadLocal<Map<TopicPartition, Long>> COMMITTED =
            ThreadLocal.withInitial(HashMap::new);

    /**
     * The offset the calling stream thread last committed on {@code partition}: every record below
     * it has been processed and its output acknowledged; -1 when it has committed none.
     */
    static long of(TopicPartition partition) {
        Long offset = COMMITTED.get().get(partition);
        return offset == null ? -1 : offset;
    }

    @Override
    public ConsumerRecords<Object, Object> onConsume(ConsumerRecords<Object, Object> records) {
        return records;
    }

    @Override
    public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        Map<TopicPartition, Long> committed = COMMITTED.get();
        offsets.forEach((p, o) -> committed.put(p, o.offset()));
    }

    @Override
    public void close() {}

    @Override
    public void configure(Map<String, ?> configs) {}
}
