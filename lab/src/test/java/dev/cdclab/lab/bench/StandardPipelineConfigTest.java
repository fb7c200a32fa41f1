package dev.cdclab.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The standard pipeline's connectors differ from cdc-lab's only where the JDBC sink needs it. */
class StandardPipelineConfigTest {

    @Test
    void sourceKeepsCaptureSettingsAndDropsCdcLabsRoutingAndFlattening() {
        Map<String, String> ours = new LinkedHashMap<>();
        ours.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        ours.put("slot.name", "cdclab_x");
        ours.put("max.batch.size", "4096");
        ours.put("transforms", "route,flatten");
        ours.put("transforms.route.type", "dev.cdclab.capture.ToLogicalTopicRouter");
        ours.put("decimal.handling.mode", "string");
        ours.put("datatype.propagate.source.type", ".+");
        ours.put("interval.handling.mode", "string");
        ours.put("include.unknown.datatypes", "true");
        ours.put("key.converter.schemas.enable", "false");

        Map<String, String> source = StandardPipelineConfig.source(ours);

        assertThat(source)
                .containsEntry("slot.name", "cdclab_x")
                .containsEntry("max.batch.size", "4096")
                .containsEntry("key.converter.schemas.enable", "true")
                .doesNotContainKeys(
                        "transforms",
                        "transforms.route.type",
                        "decimal.handling.mode",
                        "datatype.propagate.source.type",
                        "interval.handling.mode",
                        "include.unknown.datatypes");
    }

    @Test
    void sinkUpsertsByRecordKeyWithDeletesAndMatchesOnlyTheCapturedSchemas() {
        Map<String, String> sink =
                StandardPipelineConfig.sink(
                        "lab.1", List.of("public"), 4, "jdbc:postgresql://h/w", "u", "secret");

        assertThat(sink)
                .containsEntry("tasks.max", "4")
                .containsEntry("consumer.override.max.poll.records", sink.get("batch.size"))
                .containsEntry("use.reduction.buffer", "true")
                .containsEntry("insert.mode", "upsert")
                .containsEntry("delete.enabled", "true")
                .containsEntry("primary.key.mode", "record_key")
                .containsEntry(
                        "connection.url", "jdbc:postgresql://h/w?reWriteBatchedInserts=true");
        Pattern topics = Pattern.compile(sink.get("topics.regex"));
        assertThat(topics.matcher("lab.1.public.orders").matches()).isTrue();
        assertThat(topics.matcher("labX1.public.orders").matches()).isFalse();
        assertThat(topics.matcher("lab.1.other.orders").matches()).isFalse();
        assertThat(StandardPipelineConfig.masked(sink))
                .containsEntry("connection.password", "********");
    }
}
