package dev.cdclab.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The connector configuration cdc-lab registers, and its printable form. */
class DebeziumConnectorConfigTest {
    private static CaptureConfig config(Map<String, String> raw) {
        return CaptureConfig.of(raw);
    }

    @Test
    void routesEveryCapturedTableIntoOneTopicWithTheHeartbeatRows() {
        Map<String, String> m =
                DebeziumConnectorConfig.of(
                        config(
                                Map.of(
                                        "source.password",
                                        "pw",
                                        "partitions",
                                        "4",
                                        "schemas",
                                        "public,sales")));
        assertThat(m)
                .containsEntry("plugin.name", "pgoutput")
                .containsEntry("publication.autocreate.mode", "disabled")
                .containsEntry("schema.include.list", "public,sales,cdc_lab")
                .containsEntry(
                        "transforms.route.type", "io.debezium.transforms.ToLogicalTopicRouter")
                .containsEntry("transforms.route.topic.replacement", "cdclab.changes")
                .containsEntry("heartbeat.action.query", "UPDATE cdc_lab.heartbeat SET ts = now()")
                .containsEntry("topic.creation.default.partitions", "4")
                .containsEntry("key.converter.schemas.enable", "false")
                .containsEntry("value.converter.schemas.enable", "true")
                .containsEntry("statistics.metrics.enabled", "false")
                .containsEntry("database.password", "pw");
        assertThat("cdclab.cdc_lab.heartbeat")
                .matches(m.get("transforms.route.topic.regex").replace("\\\\", "\\"));
        assertThat("cdclab.sales.orders")
                .matches(m.get("transforms.route.topic.regex").replace("\\\\", "\\"));
        assertThat("cdclab.other.orders")
                .doesNotMatch(m.get("transforms.route.topic.regex").replace("\\\\", "\\"));
    }

    @Test
    void sourceTypesGoIntoTheEventOnlyWhereTheConnectSchemaDoesNotSayThem() {
        Map<String, String> m = DebeziumConnectorConfig.of(config(Map.of()));
        assertThat(m)
                .containsEntry("interval.handling.mode", "string")
                .containsEntry("hstore.handling.mode", "json")
                .containsEntry("include.unknown.datatypes", "true");
        // as Debezium matches it: each comma-separated regex, whole and case-insensitive,
        // against "<table id>.<type name>"
        List<java.util.regex.Pattern> regexes =
                java.util.Arrays.stream(m.get("datatype.propagate.source.type").split(","))
                        .map(
                                r ->
                                        java.util.regex.Pattern.compile(
                                                r, java.util.regex.Pattern.CASE_INSENSITIVE))
                        .toList();
        java.util.function.Predicate<String> propagated =
                type ->
                        regexes.stream()
                                .anyMatch(
                                        p ->
                                                p.matcher("lab.public.\"odd . name\"." + type)
                                                        .matches());
        for (String type :
                List.of(
                        "numeric",
                        "_numeric",
                        "money",
                        "bit",
                        "varbit",
                        "inet",
                        "_cidr",
                        "macaddr8",
                        "int4range",
                        "_tstzrange",
                        "mood",
                        "_posint",
                        "address")) {
            assertThat(propagated).as(type).accepts(type);
        }
        for (String type :
                List.of(
                        "int4",
                        "_int4",
                        "text",
                        "_varchar",
                        "bpchar",
                        "timestamptz",
                        "_date",
                        "jsonb",
                        "bytea",
                        "interval",
                        "uuid",
                        "citext",
                        "hstore",
                        "_bool",
                        "_tsvector",
                        "_jsonb",
                        "point")) {
            assertThat(propagated).as(type).rejects(type);
        }
    }

    @Test
    void printedConfigCarriesNoPassword() {
        Map<String, String> m =
                DebeziumConnectorConfig.of(config(Map.of("source.password", "hunter2")));
        String json = DebeziumConnectorConfig.toJson("c", DebeziumConnectorConfig.redacted(m));
        assertThat(json)
                .doesNotContain("hunter2")
                .contains("${env:CDCLAB_SOURCE_PASSWORD}")
                .contains("\"name\" : \"c\"");
    }

    @Test
    void debeziumPassThroughKeysWin() {
        Map<String, String> m =
                DebeziumConnectorConfig.of(
                        config(Map.of("debezium.poll.interval.ms", "5", "debezium.foo", "bar")));
        assertThat(m).containsEntry("poll.interval.ms", "5").containsEntry("foo", "bar");
    }

    @Test
    void heartbeatRowsCoverEveryPartitionOnce() {
        for (int n : new int[] {1, 2, 5, 12}) {
            List<Integer> ids = HeartbeatRows.idsFor("cdclab", n);
            assertThat(ids).hasSize(n).doesNotContainNull();
            assertThat(new HashSet<>(ids)).hasSize(n);
        }
    }
}
