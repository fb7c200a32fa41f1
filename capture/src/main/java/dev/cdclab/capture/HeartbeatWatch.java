package dev.cdclab.capture;

import dev.cdclab.wait.Poll;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/** Tells when Debezium streams: its heartbeat action query only runs once the snapshot is done. */
final class HeartbeatWatch {
    private HeartbeatWatch() {}

    /**
     * Returns once {@code query} (one value: the heartbeat table's newest time) answers something
     * other than what it answered first.
     *
     * @throws IllegalStateException on timeout
     */
    static void awaitChange(Supplier<Connection> connections, String query, Duration timeout) {
        Poll poll = Poll.within(timeout).every(Duration.ofMillis(100));
        try (Connection c = connections.get();
                PreparedStatement ps = c.prepareStatement(query)) {
            Object initial = value(ps);
            while (!poll.expired()) {
                Object now = value(ps);
                if (now != null && !Objects.equals(now, initial)) {
                    return;
                }
                poll.pause();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read heartbeat table: " + e.getMessage(), e);
        }
        throw new IllegalStateException(
                "capture did not start streaming within " + timeout.toSeconds() + "s");
    }

    private static Object value(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getObject(1);
        }
    }
}
