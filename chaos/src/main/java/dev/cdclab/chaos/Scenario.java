package dev.cdclab.chaos;

/**
 * One fault scenario of {@code cdc-lab chaos}.
 *
 * @param name what {@code --scenarios} takes
 * @param description one line: the fault and what must hold after it
 * @param options how its pipeline is started
 * @param expect what must hold
 * @param injection what it does to the running pipeline
 */
public record Scenario(
        String name,
        String description,
        ChaosLab.Options options,
        Expect expect,
        Injection injection) {

    /** What a scenario must end with. */
    public enum Expect {
        /** The warehouse equals the source; no row lost, none went back to an older version. */
        NO_LOSS,
        /** The pipeline stops and says why, instead of continuing without the lost changes. */
        STOPS_LOUDLY
    }

    /** The faults, injected into a running lab. */
    @FunctionalInterface
    public interface Injection {
        void inject(ChaosLab lab) throws Exception;
    }

    /** A check inside a scenario that did not hold. */
    public static final class CheckFailed extends RuntimeException {
        public CheckFailed(String message) {
            super(message);
        }
    }
}
