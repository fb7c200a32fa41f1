package dev.cdclab.sink;

/** A {@code TRUNCATE} reached the sink while {@code truncate=stop}: the sink stops before it. */
public final class TruncateStopException extends IllegalStateException {
    public TruncateStopException(String message) {
        super(message);
    }
}
