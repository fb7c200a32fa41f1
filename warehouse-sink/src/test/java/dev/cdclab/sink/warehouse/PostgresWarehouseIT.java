package dev.cdclab.sink.warehouse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.embedded.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
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

    @Override
    protected boolean decimalHoldsNaN() {
        return true;
    }

    @Override
    protected String pointCoordinates(String column) {
        return column + "[0] || ' ' || " + column + "[1]";
    }
}
