package dev.cdclab.orchestration.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The embedded warehouse server's checkpoint spacing, and settings that override it. */
@Timeout(180)
class WarehouseServerIT {

    @Test
    void checkpointsAfterFourGigabytesOfLogOrFifteenMinutes(@TempDir Path dir) throws Exception {
        try (WarehouseServer ws =
                WarehouseServer.start(dir.resolve("data"), dir.resolve("pg.log"), true)) {
            assertThat(show(ws, "max_wal_size")).isEqualTo("4GB");
            assertThat(show(ws, "checkpoint_timeout")).isEqualTo("15min");
            assertThat(show(ws, "fsync")).isEqualTo("on");
            assertThat(ws.settings())
                    .containsEntry("max_wal_size", WarehouseServer.MAX_WAL_SIZE)
                    .containsEntry("checkpoint_timeout", WarehouseServer.CHECKPOINT_TIMEOUT);
        }
    }

    @Test
    void settingsGivenOverrideTheWarehouseDefaults(@TempDir Path dir) throws Exception {
        try (WarehouseServer ws =
                WarehouseServer.start(
                        dir.resolve("data"),
                        dir.resolve("pg.log"),
                        true,
                        Map.of("max_wal_size", "1GB", "checkpoint_timeout", "5min"))) {
            assertThat(show(ws, "max_wal_size")).isEqualTo("1GB");
            assertThat(show(ws, "checkpoint_timeout")).isEqualTo("5min");
            assertThat(ws.settings()).containsEntry("max_wal_size", "1GB");
        }
    }

    private static String show(WarehouseServer ws, String setting) throws SQLException {
        try (Connection c = ws.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW " + setting)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
