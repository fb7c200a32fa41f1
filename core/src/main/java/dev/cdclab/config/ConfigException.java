package dev.cdclab.config;

/** A configuration value that is missing, malformed or out of range; the message names the key. */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String key;

    public ConfigException(String key, String reason) {
        super(key == null ? reason : "config '" + key + "': " + reason);
        this.key = key;
    }

    /** The offending key, or null when the problem is not about one key. */
    public String key() {
        return key;
    }
}
