package dev.cdclab.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * One configuration key, declared once with its type, default, description and validation.
 *
 * @param <T> the value type
 */
public final class ConfigOption<T> {
    private final String key;
    private final String type;
    private final String description;
    private final T defaultValue;
    private final boolean required;
    private final boolean secret;
    private final Function<String, T> parser;
    private final Function<T, String> printer;
    private final Predicate<T> check;
    private final String checkMessage;

    private ConfigOption(Builder<T> b) {
        this.key = b.key;
        this.type = b.type;
        this.description = Objects.requireNonNull(b.description, "description of " + b.key);
        this.defaultValue = b.defaultValue;
        this.required = b.required;
        this.secret = b.secret;
        this.parser = b.parser;
        this.printer = b.printer;
        this.check = b.check;
        this.checkMessage = b.checkMessage;
    }

    public String key() {
        return key;
    }

    /** A short name of the value type, for documentation. */
    public String type() {
        return type;
    }

    public String description() {
        return description;
    }

    /** The default, or null when the option has none. */
    public T defaultValue() {
        return defaultValue;
    }

    public boolean required() {
        return required;
    }

    /** Secret values are never printed or logged. */
    public boolean secret() {
        return secret;
    }

    /** Parses and validates a raw value; the exception names this key. */
    public T parse(String raw) {
        T value;
        try {
            value = parser.apply(raw.trim());
        } catch (RuntimeException e) {
            throw new ConfigException(key, "'" + raw + "' is not a valid " + type + messageOf(e));
        }
        validate(value);
        return value;
    }

    /** Validates a typed value; the exception names this key. */
    public T validate(T value) {
        if (value != null && check != null && !check.test(value)) {
            throw new ConfigException(key, format(value) + " " + checkMessage);
        }
        return value;
    }

    /** Prints a value the way a properties file takes it, secrets included. */
    public String formatUnmasked(T value) {
        return value == null ? "" : printer.apply(value);
    }

    /** Prints a value the way it would be written in a properties file (secrets masked). */
    public String format(T value) {
        if (value == null) {
            return "";
        }
        return secret ? "******" : printer.apply(value);
    }

    /** Prints the default for documentation. */
    public String formatDefault() {
        if (defaultValue == null) {
            return required ? "(required)" : "(none)";
        }
        return printer.apply(defaultValue);
    }

    private static String messageOf(RuntimeException e) {
        return e.getMessage() == null ? "" : " (" + e.getMessage() + ")";
    }

    @Override
    public String toString() {
        return key;
    }

    public static Builder<String> stringOption(String key) {
        return new Builder<String>(key, "string", s -> s, s -> s);
    }

    public static Builder<Integer> intOption(String key) {
        return new Builder<Integer>(key, "int", Integer::valueOf, String::valueOf);
    }

    public static Builder<Long> longOption(String key) {
        return new Builder<Long>(key, "long", Long::valueOf, String::valueOf);
    }

    /** A number of bytes, written with or without a unit ({@link Sizes}). */
    public static Builder<Long> sizeOption(String key) {
        return new Builder<Long>(key, "size", Sizes::parse, Sizes::format);
    }

    public static Builder<Double> doubleOption(String key) {
        return new Builder<Double>(key, "double", Double::valueOf, String::valueOf);
    }

    public static Builder<Boolean> booleanOption(String key) {
        return new Builder<Boolean>(key, "boolean", ConfigOption::parseBoolean, String::valueOf);
    }

    public static Builder<Duration> durationOption(String key) {
        return new Builder<Duration>(key, "duration", Durations::parse, Durations::format);
    }

    /** An enum option whose values are written in lower case with underscores. */
    public static <E extends Enum<E>> Builder<E> enumOption(String key, Class<E> type) {
        String values =
                Arrays.stream(type.getEnumConstants())
                        .map(e -> e.name().toLowerCase(Locale.ROOT))
                        .collect(Collectors.joining("|"));
        return new Builder<E>(
                key,
                values,
                s -> {
                    for (E e : type.getEnumConstants()) {
                        if (e.name().equalsIgnoreCase(s.replace('-', '_'))) {
                            return e;
                        }
                    }
                    throw new IllegalArgumentException("expected one of " + values);
                },
                e -> e.name().toLowerCase(Locale.ROOT));
    }

    private static boolean parseBoolean(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "true", "yes", "on", "1" -> true;
            case "false", "no", "off", "0" -> false;
            default -> throw new IllegalArgumentException("expected true or false");
        };
    }

    /** Fluent builder for an option. */
    public static final class Builder<T> {
        private final String key;
        private final String type;
        private final Function<String, T> parser;
        private final Function<T, String> printer;
        private String description;
        private T defaultValue;
        private boolean required;
        private boolean secret;
        private Predicate<T> check;
        private String checkMessage;

        private Builder(
                String key, String type, Function<String, T> parser, Function<T, String> printer) {
            this.key = key;
            this.type = type;
            this.parser = parser;
            this.printer = printer;
        }

        public Builder<T> description(String description) {
            this.description = description;
            return this;
        }

        public Builder<T> defaultValue(T value) {
            this.defaultValue = value;
            return this;
        }

        public Builder<T> required() {
            this.required = true;
            return this;
        }

        public Builder<T> secret() {
            this.secret = true;
            return this;
        }

        /** Adds a check; {@code message} completes "value ..." e.g. "must be positive". */
        public Builder<T> check(Predicate<T> check, String message) {
            this.check = check;
            this.checkMessage = message;
            return this;
        }

        public ConfigOption<T> build() {
            return new ConfigOption<>(this);
        }
    }
}
