package dev.cdclab.orchestration.operate;

import dev.cdclab.config.OneLineError;

/** The work directory's disk has less free space than the run must keep. */
public final class DiskFullException extends RuntimeException implements OneLineError {
    private static final long serialVersionUID = 1L;

    public DiskFullException(String message) {
        super(message);
    }
}
