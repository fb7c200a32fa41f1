package dev.cdclab.lab.experiment;

import dev.cdclab.load.run.LoadRunner;
import dev.cdclab.load.run.LoadStats;
import dev.cdclab.load.workload.Workload;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The load phases every measuring command runs ({@code run}, {@code overhead}, {@code experiment}
 * through the experiment engine, and {@code bench}'s ladder): a warm-up that is excluded, and a
 * load watched so that a failed part stops it.
 */
public final class LoadPhases {
    /** What a load drives: a pipeline that can be watched and waited for. */
    public interface Target {
        /** Checks health every second and calls {@code onFailure} once; close to stop. */
        AutoCloseable watch(Consumer<RuntimeException> onFailure);

        /**
         * Waits until every change committed at the source before now is in the warehouse.
         *
         * @throws CatchUpTimeoutException on timeout
         */
        Duration awaitCaughtUp(Duration timeout);
    }

    private LoadPhases() {}

    /**
     * Runs a load while watching the target (none when null); a part that fails meanwhile stops the
     * load and is thrown.
     */
    public static LoadStats load(Target target, LoadRunner runner) throws Exception {
        if (target == null) {
            return runner.run();
        }
        AtomicReference<RuntimeException> failed = new AtomicReference<>();
        LoadStats stats;
        try (AutoCloseable watch =
                target.watch(
                        e -> {
                            failed.set(e);
                            runner.stop();
                        })) {
            stats = runner.run();
        }
        if (failed.get() != null) {
            throw failed.get();
        }
        return stats;
    }

    /**
     * The warm-up: load at the target rate for {@code length}, excluded from any result, then wait
     * until the warehouse has caught up (not when {@code target} is null: the source alone).
     *
     * @return the runner, whose {@link LoadRunner#issued()} numbers the next load's transactions
     */
    public static LoadRunner warmUp(
            Target target,
            Workload workload,
            LoadRunner.ConnectionFactory connections,
            int threads,
            double rate,
            Duration length,
            Duration drain)
            throws Exception {
        LoadRunner w =
                new LoadRunner(
                        workload, connections, new LoadRunner.Options(threads, rate, length, 0, 0));
        load(target, w);
        if (target != null) {
            target.awaitCaughtUp(drain);
        }
        return w;
    }
}
