package dev.cdclab.capture;

/** A connector or its task is FAILED, or did not reach RUNNING in time. */
public final class ConnectorFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ConnectorFailedException(String message) {
        super(message);
    }
}
