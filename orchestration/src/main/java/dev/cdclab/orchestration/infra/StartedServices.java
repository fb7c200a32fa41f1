package dev.cdclab.orchestration.infra;

import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What has been started so far, stopped newest first, once, whatever fails on the way. */
final class StartedServices implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StartedServices.class);

    private record Entry(String name, AutoCloseable service) {}

    private final Deque<Entry> started = new ArrayDeque<>();

    /** Remembers a started service and returns it. */
    <T extends AutoCloseable> T add(String name, T service) {
        started.push(new Entry(name, service));
        return service;
    }

    @Override
    public synchronized void close() {
        while (!started.isEmpty()) {
            Entry e = started.pop();
            try {
                e.service().close();
            } catch (Exception ex) {
                LOG.warn("Stopping {}: {}", e.name(), ex.getMessage());
            }
        }
    }
}
