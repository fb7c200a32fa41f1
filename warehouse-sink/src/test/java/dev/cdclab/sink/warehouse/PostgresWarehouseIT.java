package dev.cdclab.sink.warehouse;

import dev.cdclab.embedded.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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

    @Override
    protected boolean decimalHoldsNaN() {
        return true;
    }

    @Override
    protected String pointCoordinates(String column) {
        return column + "[0] || ' ' || " + column + "[1]";
    }
}
