package dev.cdclab.sink.warehouse;

import dev.cdclab.embedded.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;

/** The replay contract on PostgreSQL (the embedded server), a database per test. */
@Timeout(120)
class PostgresReplayIT extends ReplayContract {
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
    protected WarehouseContract.Target freshWarehouse() throws Exception {
        String db = "replay_" + Long.toHexString(System.nanoTime());
        server.createDatabase(db);
        return new WarehouseContract.Target(server.jdbcUrl(db), server.user(), server.password());
    }
}
