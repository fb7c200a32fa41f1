package dev.cdclab.streams.debezium;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.change.ColumnSpec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An array column keeps its element's Connect type and name, as Debezium 3.7 writes them. */
class ArrayColumnsTest {
    /** A flat event of Debezium 3.7's PostgreSQL connector, trimmed to three columns. */
    private static final String EVENT =
            "{\"schema\":{\"type\":\"struct\",\"fields\":["
                    + "{\"type\":\"int32\",\"optional\":false,\"field\":\"id\"},"
                    + "{\"type\":\"array\",\"items\":{\"type\":\"int32\",\"optional\":true,"
                    + "\"name\":\"io.debezium.time.Date\",\"version\":1},\"optional\":true,"
                    + "\"parameters\":{\"__debezium.source.column.type\":\"_DATE\","
                    + "\"__debezium.source.column.length\":\"13\","
                    + "\"__debezium.source.column.scale\":\"0\","
                    + "\"__debezium.source.column.name\":\"d\"},\"field\":\"d\"},"
                    + "{\"type\":\"array\",\"items\":{\"type\":\"string\",\"optional\":false,"
                    + "\"name\":\"io.debezium.data.Enum\",\"version\":1,"
                    + "\"parameters\":{\"allowed\":\"sad,ok,happy\"}},\"optional\":true,"
                    + "\"field\":\"moods\"},"
                    + "{\"type\":\"array\",\"items\":{\"type\":\"int64\",\"optional\":true},"
                    + "\"optional\":true,\"field\":\"big\"},"
                    + "{\"type\":\"string\",\"optional\":true,\"field\":\"__op\"},"
                    + "{\"type\":\"string\",\"optional\":true,\"field\":\"__schema\"},"
                    + "{\"type\":\"string\",\"optional\":true,\"field\":\"__table\"},"
                    + "{\"type\":\"int64\",\"optional\":true,\"field\":\"__lsn\"},"
                    + "{\"type\":\"int64\",\"optional\":true,\"field\":\"__txId\"}],"
                    + "\"optional\":false,\"name\":\"cdclab.public.t.Value\"},"
                    + "\"payload\":{\"id\":1,\"d\":[17109,17110,null],\"moods\":[\"happy\"],"
                    + "\"big\":[9000000000],\"__op\":\"c\",\"__schema\":\"public\","
                    + "\"__table\":\"t\",\"__lsn\":26684792,\"__txId\":754}}";

    @Test
    void elementsAreKept() {
        DebeziumEventReader reader =
                new DebeziumEventReader(DebeziumEventReader.DEFAULT_PLACEHOLDER, null);
        ChangeEvent e =
                reader.read(
                        "{\"id\":1}".getBytes(StandardCharsets.UTF_8),
                        EVENT.getBytes(StandardCharsets.UTF_8),
                        1_000);
        List<ColumnSpec> cols = e.schema().columns();
        assertThat(cols).extracting(ColumnSpec::name).containsExactly("id", "d", "moods", "big");
        assertThat(cols.get(0).elementConnectType()).isNull();
        assertThat(cols.get(1).element())
                .isEqualTo(
                        new ColumnSpec(
                                "d", "DATE", false, true, 13, 0, "int32", "io.debezium.time.Date"));
        assertThat(cols.get(2).elementSemanticType()).isEqualTo("io.debezium.data.Enum");
        assertThat(cols.get(3).element().sourceType()).isEqualTo("INT64");
        assertThat(cols.get(3).element().connectType()).isEqualTo("int64");
    }
}
