package dev.cdclab.chaos;

import dev.cdclab.orchestration.infra.SourceEndpoint;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the busy table changing, about 100 transactions a second: each inserts a new id, bumps the
 * version of a random one and now and then deletes one. Ids are never reused, so a deleted row that
 * comes back is a bug. Each transaction also moves money between two accounts (two updates, the
 * total stays {@link #TOTAL}), and every tenth moves an account to a new primary key, so a reader
 * of the warehouse that sees another total or count has seen part of a transaction. Connection
 * errors (a source restart) are waited out.
 */
final class ChaosWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChaosWriter.class);

    /** The accounts table: {@code id} (the key, which moves), {@code account}, {@code balance}. */
    static final String ACCOUNTS = "chaos_accounts";

    /** Accounts in {@link #ACCOUNTS}. */
    static final int ACCOUNT_COUNT = 50;

    /** What the balances add up to after every transaction. */
    static final long TOTAL = ACCOUNT_COUNT * 1_000L;

    /** A key move adds this to the key: keys stay apart, since each is its account modulo it. */
    private static final int KEY_STRIDE = 1_000;

    private final SourceEndpoint source;
    private final AtomicInteger nextId = new AtomicInteger(1);
    private final AtomicLong committed = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean paused;

    /** Creates and fills the accounts table, then starts writing. */
    ChaosWriter(SourceEndpoint source) throws SQLException {
        this.source = source;
        try (Connection c = source.connect();
                var s = c.createStatement()) {
            s.execute(
                    "CREATE TABLE "
                            + ACCOUNTS
                            + " (id bigint PRIMARY KEY, account int NOT NULL UNIQUE, balance bigint"
                            + " NOT NULL)");
            s.execute(
                    "INSERT INTO "
                            + ACCOUNTS
                            + " SELECT g, g, "
                            + TOTAL / ACCOUNT_COUNT
                            + " FROM generate_series(1, "
                            + ACCOUNT_COUNT
                            + ") g");
        }
        this.thread = new Thread(this::loop, "chaos-writer");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        while (running) {
            try (Connection c = source.connect()) {
                c.setAutoCommit(false);
                try (PreparedStatement ins =
                                c.prepareStatement(
                                        "INSERT INTO "
                                                + ChaosLab.ITEMS
                                                + " (id, version, body) VALUES (?, 1, md5(random()::text))");
                        PreparedStatement upd =
                                c.prepareStatement(
                                        "UPDATE "
                                                + ChaosLab.ITEMS
                                                + " SET version = version + 1, body ="
                                                + " md5(random()::text) WHERE id = ?");
                        PreparedStatement del =
                                c.prepareStatement(
                                        "DELETE FROM " + ChaosLab.ITEMS + " WHERE id = ?");
                        PreparedStatement move =
                                c.prepareStatement(
                                        "UPDATE "
                                                + ACCOUNTS
                                                + " SET balance = balance + ? WHERE account = ?");
                        PreparedStatement rekey =
                                c.prepareStatement(
                                        "UPDATE "
                                                + ACCOUNTS
                                                + " SET id = id + "
                                                + KEY_STRIDE
                                                + " WHERE account = ?")) {
                    while (running) {
                        if (paused) {
                            ChaosLab.sleep(50);
                            continue;
                        }
                        ThreadLocalRandom r = ThreadLocalRandom.current();
                        int id = nextId.get();
                        ins.setInt(1, id);
                        ins.executeUpdate();
                        upd.setInt(1, 1 + r.nextInt(id));
                        upd.executeUpdate();
                        if (r.nextInt(10) == 0) {
                            del.setInt(1, 1 + r.nextInt(id));
                            del.executeUpdate();
                        }
                        int from = 1 + r.nextInt(ACCOUNT_COUNT);
                        int to = 1 + (from + r.nextInt(ACCOUNT_COUNT - 1)) % ACCOUNT_COUNT;
                        long amount = 1 + r.nextInt(100);
                        move.setLong(1, -amount);
                        move.setInt(2, from);
                        move.executeUpdate();
                        move.setLong(1, amount);
                        move.setInt(2, to);
                        move.executeUpdate();
                        if (r.nextInt(10) == 0) {
                            rekey.setInt(1, from);
                            rekey.executeUpdate();
                        }
                        c.commit();
                        nextId.incrementAndGet();
                        committed.incrementAndGet();
                        ChaosLab.sleep(10);
                    }
                }
            } catch (SQLException e) {
                // the last commit may have landed without its answer: never reuse that id
                nextId.incrementAndGet();
                failed.incrementAndGet();
                LOG.debug("writer: {}", e.getMessage());
                ChaosLab.sleep(200);
            }
        }
    }

    /** Transactions committed so far. */
    long committed() {
        return committed.get();
    }

    /** Transactions that failed (and were not counted), e.g. during a source restart. */
    long failed() {
        return failed.get();
    }

    /** Holds writes until {@link #resume()}. */
    void pause() {
        paused = true;
    }

    void resume() {
        paused = false;
    }

    /** Stops writing and waits for the last transaction. */
    void stop() {
        running = false;
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        stop();
    }
}
