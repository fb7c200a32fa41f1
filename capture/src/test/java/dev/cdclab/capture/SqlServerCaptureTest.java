package dev.cdclab.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.sql.Timestamp;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** SQL Server capture without a SQL Server: the capture job's report and LSN text. */
class SqlServerCaptureTest {
    private static SqlServerCapture.ScanSession session(
            long startS, long endS, long commands, long latencyS) {
        return new SqlServerCapture.ScanSession(
                new Timestamp(startS * 1000),
                endS < 0 ? null : new Timestamp(endS * 1000),
                Math.max(0, endS - startS),
                commands / 2,
                commands,
                latencyS,
                0);
    }

    @Test
    void cdcThroughputCountsFromTheFirstScanMoreThanFiveSecondsBehind() {
        CaptureJobReport r =
                SqlServerCapture.summarize(
                        List.of(
                                session(0, 5, 1000, 1),
                                session(5, 10, 2000, 6),
                                session(10, 20, 4000, 9),
                                session(20, -1, 500, 0)));
        assertThat(r.sessions()).isEqualTo(4);
        assertThat(r.commands()).isEqualTo(7500);
        assertThat(r.maxLatencySeconds()).isEqualTo(9);
        // sessions 2 and 3: 6,000 commands from t=5 to t=20
        assertThat(r.commandsPerSecondWhileBehind()).isCloseTo(400.0, within(1e-9));
        // sessions 1 to 3: 7,000 commands from t=0 to t=20
        assertThat(r.commandsPerSecond()).isCloseTo(350.0, within(1e-9));
    }

    @Test
    void noThroughputWhileBehindWhenNoScanWasBehind() {
        CaptureJobReport r = SqlServerCapture.summarize(List.of(session(0, 5, 100, 0)));
        assertThat(r.commandsPerSecondWhileBehind()).isNull();
        assertThat(r.asMap()).containsEntry("command_count", 100L);
    }

    @Test
    void lsnsAreWrittenAsDebeziumWritesThem() {
        byte[] lsn = {0, 0, 0, 0x27, 0, 0, 0x07, 0x58, 0, 0x03};
        assertThat(SqlServerCapture.lsnText(lsn)).isEqualTo("00000027:00000758:0003");
    }

    @Test
    void theHeartbeatRowsLandOnEveryPartitionOfTheRoutedTopic() {
        SqlServerCapture c =
                (SqlServerCapture)
                        CaptureSource.of(
                                CaptureConfig.of(
                                        Map.of(
                                                "source.kind",
                                                "sqlserver",
                                                "source.database",
                                                "shop",
                                                "topic.prefix",
                                                "p1",
                                                "partitions",
                                                "4")));
        assertThat(c.sourceTopic("cdc_lab", "heartbeat")).isEqualTo("p1.shop.cdc_lab.heartbeat");
        assertThat(c.heartbeatIds()).hasSize(4).doesNotHaveDuplicates();
        assertThat(c.heartbeatIds())
                .isNotEqualTo(HeartbeatRows.idsFor("p1", 4))
                .as("the database in the topic name moves the hashes");
    }
}
