package dev.cdclab.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.change.NetChange;
import dev.cdclab.sink.latency.LatencyRecorder;
import dev.cdclab.sink.warehouse.NetChanges;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The sink's meters: counters read from its stats (tables seen after binding included), and latency
 * histograms that a warm-up's reset does not empty, as Prometheus needs.
 */
class SinkMetersTest {

    @Test
    void countersFollowTheStatsAndTablesSeenLaterAreBound() {
        SinkStats stats = new SinkStats();
        stats.applied("public.before", 2);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        stats.bindTo(registry);
        stats.applied("public.after", 5);
        stats.applied("public.after", 1);
        stats.countRefused();
        stats.applyTook(120);

        assertThat(applied(registry, "public.before")).isEqualTo(2);
        assertThat(applied(registry, "public.after")).isEqualTo(6);
        assertThat(
                        registry.get("cdclab.net.changes.applied")
                                .tag("table", "public.after")
                                .functionCounter()
                                .count())
                .isEqualTo(2);
        assertThat(
                        registry.get("cdclab.dead.letters")
                                .tag("reason", "refused_by_warehouse")
                                .functionCounter()
                                .count())
                .isEqualTo(1);
        assertThat(registry.get("cdclab.warehouse.transaction").timer().count()).isEqualTo(1);
    }

    @Test
    void latencyHistogramsOutliveAReset() {
        LatencyRecorder recorder = new LatencyRecorder();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        recorder.bindTo(registry);
        List<NetChange> batch = List.of(NetChanges.upsert("public.t", 1, "a", null, 5));
        long commitMs = batch.get(0).stages().sourceCommitMs() + 250;
        recorder.recordAll(batch, commitMs);
        recorder.reset();
        recorder.recordAll(batch, commitMs);

        assertThat(recorder.endToEnd().getTotalCount()).isEqualTo(1);
        var e2e = registry.get("cdclab.commit.to.warehouse").timer();
        assertThat(e2e.count()).isEqualTo(2);
        assertThat(e2e.max(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(250);
        for (LatencyRecorder.Stage s : LatencyRecorder.Stage.values()) {
            assertThat(registry.get("cdclab.stage.latency").tag("stage", s.tag()).timer().count())
                    .as(s.tag())
                    .isEqualTo(2);
        }
    }

    private static double applied(SimpleMeterRegistry registry, String table) {
        return registry.get("cdclab.changes.applied").tag("table", table).functionCounter().count();
    }
}
