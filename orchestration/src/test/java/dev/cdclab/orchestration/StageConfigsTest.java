package dev.cdclab.orchestration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.capture.CaptureConfig;
import dev.cdclab.config.RunNames;
import dev.cdclab.orchestration.infra.InfraKind;
import dev.cdclab.orchestration.infra.SourceEndpoint;
import dev.cdclab.sink.SinkConfig;
import dev.cdclab.streams.NetChangeConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StageConfigsTest {
    private static final SourceEndpoint SOURCE =
            SourceEndpoint.of("jdbc:postgresql://127.0.0.1:5544/app", "app", "secret");

    private static PipelineSpec spec(Pipeline.Builder b) {
        return b.workDir(Path.of("/tmp/cdclab-spec")).runId("r1").spec();
    }

    @Test
    void everyStageGetsTheRunsNamesAndTheSharedSettings() {
        PipelineSpec spec =
                spec(
                        StageSettings.of(
                                        Map.of(
                                                "streams.partitions", "3",
                                                "streams.interval", "2s"))
                                .applyTo(Pipeline.builder()));
        RunNames names = RunNames.of("r1");
        CaptureConfig c = StageConfigs.capture(spec, InfraKind.EMBEDDED, SOURCE, "k:9092");
        NetChangeConfig n = StageConfigs.streams(spec, "k:9092");
        SinkConfig s = StageConfigs.sink(spec, "k:9092");

        assertThat(c.get(CaptureConfig.SLOT)).isEqualTo(names.slot());
        assertThat(c.get(CaptureConfig.TOPIC_PREFIX))
                .isEqualTo(n.get(NetChangeConfig.TOPIC_PREFIX));
        assertThat(n.changeTopic()).isEqualTo(names.changeTopic());
        assertThat(s.get(SinkConfig.TOPIC)).isEqualTo(n.get(NetChangeConfig.NET_CHANGES_TOPIC));
        // the change topic is made with as many partitions as Streams has tasks
        assertThat(c.get(CaptureConfig.PARTITIONS)).isEqualTo(3);
        assertThat(n.get(NetChangeConfig.PARTITIONS)).isEqualTo(3);
        assertThat(n.get(NetChangeConfig.INTERVAL)).isEqualTo(Duration.ofSeconds(2));
        assertThat(s.get(SinkConfig.WAREHOUSE_URL))
                .isEqualTo("jdbc:duckdb:/tmp/cdclab-spec/warehouse.duckdb");
    }

    @Test
    void onlyASourceThePipelineStartsIsChangedForCapture() {
        PipelineSpec spec = spec(Pipeline.builder());
        CaptureConfig embedded = StageConfigs.capture(spec, InfraKind.EMBEDDED, SOURCE, "k:1");
        CaptureConfig external = StageConfigs.capture(spec, InfraKind.EXTERNAL, SOURCE, "k:1");
        assertThat(embedded.get(CaptureConfig.CAPTURE_ROLE)).isEqualTo(StageConfigs.CAPTURE_ROLE);
        assertThat(embedded.get(CaptureConfig.KEYLESS_TABLES))
                .isEqualTo(CaptureConfig.KeylessTables.FULL);
        assertThat(external.get(CaptureConfig.CAPTURE_ROLE))
                .isEqualTo(CaptureConfig.CAPTURE_ROLE.defaultValue());
        assertThat(external.get(CaptureConfig.KEYLESS_TABLES))
                .isEqualTo(CaptureConfig.KEYLESS_TABLES.defaultValue());
    }

    @Test
    void whatTheNetChangeAppWritesIsCompressedUnlessTheUserSaysOtherwise() {
        assertThat(StageConfigs.streams(spec(Pipeline.builder()), "k:1").kafkaOverrides())
                .containsEntry("producer.compression.type", StageConfigs.KAFKA_COMPRESSION);
        PipelineSpec none =
                spec(Pipeline.builder().streams("kafka.producer.compression.type", "none"));
        assertThat(StageConfigs.streams(none, "k:1").kafkaOverrides())
                .containsEntry("producer.compression.type", "none");
    }

    @Test
    void aStagesOwnSettingsWinAndTheSpecDoesNotFollowItsBuilder() {
        Pipeline.Builder b =
                Pipeline.builder().sink("truncate", "skip").capture("slot.name", "mine");
        PipelineSpec spec = spec(b);
        b.sink("truncate", "stop");
        assertThat(StageConfigs.sink(spec, "k:1").get(SinkConfig.TRUNCATE))
                .isEqualTo(SinkConfig.TruncateHandling.SKIP);
        assertThat(
                        StageConfigs.capture(spec, InfraKind.EXTERNAL, SOURCE, "k:1")
                                .get(CaptureConfig.SLOT))
                .isEqualTo("mine");
    }
}
