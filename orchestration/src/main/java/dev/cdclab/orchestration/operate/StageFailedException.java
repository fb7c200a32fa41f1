package dev.cdclab.orchestration.operate;

/** A stage of the running pipeline (net-change app, sink, a service) has stopped with an error. */
public final class StageFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String stage;

    public StageFailedException(String stage, String message, Throwable cause) {
        super(stage + " failed: " + message, cause);
        this.stage = stage;
    }

    /** Which stage failed. */
    public String stage() {
        return stage;
    }
}
