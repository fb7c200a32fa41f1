package dev.cdclab.streams.topology;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.streams.NetChangeConfig;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

/** The Kafka Streams settings the net-change app derives from its own. */
class StreamsPropertiesTest {

    private static Map<Object, Object> properties(Map<String, String> settings) {
        Map<String, String> raw = new HashMap<>(settings);
        raw.put("bootstrap.servers", "127.0.0.1:9092");
        raw.put("application.id", "props");
        return NetChangeTopology.streamsProperties(NetChangeConfig.of(raw));
    }

    @Test
    void theThreadWakesFromAnIdlePollAsOftenAsMarkersMayGoOut() {
        assertThat(properties(Map.of()).get(StreamsConfig.POLL_MS_CONFIG)).isEqualTo(5L);
        assertThat(properties(Map.of("marker.interval", "20ms")).get(StreamsConfig.POLL_MS_CONFIG))
                .isEqualTo(20L);
        assertThat(properties(Map.of("marker.interval", "0")).get(StreamsConfig.POLL_MS_CONFIG))
                .as("a marker at every close: poll as briefly as Kafka Streams allows")
                .isEqualTo(1L);
    }

    @Test
    void aKafkaStreamsSettingGivenByTheUserWins() {
        assertThat(properties(Map.of("kafka.poll.ms", "100")).get(StreamsConfig.POLL_MS_CONFIG))
                .isEqualTo("100");
    }
}
