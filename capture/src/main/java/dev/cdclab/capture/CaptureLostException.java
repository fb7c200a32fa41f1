package dev.cdclab.capture;

import dev.cdclab.config.OneLineError;

/**
 * The source can no longer give the changes the connector's committed offsets ask for (its
 * replication slot was dropped, recreated or invalidated): continuing would skip changes silently.
 */
public final class CaptureLostException extends IllegalStateException implements OneLineError {
    public CaptureLostException(String message) {
        super(message);
    }
}
