package dev.cdclab.change;

/** A Kafka record that cannot be read as what its topic promises. */
public final class MalformedRecordException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MalformedRecordException(String message) {
        super(message);
    }
}
