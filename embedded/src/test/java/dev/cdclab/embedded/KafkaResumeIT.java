package dev.cdclab.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Starting a stopped node again fails at once, naming the node, when its process ends. */
@Timeout(120)
class KafkaResumeIT {

    @Test
    void aNodeThatEndsWhileStartingFailsTheResumeAtOnce() {
        AtomicInteger starts = new AtomicInteger();
        KafkaBroker.NodeRunner firstRunsThenDies =
                (id, settings) -> {
                    if (starts.incrementAndGet() == 1) {
                        return KafkaBroker.IN_THIS_JVM.start(id, settings);
                    }
                    return new KafkaBroker.RunningNode() {
                        @Override
                        public void stop() {}

                        @Override
                        public void kill() {}

                        @Override
                        public boolean alive() {
                            return false;
                        }

                        @Override
                        public Path logFile() {
                            return Path.of("node-1.log");
                        }
                    };
                };
        try (KafkaBroker kafka = KafkaBroker.builder().runner(firstRunsThenDies).start()) {
            kafka.stop(1);
            long started = System.nanoTime();
            assertThatThrownBy(kafka::resume)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("Kafka node 1 ended while starting (see node-1.log)");
            // not the minute or two a node that never answers is given
            assertThat((System.nanoTime() - started) / 1_000_000).isLessThan(10_000);
        }
    }
}
