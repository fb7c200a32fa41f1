package dev.cdclab.streams.topology;

import dev.cdclab.change.MalformedRecordException;
import dev.cdclab.streams.debezium.TransactionEvents;
import dev.cdclab.streams.fold.IntervalClock;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns Debezium transaction END events into closing bounds for every fold task. Debezium emits a
 * transaction's END after all of its change events and transactions in commit order, so an END
 * committed at {@code t} says the source has handed over everything committed before {@code t -
 * grace}.
 */
final class WatermarkBroadcaster implements Processor<byte[], byte[], String, Long> {
    private static final Logger LOG = LoggerFactory.getLogger(WatermarkBroadcaster.class);

    private final IntervalClock clock;
    private final long graceMs;
    private ProcessorContext<String, Long> context;
    private long lastForwarded = Long.MIN_VALUE;

    WatermarkBroadcaster(IntervalClock clock, long graceMs) {
        this.clock = clock;
        this.graceMs = graceMs;
    }

    @Override
    public void init(ProcessorContext<String, Long> context) {
        this.context = context;
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        long commitMs;
        try {
            commitMs = TransactionEvents.endCommitMs(record.value());
        } catch (MalformedRecordException e) {
            LOG.warn("Skipping unreadable transaction event: {}", e.getMessage());
            return;
        }
        if (commitMs < 0) {
            return;
        }
        long bound = clock.boundary(commitMs - graceMs);
        if (bound > lastForwarded) {
            lastForwarded = bound;
            context.forward(new Record<>("watermark", bound, record.timestamp()));
        }
    }
}
