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
        return sample(op, "{\"id\":7,\"price\":\"1.50\"}");
    }

    static NetChange sample(NetOperation op, String afterJson) throws Exception {
        List<ColumnSpec> cols =
                List.of(
                        new ColumnSpec("id", "INT4", true, false, null, null, "int32", null),
                        new ColumnSpec("price", "NUMERIC", false, true, 10, 2, "string", null),
                        new ColumnSpec(
                                "qty", "INT4", false, false, null, null, "int32", null, "7"));
        ObjectNode key = (ObjectNode) M.readTree("{\"id\":7}");
        RowImage after =
                op == NetOperation.DELETE
                        ? null
                        : RowImage.ofJson(afterJson.getBytes(StandardCharsets.UTF_8));
        return new NetChange(
                "public.t",
                op,
                key,
                after,
                null,
                List.of("note"),
                Schemas.describe(cols),
                1000,
                2000,
                SourcePosition.postgres(11),
                SourcePosition.postgres(12),
                "99",
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
    void rowImagesGoOutByteForByteWhateverTheirSize() throws Exception {
        // characters of two to four bytes, in an image larger than the generator's 8,000-byte
        // buffer as well as in a small one
        for (int copies : new int[] {1, 1200}) {
            String row =
                    "{\"id\":7,\"price\":\"1.50\",\"note\":\""
                            + "Zürich – 東京 – \uD83D\uDE00 ".repeat(copies)
                            + "\"}";
            NetChange c = sample(NetOperation.UPDATE, row);
            NetChange back = (NetChange) NetChangeCodec.decode(NetChangeCodec.encode(c));
            assertThat(back).isEqualTo(c);
            assertThat(new String(back.after().json(), StandardCharsets.UTF_8)).isEqualTo(row);
        }
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
    void tableEventsRoundTripAndGoToEveryPartition() {
        TableEvent truncate =
                new TableEvent(
                        TableEvent.Kind.TRUNCATE,
                        "public.t",
                        SourcePosition.postgres(40),
                        "9",
                        1_500,
                        1_000,
                        2_000);
        TableEvent rename =
                new TableEvent(
                        TableEvent.Kind.RENAME,
                        "public.t",
                        SourcePosition.postgres(41),
                        "9",
                        1_500,
                        1_000,
                        2_000,
                        "public.u");
        assertThat(NetChangeCodec.decode(NetChangeCodec.encode(truncate))).isEqualTo(truncate);
        assertThat(NetChangeCodec.decode(NetChangeCodec.encode(rename))).isEqualTo(rename);
        assertThat(NetChangeCodec.isBroadcastKey(NetChangeCodec.key(truncate))).isTrue();
        assertThat(NetChangeCodec.isBroadcastKey(NetChangeCodec.key(new IntervalMarker(0, 1, 5))))
                .isTrue();
    }

    @Test
    void aChangeOfATableWithoutAKeyKeepsItsOldImage() throws Exception {
        NetChange s = sample(NetOperation.UPDATE);
        NetChange c =
                new NetChange(
                        s.table(),
                        NetOperation.UPDATE,
                        M.createObjectNode(),
                        s.after(),
                        RowImage.ofJson(
                                "{\"id\":7,\"price\":\"1.00\"}".getBytes(StandardCharsets.UTF_8)),
                        List.of(),
                        s.schema(),
                        s.intervalStartMs(),
                        s.intervalEndMs(),
                        s.firstPosition(),
                        s.lastPosition(),
                        s.transaction(),
                        s.commitMs(),
                        1,
                        false,
                        NetChangeMode.OFF,
                        s.stages(),
                        null);
        NetChange back = (NetChange) NetChangeCodec.decode(NetChangeCodec.encode(c));
        assertThat(back.keyless()).isTrue();
        assertThat(back.before().get("price").asText()).isEqualTo("1.00");
        assertThat(NetChangeCodec.isBroadcastKey(NetChangeCodec.key(back))).isFalse();
    }

    @Test
    void markerRoundTrips() {
        IntervalMarker m = new IntervalMarker(2, 4, 123_000);
        assertThat(NetChangeCodec.decode(NetChangeCodec.encode(m))).isEqualTo(m);
        assertThat(new String(NetChangeCodec.key(m), StandardCharsets.UTF_8))
                .isEqualTo("__marker__/2");
        IntervalMarker said = new IntervalMarker(2, 4, 123_000, 122_000, "interval=0 mode=all");
        assertThat(NetChangeCodec.decode(NetChangeCodec.encode(said))).isEqualTo(said);
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
    void fieldsAReaderDoesNotKnowAreSkippedAndAFieldOfTheWrongTypeIsNamed() throws Exception {
        NetChange c = sample(NetOperation.UPDATE);
        String json = new String(NetChangeCodec.encode(c), StandardCharsets.UTF_8);
        String withNewFields =
                json.replace(
                        "\"op\":",
                        "\"added_later\":{\"a\":[1,{\"b\":null}]},\"flag\":true,\"op\":");
        assertThat(NetChangeCodec.decode(withNewFields.getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(c);

        String objectForNumber = json.replace("\"commit_ms\":1500", "\"commit_ms\":{\"ms\":1500}");
        assertThatThrownBy(
                        () ->
                                NetChangeCodec.decode(
                                        objectForNumber.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("'commit_ms' is not a number");
        String withoutOp = json.replace("\"op\":\"u\",", "");
        assertThat(withoutOp).isNotEqualTo(json);
        assertThatThrownBy(() -> NetChangeCodec.decode(withoutOp.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("missing field 'op'");
        String stringKey = json.replace("\"key\":{\"id\":7}", "\"key\":\"7\"");
        assertThatThrownBy(() -> NetChangeCodec.decode(stringKey.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("'key' is not an object");
    }

    @Test
    void aChangeWithoutAPositionIsMalformed() throws Exception {
        String json =
                new String(
                                NetChangeCodec.encode(sample(NetOperation.UPDATE)),
                                StandardCharsets.UTF_8)
                        .replace(
                                "\"last_position\":\"" + SourcePosition.postgres(12) + "\"",
                                "\"last_position\":0");
        assertThatThrownBy(() -> NetChangeCodec.decode(json.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("last_position");
    }

    @Test
    void positionsSortAsTheirLogs() {
        assertThat(SourcePosition.postgres(0x16B374D000L, 0x16B374D848L))
                .isEqualTo("00000016b374d000/00000016b374d848");
        assertThat(SourcePosition.postgres(9)).isLessThan(SourcePosition.postgres(10));
        assertThat(SourcePosition.postgres(0xFFL)).isLessThan(SourcePosition.postgres(0x100L));
        // two sessions: A writes at 0x200 and commits at 0x500; B, begun later, writes at 0x300
        // and commits first, at 0x400. The log's readers see B, then A (commit order).
        String b = SourcePosition.postgres(0x100, 0x300);
        String a = SourcePosition.postgres(0x400, 0x200);
        String afterBoth = SourcePosition.postgres(0x500, 0x210);
        String snapshotBefore = SourcePosition.postgres(0x90);
        assertThat(List.of(afterBoth, a, snapshotBefore, b).stream().sorted())
                .as("positions sort in commit order, not in the order the changes were logged")
                .containsExactly(snapshotBefore, b, a, afterBoth);
        String snapshot = SourcePosition.sqlServer("00000027:00000758:0005", null, null);
        String first =
                SourcePosition.sqlServer("00000027:00000758:0005", "00000027:00000750:0002", 1L);
        String second =
                SourcePosition.sqlServer("00000027:00000758:0005", "00000027:00000750:0002", 2L);
        String third =
                SourcePosition.sqlServer("00000027:00000758:0005", "00000027:00000751:0001", 1L);
        String laterTx =
                SourcePosition.sqlServer("00000028:00000010:0001", "00000027:00000760:0001", 1L);
        assertThat(List.of(laterTx, third, second, snapshot, first).stream().sorted())
                .containsExactly(snapshot, first, second, third, laterTx);
        assertThat(SourcePosition.sqlServer("0000002A:00000758:0005", null, null))
                .as("upper-case hex is read as the same LSN")
                .isEqualTo(SourcePosition.sqlServer("0000002a:00000758:0005", null, null));
    }

    @Test
    void anEventWithoutAReadablePositionIsNeverPositionZero() {
        assertThatThrownBy(() -> SourcePosition.postgres(0))
                .isInstanceOf(MalformedRecordException.class);
        assertThatThrownBy(() -> SourcePosition.postgres(0, 7))
                .isInstanceOf(MalformedRecordException.class);
        assertThatThrownBy(() -> SourcePosition.sqlServer(null, null, null))
                .isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("commit_lsn");
        assertThatThrownBy(() -> SourcePosition.sqlServer("27:758:5", null, null))
                .isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("not a SQL Server LSN");
    }

    @Test
    void lsnsPrintLikePostgres() {
        assertThat(Lsn.format(0x16B374D848L)).isEqualTo("16/B374D848");
        assertThat(Lsn.parse("16/B374D848")).isEqualTo(0x16B374D848L);
    }
}
