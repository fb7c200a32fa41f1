package dev.cdclab.change;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The net-change topic's JSON encoding: round trips, shared schemas, malformed input. */
class NetChangeCodecTest {
    private static final ObjectMapper M = new ObjectMapper();

    static NetChange sample(NetOperation op) throws Exception {
        List<ColumnSpec> cols =
                List.of(
                        new ColumnSpec("id", "INT4", true, false, null, null, "int32", null),
                        new ColumnSpec("price", "NUMERIC", false, true, 10, 2, "string", null));
        ObjectNode key = (ObjectNode) M.readTree("{\"id\":7}");
        RowImage after =
                op == NetOperation.DELETE
                        ? null
                        : RowImage.ofJson(
                                "{\"id\":7,\"price\":\"1.50\"}".getBytes(StandardCharsets.UTF_8));
        return new NetChange(
                "public.t",
                op,
                key,
                after,
                List.of("note"),
                Schemas.describe(cols),
                1000,
                2000,
                11,
                12,
                99,
                1500,
                3,
                false,
                NetChangeMode.ALL,
                new StageTimes(1500, 1501, 1502, 1503),
                1_499_999L);
    }

    @Test
    void netChangeRoundTrips() throws Exception {
        NetChange c = sample(NetOperation.UPDATE);
        NetChangeRecord back = NetChangeCodec.decode(NetChangeCodec.encode(c));
        assertThat(back).isEqualTo(c);
        assertThat(new String(NetChangeCodec.key(c), StandardCharsets.UTF_8))
                .isEqualTo("public.t/{\"id\":7}");
    }

    @Test
    void deleteRoundTripsWithoutAnImage() throws Exception {
        NetChange c = sample(NetOperation.DELETE);
        NetChange back = (NetChange) NetChangeCodec.decode(NetChangeCodec.encode(c));
        assertThat(back.after()).isNull();
        assertThat(back.op()).isEqualTo(NetOperation.DELETE);
    }

    @Test
    void decodedChangesShareOneColumnListPerSchema() throws Exception {
        byte[] bytes = NetChangeCodec.encode(sample(NetOperation.INSERT));
        NetChange a = (NetChange) NetChangeCodec.decode(bytes);
        NetChange b = (NetChange) NetChangeCodec.decode(bytes);
        assertThat(a.columns()).isSameAs(b.columns());
    }

    @Test
    void markerRoundTrips() {
        IntervalMarker m = new IntervalMarker(2, 4, 123_000);
        assertThat(NetChangeCodec.decode(NetChangeCodec.encode(m))).isEqualTo(m);
        assertThat(new String(NetChangeCodec.key(m), StandardCharsets.UTF_8))
                .isEqualTo("__marker__/2");
    }

    @Test
    void malformedRecordsAreRejectedWithAReason() {
        assertThatThrownBy(() -> NetChangeCodec.decode("nope".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("not JSON");
        assertThatThrownBy(() -> NetChangeCodec.decode("[1]".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("not a JSON object");
        assertThatThrownBy(
                        () ->
                                NetChangeCodec.decode(
                                        "{\"table\":\"t\"}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("columns");
        assertThatThrownBy(() -> NetChangeCodec.decode(null))
                .isInstanceOf(MalformedRecordException.class);
    }

    @Test
    void lsnsPrintLikePostgres() {
        assertThat(Lsn.format(0x16B374D848L)).isEqualTo("16/B374D848");
        assertThat(Lsn.parse("16/B374D848")).isEqualTo(0x16B374D848L);
    }
}
