package dev.cdclab.capture;

/**
 * A Kafka Connect REST call failed: the cluster did not answer ({@link #status()} 0), answered with
 * an error status, or answered with a body that is not JSON.
 */
public class ConnectRestException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;

    public ConnectRestException(int status, String message, Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    /** The HTTP status, or 0 when no answer came. */
    public int status() {
        return status;
    }

    /** True when the answer was 404 Not Found. */
    public boolean notFound() {
        return status == 404;
    }
}
