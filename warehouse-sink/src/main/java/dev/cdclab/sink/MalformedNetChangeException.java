package dev.cdclab.sink;

/** A net-change record the sink cannot read, with {@code errors.tolerance=none}. */
public final class MalformedNetChangeException extends RuntimeException {
    public MalformedNetChangeException(String message) {
        super(message);
    }
}
