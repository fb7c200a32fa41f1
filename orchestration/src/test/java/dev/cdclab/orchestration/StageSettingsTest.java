package dev.cdclab.orchestration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdclab.config.ConfigException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StageSettingsTest {

    @Test
    void settingsSplitByStageWithoutTheirPrefix() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("capture.heartbeat", "500ms");
        m.put("streams.marker.interval", "10ms");
        m.put("sink.truncate", "skip");
        m.put("infra.kind", "embedded");
        StageSettings s = StageSettings.of(m);
        assertThat(s.capture()).containsExactly(Map.entry("heartbeat", "500ms"));
        assertThat(s.streams()).containsExactly(Map.entry("marker.interval", "10ms"));
        assertThat(s.sink()).containsExactly(Map.entry("truncate", "skip"));
        assertThat(s.infra()).containsExactly(Map.entry("kind", "embedded"));
    }

    @Test
    void aKeyOfNoStageIsRefusedByName() {
        assertThatThrownBy(() -> StageSettings.of(Map.of("stream.interval", "1s")))
                .isInstanceOf(ConfigException.class)
                .hasMessage(
                        "config 'stream.interval': a setting starts with capture., streams.,"
                                + " sink. or infra.");
    }

    @Test
    void aKeyOrValueItsStageDoesNotTakeIsRefusedWithANearMiss() {
        assertThatThrownBy(() -> StageSettings.check("sink.truncat", "skip"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("config 'sink.truncat': unknown key")
                .hasMessageContaining("truncate");
        assertThatThrownBy(() -> StageSettings.check("sink.truncate", "sometimes"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("config 'sink.truncate': ");
        StageSettings.check("streams.interval", "2s");
    }

    @Test
    void keysThatShapeTheWholePipelineBecomeThePipelinesOwn() {
        Pipeline.Builder b =
                StageSettings.of(
                                Map.of(
                                        "streams.partitions", "3",
                                        "streams.interval", "2s",
                                        "streams.marker.interval", "10ms"))
                        .applyTo(Pipeline.builder());
        // capture creates the change topic with as many partitions as Streams reads
        assertThat(b.partitions()).isEqualTo(3);
        assertThat(b.interval()).isEqualTo(Duration.ofSeconds(2));
    }
}
