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

    @Test
    void changesKeptPendingAreRecordedAsTheChangesThemselves() {
        List<NetChange> batch = new java.util.ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            batch.add(NetChanges.upsert("public.t", i, "a", null, 5 + i));
        }
        LatencyRecorder direct = new LatencyRecorder();
        direct.recordAll(batch, 1_700_000_000_100L);
        LatencyRecorder deferred = new LatencyRecorder();
        LatencyRecorder.Pending pending = new LatencyRecorder.Pending();
        batch.forEach(pending::add);
        assertThat(pending.size()).isEqualTo(3000);
        deferred.recordAll(pending, 1_700_000_000_100L);
        assertThat(pending.size()).isZero();
        assertThat(deferred.endToEnd()).isEqualTo(direct.endToEnd());
        assertThat(deferred.fromGenerator()).isEqualTo(direct.fromGenerator());
        assertThat(deferred.stages()).isEqualTo(direct.stages());
        assertThat(deferred.recorded()).isEqualTo(direct.recorded()).isEqualTo(3000);
    }
}
