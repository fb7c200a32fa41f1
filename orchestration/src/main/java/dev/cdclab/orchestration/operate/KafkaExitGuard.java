package dev.cdclab.orchestration.operate;

import org.apache.kafka.common.utils.Exit;

/**
 * Kafka, Connect and Streams call {@code Exit} on fatal errors. In a process that runs them beside
 * other work (the CLI, a user's test JVM) that must become an error to report and clean up after,
 * not a JVM exit or halt that skips every shutdown hook and leaves servers running.
 */
public final class KafkaExitGuard {
    private KafkaExitGuard() {}

    /** Turns Kafka's exit and halt requests into {@link KafkaExitRequest}s. Idempotent. */
    public static void install() {
        Exit.setExitProcedure(
                (code, message) -> {
                    throw new KafkaExitRequest(code, message);
                });
        Exit.setHaltProcedure(
                (code, message) -> {
                    throw new KafkaExitRequest(code, message);
                });
        Exit.setShutdownHookAdder((name, hook) -> {});
    }

    /** Thrown instead of a JVM exit that Kafka code asked for. */
    public static final class KafkaExitRequest extends RuntimeException {
        private static final long serialVersionUID = 1L;

        KafkaExitRequest(int code, String message) {
            super("Kafka requested exit " + code + (message == null ? "" : ": " + message));
        }
    }
}
