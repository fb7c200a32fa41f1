package dev.cdclab.sink.warehouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Checkpoints of a DuckDB warehouse run beside the writer, not in its commits. */
@Timeout(60)
class DuckDbCheckpointerTest {
    @TempDir Path dir;

    private Connection writer(String threshold) throws SQLException {
        Connection c =
                DriverManager.getConnection(
                        "jdbc:duckdb:"
                                + dir.resolve("w.duckdb")
                                + ";checkpoint_threshold="
                                + threshold);
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id BIGINT, v VARCHAR)");
        }
        c.setAutoCommit(false);
        return c;
    }

    private long logBytes() throws Exception {
        Path wal = dir.resolve("w.duckdb.wal");
        return Files.exists(wal) ? Files.size(wal) : 0;
    }

    /** Commits rows {@code id} to {@code id + 999}, about 100 kB of log; returns the next id. */
    private static long commitThousandRows(Connection c, Statement s, long id) throws SQLException {
        s.execute(
                "INSERT INTO t SELECT range, repeat('x', 100) FROM range("
                        + id
                        + ", "
                        + (id + 1_000)
                        + ")");
        c.commit();
        return id + 1_000;
    }

    @Test
    void aLogPastThreeQuartersOfTheThresholdIsCheckpointedWithoutAnotherCommit() throws Exception {
        try (Connection c = writer("4MB");
                DuckDbCheckpointer checkpointer = DuckDbCheckpointer.start(c).orElseThrow();
                Statement s = c.createStatement()) {
            // DuckDB gives 4 MB back as 3.8 MiB
            assertThat(checkpointer.triggerBytes()).isBetween(2_950_000L, 3_000_000L);
            long id = 0;
            // each transaction adds about 100 kB to the log: the writing stops past the trigger,
            // well short of the 4 MB at which DuckDB would checkpoint in the writer's commit
            while (logBytes() < checkpointer.triggerBytes() && checkpointer.checkpoints() == 0) {
                id = commitThousandRows(c, s, id);
            }
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(
                            () -> {
                                assertThat(checkpointer.checkpoints()).isPositive();
                                assertThat(logBytes()).isLessThan(1_000_000);
                            });
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM t")) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(id);
            }
        }
    }

    @Test
    void aWriterThatStartsItsNextTransactionAtOnceIsStillCheckpointedBesideIt() throws Exception {
        try (Connection c = writer("8MB");
                DuckDbCheckpointer checkpointer = DuckDbCheckpointer.start(c).orElseThrow();
                Statement s = c.createStatement()) {
            s.execute("INSERT INTO t SELECT range, 'x' FROM range(1000)");
            c.commit();
            long id = 1_000;
            long transactions = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
            // each transaction updates first, so it holds DuckDB's checkpoint lock from its first
            // statement to its commit (an UPDATE takes it, a DELETE or an INSERT does not), and
            // the next begins at once: a checkpoint that does not wait for the lock finds it
            // taken nearly every time, and DuckDB's own checkpoint in a commit (at 8 MB) empties
            // the log before the background one gets its turn
            while (checkpointer.checkpoints() == 0 && System.nanoTime() < deadline) {
                s.execute("UPDATE t SET v = 'y' WHERE id = " + (id % 1_000));
                s.execute(
                        "INSERT INTO t SELECT range, repeat('x', 100) FROM range("
                                + id
                                + ", "
                                + (id + 100)
                                + ")");
                c.commit();
                id += 100;
                transactions++;
            }
            assertThat(checkpointer.checkpoints())
                    .as("after %d transactions", transactions)
                    .isPositive();
        }
    }

    @Test
    void closingCancelsACheckpointThatWaitsForAWritersTransaction() throws Exception {
        try (Connection c = writer("4MB");
                Statement s = c.createStatement()) {
            long id = 0;
            while (logBytes() < 3_000_000) {
                id = commitThousandRows(c, s, id);
            }
            // an UPDATE holds DuckDB's checkpoint lock until the transaction ends
            s.execute("UPDATE t SET v = 'y' WHERE id = 0");
            DuckDbCheckpointer checkpointer = DuckDbCheckpointer.start(c).orElseThrow();
            await().atMost(Duration.ofSeconds(10)).until(checkpointer::checkpointing);
            long t0 = System.nanoTime();
            checkpointer.close();
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
            assertThat(checkpointer.running()).isFalse();
            assertThat(checkpointer.checkpoints()).isZero();
            c.commit();
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM t WHERE v = 'y'")) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(1);
            }
        }
    }

    @Test
    void writesCheckpointedWhileTheWriterKeepsWritingAreAllThereAfterReopening() throws Exception {
        TreeMap<Long, String> expected = new TreeMap<>();
        Random random = new Random(7);
        long checkpoints;
        try (Connection c = writer("256KB");
                DuckDbCheckpointer checkpointer = DuckDbCheckpointer.start(c).orElseThrow();
                Statement s = c.createStatement()) {
            for (int tx = 0; tx < 400 && !(tx >= 100 && checkpointer.checkpoints() >= 3); tx++) {
                for (int i = 0; i < 20; i++) {
                    long key = random.nextInt(2_000);
                    if (random.nextInt(4) == 0) {
                        s.execute("DELETE FROM t WHERE id = " + key);
                        expected.remove(key);
                    } else {
                        String v = "v" + tx + "-" + i + "-" + "y".repeat(random.nextInt(200));
                        s.execute("DELETE FROM t WHERE id = " + key);
                        s.execute("INSERT INTO t VALUES (" + key + ", '" + v + "')");
                        expected.put(key, v);
                    }
                }
                c.commit();
            }
            checkpoints = checkpointer.checkpoints();
        }
        assertThat(checkpoints).isGreaterThanOrEqualTo(3);
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + dir.resolve("w.duckdb"));
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, v FROM t ORDER BY id")) {
            TreeMap<Long, String> found = new TreeMap<>();
            while (rs.next()) {
                assertThat(found.put(rs.getLong(1), rs.getString(2))).isNull();
            }
            assertThat(found).isEqualTo(expected);
        }
    }

    @Test
    void closingStopsTheThreadAndReleasesItsConnection() throws Exception {
        try (Connection c = writer("16MB")) {
            DuckDbCheckpointer checkpointer = DuckDbCheckpointer.start(c).orElseThrow();
            assertThat(checkpointer.running()).isTrue();
            checkpointer.close();
            assertThat(checkpointer.running()).isFalse();
        }
        // the file is free again: a connection with other settings would be refused otherwise
        try (Connection c =
                DriverManager.getConnection(
                        "jdbc:duckdb:" + dir.resolve("w.duckdb") + ";checkpoint_threshold=1GB")) {
            assertThat(c.isClosed()).isFalse();
        }
    }

    @Test
    void theDialectChecksTheLogAgainstItsOwnThresholdUnlessTheUrlSetsOne() throws Exception {
        DuckDbDialect dialect = new DuckDbDialect();
        try (Connection c = dialect.connect("jdbc:duckdb:" + dir.resolve("a.duckdb"), null, null);
                DuckDbCheckpointer checkpointer = DuckDbCheckpointer.start(c).orElseThrow()) {
            // three quarters of 48 MiB
            assertThat(checkpointer.triggerBytes()).isEqualTo(36L << 20);
        }
        try (Connection c =
                        dialect.connect(
                                "jdbc:duckdb:"
                                        + dir.resolve("b.duckdb")
                                        + ";checkpoint_threshold=4MB",
                                null,
                                null);
                DuckDbCheckpointer checkpointer = DuckDbCheckpointer.start(c).orElseThrow()) {
            assertThat(checkpointer.triggerBytes()).isBetween(2_950_000L, 3_000_000L);
        }
    }

    @Test
    void checkpointsLeaveDictionaryEncodingOutUnlessTheUrlSetsTheMethods() throws Exception {
        DuckDbDialect dialect = new DuckDbDialect();
        assertThat(
                        compressionOfAFewDistinctStrings(
                                dialect, "jdbc:duckdb:" + dir.resolve("a.duckdb")))
                .doesNotContain("Dictionary")
                .isNotEmpty();
        // a URL that names the disabled methods keeps them, and DuckDB picks dictionary encoding
        // for a column of two distinct values again
        assertThat(
                        compressionOfAFewDistinctStrings(
                                dialect,
                                "jdbc:duckdb:"
                                        + dir.resolve("b.duckdb")
                                        + ";disabled_compression_methods=fsst"))
                .contains("Dictionary");
    }

    /** The compression DuckDB chose, at a checkpoint, for a column of two distinct strings. */
    private static Set<String> compressionOfAFewDistinctStrings(DuckDbDialect dialect, String url)
            throws SQLException {
        try (Connection c = dialect.connect(url, null, null);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id BIGINT, status VARCHAR)");
            s.execute(
                    "INSERT INTO t SELECT range, CASE WHEN hash(range) % 2 = 0 THEN 'new' ELSE"
                            + " 'paid' END FROM range(50000)");
            c.commit();
            c.setAutoCommit(true);
            s.execute("CHECKPOINT");
            Set<String> kinds = new TreeSet<>();
            try (ResultSet rs =
                    s.executeQuery(
                            "SELECT DISTINCT compression FROM pragma_storage_info('t') WHERE"
                                    + " column_name = 'status' AND segment_type = 'VARCHAR'")) {
                while (rs.next()) {
                    kinds.add(rs.getString(1));
                }
            }
            return kinds;
        }
    }

    @Test
    void aDatabaseInMemoryHasNoLogToCheckpoint() throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:")) {
            assertThat(DuckDbCheckpointer.start(c)).isEmpty();
        }
    }

    @Test
    void readsDuckDbsSizes() {
        assertThat(DuckDbCheckpointer.bytes("16.0 MiB")).isEqualTo(16L << 20);
        assertThat(DuckDbCheckpointer.bytes("953.6 MiB")).isEqualTo((long) (953.6 * (1 << 20)));
        assertThat(DuckDbCheckpointer.bytes("1GB")).isEqualTo(1_000_000_000L);
        assertThat(DuckDbCheckpointer.bytes("256KB")).isEqualTo(256_000L);
        assertThat(DuckDbCheckpointer.bytes("512 bytes")).isEqualTo(512L);
        assertThat(DuckDbCheckpointer.bytes("2.0 GiB")).isEqualTo(2L << 30);
        assertThatThrownBy(() -> DuckDbCheckpointer.bytes("lots"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lots");
    }
}
