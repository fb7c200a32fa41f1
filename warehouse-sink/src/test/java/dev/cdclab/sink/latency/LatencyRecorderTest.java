package dev.cdclab.sink.latency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.change.NetChange;
import dev.cdclab.sink.warehouse.NetChanges;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Resets taken while the sink records never split one change across the histograms. */
class LatencyRecorderTest {

    @Test
    @Timeout(60)
    void aResetNeverFallsBetweenTheHistogramsOfOneChange() throws Exception {
        LatencyRecorder recorder = new LatencyRecorder();
        List<NetChange> batch = List.of(NetChanges.upsert("public.t", 1, "a", null, 5));
        AtomicBoolean done = new AtomicBoolean();
        Thread writer =
                new Thread(
                        () -> {
                            while (!done.get()) {
                                recorder.recordAll(batch, 1_700_000_000_100L);
                            }
                        });
        writer.start();
        try {
            for (int i = 0; i < 2_000; i++) {
                recorder.reset();
                // the recorder's monitor is its documented lock: holding it, no change is half
                // recorded, so every stage counted exactly the changes end-to-end counted
                synchronized (recorder) {
                    long n = recorder.endToEnd().getTotalCount();
                    assertThat(recorder.stages().values())
                            .allSatisfy(h -> assertThat(h.getTotalCount()).isEqualTo(n));
                }
            }
        } finally {
            done.set(true);
            writer.join();
        }
    }
}
