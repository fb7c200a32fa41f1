package dev.cdclab.orchestration.infra;

import dev.cdclab.config.OneLineError;

/**
 * A service the pipeline needs cannot be had: no Docker engine, an image that cannot be pulled, an
 * endpoint that does not answer. The message is one line that says what to do.
 */
public final class InfraUnavailableException extends RuntimeException implements OneLineError {
    private static final long serialVersionUID = 1L;

    public InfraUnavailableException(String message) {
        super(message);
    }

    public InfraUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
