package dev.cdclab.e2e;

import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * Changes rows of a source table {@code accounts (id, balance)} one transaction at a time on its
 * own thread until closed: adds 1 to a balance, and deletes every n-th row it touches.
 */
final class AccountsWriter implements AutoCloseable {
    private final AtomicBoolean writing = new AtomicBoolean(true);
    private final AtomicLong writes = new AtomicLong();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final Thread thread;

    /**
     * Starts writing.
     *
     * @param firstId the first id it touches; it goes through {@code rows} ids from there
     * @param deleteEvery every this many writes, the row touched is deleted too
     */
    AccountsWriter(DataSource source, int firstId, int rows, int deleteEvery) {
        thread =
                new Thread(
                        () -> {
                            try (Connection c = source.getConnection();
                                    Statement s = c.createStatement()) {
                                int i = 0;
                                while (writing.get()) {
                                    int id = firstId + (i++ * 37) % rows;
                                    s.execute(
                                            "UPDATE accounts SET balance = balance + 1 WHERE id = "
                                                    + id);
                                    if (i % deleteEvery == 0) {
                                        s.execute("DELETE FROM accounts WHERE id = " + id);
                                    }
                                    writes.incrementAndGet();
                                    Thread.sleep(2);
                                }
                            } catch (Exception e) {
                                failure.set(e);
                            }
                        },
                        "accounts-writer");
        thread.start();
    }

    /** Transactions written so far. */
    long writes() {
        return writes.get();
    }

    /** Stops writing; throws what stopped the writer early, if anything did. */
    @Override
    public void close() throws Exception {
        writing.set(false);
        thread.join();
        if (failure.get() != null) {
            throw failure.get();
        }
    }
}
