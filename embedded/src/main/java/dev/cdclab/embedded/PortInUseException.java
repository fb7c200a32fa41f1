package dev.cdclab.embedded;

import dev.cdclab.config.OneLineError;

/** A port asked for explicitly is already taken by another process. */
public final class PortInUseException extends IllegalStateException implements OneLineError {
    private static final long serialVersionUID = 1L;

    public PortInUseException(int port) {
        super("port " + port + " is already in use");
    }
}
