package dev.cdclab.orchestration.operate;

import java.util.function.Consumer;

/** Runs a health check every second on a thread of its own and reports the first failure once. */
public final class HealthWatch implements AutoCloseable {
    private final Thread thread;

    private HealthWatch(Thread thread) {
        this.thread = thread;
    }

    /**
     * Starts watching.
     *
     * @param check throws when something is wrong
     * @param onFailure called once with what {@code check} threw; watching then ends
     */
    public static HealthWatch start(Runnable check, Consumer<RuntimeException> onFailure) {
        Thread t =
                new Thread(
                        () -> {
                            while (!Thread.currentThread().isInterrupted()) {
                                try {
                                    Thread.sleep(1000);
                                    check.run();
                                } catch (InterruptedException e) {
                                    return;
                                } catch (RuntimeException e) {
                                    onFailure.accept(e);
                                    return;
                                }
                            }
                        },
                        "pipeline-watch");
        t.setDaemon(true);
        t.start();
        return new HealthWatch(t);
    }

    @Override
    public void close() {
        thread.interrupt();
    }
}
