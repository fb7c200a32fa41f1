package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.orchestration.verify.VerificationResult;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A subset of captured columns (white paper table 6) reaches the warehouse and verifies. */
@Timeout(300)
class CapturedColumnsIT {
    @TempDir Path dir;

    @Test
    void onlyTheCapturedColumnsAreCopiedAndCompared() throws Exception {
        try (Pipeline p =
                Pipeline.builder()
                        .workDir(dir.resolve("cols"))
                        .runId("cols" + Long.toString(System.nanoTime() % 100_000, 36))
                        .capture("captured.columns", "wide:id,a")
                        .beforeCapture(
                                src -> {
                                    try (Connection c = src.connect();
                                            Statement s = c.createStatement()) {
                                        s.execute(
                                                "CREATE TABLE wide (id int PRIMARY KEY, a int, b text)");
                                        s.execute("INSERT INTO wide VALUES (1, 1, 'x')");
                                    }
                                })
                        .start()) {
            try (Connection c = p.sourceConnection();
                    Statement s = c.createStatement()) {
                s.execute("INSERT INTO wide VALUES (2, 2, 'y')");
                s.execute("UPDATE wide SET a = 3, b = 'z' WHERE id = 1");
            }
            p.awaitCaughtUp(Duration.ofSeconds(60));
            VerificationResult v = p.verify();
            assertThat(v.matches()).as(v.summary()).isTrue();
            List<String> columns = new ArrayList<>();
            try (Connection wh = p.warehouseConnection();
                    Statement s = wh.createStatement();
                    ResultSet rs =
                            s.executeQuery(
                                    "SELECT column_name FROM information_schema.columns"
                                            + " WHERE table_name = 'wide'")) {
                while (rs.next()) {
                    columns.add(rs.getString(1));
                }
            }
            assertThat(columns).contains("id", "a").doesNotContain("b");
        }
    }
}
