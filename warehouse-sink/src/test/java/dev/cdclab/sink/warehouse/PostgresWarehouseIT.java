package dev.cdclab.sink.warehouse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.embedded.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The warehouse contract on PostgreSQL (the embedded server), a database per test. */
@Timeout(120)
class PostgresWarehouseIT extends WarehouseContract {
    private static PostgresServer server;

    @BeforeAll
    static void start() {
        server = PostgresServer.builder().durable(false).start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Override
    protected Target freshWarehouse() throws Exception {
        String db = "wh_" + Long.toHexString(System.nanoTime());
        server.createDatabase(db);
        return new Target(server.jdbcUrl(db), server.user(), server.password());
    }

    /**
     * Two sinks sharing a warehouse meet a new table at the same moment: both create it, neither
     * fails in the catalog, and both halves land. A fresh database each round, so the metadata
     * tables are created concurrently too.
     */
    @Test
    void twoWritersCreatingTheSameTablesAtOnceBothSucceed() throws Exception {
        for (int round = 0; round < 5; round++) {
            Target t = freshWarehouse();
            String table = "public.shared_" + round;
            CyclicBarrier together = new CyclicBarrier(2);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                List<Future<?>> writers = new ArrayList<>();
                for (int w = 0; w < 2; w++) {
                    int id = w + 1;
                    writers.add(
                            pool.submit(
                                    () -> {
                                        together.await();
                                        try (WarehouseWriter writer =
                                                new WarehouseWriter(
                                                        t.url(), t.user(), t.password())) {
                                            together.await();
                                            writer.apply(
                                                    List.of(
                                                            NetChanges.upsert(
                                                                    table, id, "w" + id, null, id)),
                                                    100);
                                        }
                                        return null;
                                    }));
                }
                for (Future<?> f : writers) {
                    f.get(60, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            try (Connection c = DriverManager.getConnection(t.url(), t.user(), t.password());
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
                rs.next();
                assertThat(rs.getInt(1)).as("round " + round).isEqualTo(2);
            }
        }
    }

    /**
     * A warehouse transaction leaves its table's stage in the same file: the stage is emptied by
     * the commit, not truncated (which would give it a new file and a catalog update every time).
     * The stage has statistics, so that a merge of a few rows is not planned as a scan of the whole
     * table.
     */
    /**
     * A sink opening the warehouse while another sink's transaction holds the tombstones (it
     * applied deletes and has not committed) opens at once. The other sink may be about to wait for
     * the catalog lock the opening one holds, and a lock the opening one waited for there would be
     * a deadlock.
     */
    @Test
    void aWriterOpensWhileAnotherTransactionHoldsTheTombstones() throws Exception {
        Target t = freshWarehouse();
        new WarehouseWriter(t.url(), t.user(), t.password()).close();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Connection holder = DriverManager.getConnection(t.url(), t.user(), t.password())) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute(
                        "INSERT INTO cdc_lab.tombstones (table_name, key, lsn, commit_ms)"
                                + " VALUES ('public.t', '{\"id\":1}', '0', 0)");
            }
            try {
                Future<?> opening =
                        pool.submit(
                                () -> {
                                    new WarehouseWriter(t.url(), t.user(), t.password()).close();
                                    return null;
                                });
                opening.get(20, TimeUnit.SECONDS);
            } finally {
                holder.rollback();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theStageKeepsItsFileAndItsStatisticsFromOneTransactionToTheNext() throws Exception {
        String table = "public.staged";
        try (Connection c = writer.openReader()) {
            writer.apply(List.of(NetChanges.upsert(table, 1, "a", null, 10)), 100);
            long file = stageFile(c);
            writer.apply(
                    List.of(
                            NetChanges.upsert(table, 1, "b", null, 11),
                            NetChanges.upsert(table, 2, "c", null, 11)),
                    200);
            writer.apply(List.of(NetChanges.delete(table, 2, 12)), 300);
            assertThat(stageFile(c)).isEqualTo(file);
        }
        assertThat(namesOf(table)).containsExactly(Map.entry(1, "b"));
    }

    /**
     * A merge of a few rows runs as a statement the driver prepares on the server (from its fifth
     * use), so PostgreSQL plans it once; a merge of many rows is planned each time, so a plan made
     * for one large stage never serves the small ones after it.
     */
    @Test
    void smallMergesArePreparedOnTheServerAndLargeOnesAreNot() throws Exception {
        Target t = freshWarehouse();
        PostgresWarehouseDialect d = new PostgresWarehouseDialect();
        TableName few = TableName.of("public.few");
        TableName many = TableName.of("public.many");
        try (Connection c = d.connect(t.url(), t.user(), t.password())) {
            d.createMetadataTables(c);
            d.createTable(c, few, NetChanges.ITEMS);
            d.createTable(c, many, NetChanges.ITEMS);
            c.commit();
            for (int round = 0; round < 6; round++) {
                d.merge(c, few, NetChanges.ITEMS, List.of(), staged(round, 3), false);
                d.merge(
                        c,
                        many,
                        NetChanges.ITEMS,
                        List.of(),
                        staged(round, PostgresWarehouseDialect.PREPARED_MAX_ROWS + 1),
                        false);
                c.commit();
            }
            List<String> prepared = new ArrayList<>();
            try (Statement s = c.createStatement();
                    ResultSet rs =
                            s.executeQuery(
                                    "SELECT statement FROM pg_prepared_statements WHERE statement"
                                            + " LIKE 'MERGE INTO %'")) {
                while (rs.next()) {
                    prepared.add(rs.getString(1).substring(0, 25));
                }
            }
            assertThat(prepared).containsExactly("MERGE INTO \"public\".\"few\"");
            assertThat(rowsNamed(c, few, "r5")).isEqualTo(3);
            assertThat(rowsNamed(c, many, "r5"))
                    .isEqualTo(PostgresWarehouseDialect.PREPARED_MAX_ROWS + 1);
        }
    }

    /**
     * The writer's session plans with a random page read at most as dear as on SSD, so that a merge
     * of some hundred rows looks them up by key instead of hashing the whole table; a database set
     * lower keeps its own figure.
     */
    @Test
    void theWritersSessionAssumesRandomReadsCostLittleUnlessTheServerSaysLess() throws Exception {
        PostgresWarehouseDialect d = new PostgresWarehouseDialect();
        Target t = freshWarehouse();
        try (Connection c = d.connect(t.url(), t.user(), t.password())) {
            assertThat(setting(c, "random_page_cost")).isEqualTo("1.1");
            c.rollback();
            assertThat(setting(c, "random_page_cost")).as("kept past a rollback").isEqualTo("1.1");
        }
        Target lower = freshWarehouse();
        String db = lower.url().substring(lower.url().lastIndexOf('/') + 1).replaceAll("\\?.*", "");
        try (Connection admin =
                        DriverManager.getConnection(lower.url(), lower.user(), lower.password());
                Statement s = admin.createStatement()) {
            s.execute("ALTER DATABASE " + db + " SET random_page_cost = 1.0");
        }
        try (Connection c = d.connect(lower.url(), lower.user(), lower.password())) {
            assertThat(setting(c, "random_page_cost")).isEqualTo("1");
        }
    }

    private static String setting(Connection c, String name) throws Exception {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW " + name)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static int rowsNamed(Connection c, TableName t, String name) throws Exception {
        try (Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT count(*) FROM "
                                        + MergeSql.qualified(t)
                                        + " WHERE name = '"
                                        + name
                                        + "'")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** Upserts of keys 0 to {@code n - 1}, named after the round, at the round's position. */
    private static List<StagedRow> staged(int round, int n) {
        List<StagedRow> rows = new ArrayList<>(n);
        for (int id = 0; id < n; id++) {
            rows.add(
                    new StagedRow(
                            false,
                            false,
                            String.format("%08d", round),
                            round,
                            "{\"id\":" + id + "}",
                            "",
                            new String[] {Integer.toString(id), "r" + round, null, "1.50"}));
        }
        return rows;
    }

    /** The file of the one staging table the writer's session has; it must have been analyzed. */
    private static long stageFile(Connection c) throws Exception {
        try (Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT relfilenode, reltuples FROM pg_class WHERE relpersistence"
                                        + " = 't'"
                                        + " AND relkind = 'r' AND relname LIKE 'cdc\\_stage\\_%'")) {
            assertThat(rs.next()).as("a staging table").isTrue();
            long file = rs.getLong(1);
            assertThat(rs.getDouble(2)).as("tuples the stage's statistics hold").isZero();
            assertThat(rs.next()).as("one staging table").isFalse();
            return file;
        }
    }

    @Override
    protected boolean decimalHoldsNaN() {
        return true;
    }

    @Override
    protected String pointCoordinates(String column) {
        return column + "[0] || ' ' || " + column + "[1]";
    }
}
