package dev.cdclab.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * A validated set of values for a declared list of {@link ConfigOption}s. Unknown keys are
 * rejected; every error names its key.
 */
public final class Configuration {
    private final Map<String, ConfigOption<?>> declared;
    private final Map<String, Object> values;
    private final Map<String, String> passthrough;

    private Configuration(
            Map<String, ConfigOption<?>> declared,
            Map<String, Object> values,
            Map<String, String> passthrough) {
        this.declared = declared;
        this.values = values;
        this.passthrough = passthrough;
    }

    /**
     * Keys under an allowed pass-through prefix (e.g. {@code kafka.}), with the prefix removed;
     * they go unchanged to the client the prefix names.
     */
    public Map<String, String> passthrough(String prefix) {
        Map<String, String> out = new LinkedHashMap<>();
        passthrough.forEach(
                (k, v) -> {
                    if (k.startsWith(prefix)) {
                        out.put(k.substring(prefix.length()), v);
                    }
                });
        return out;
    }

    /** Starts a configuration over the given options. */
    public static Builder builder(Collection<? extends ConfigOption<?>> options) {
        return new Builder(options);
    }

    /** The value of an option, or its default. */
    @SuppressWarnings("unchecked")
    public <T> T get(ConfigOption<T> option) {
        if (!declared.containsKey(option.key())) {
            throw new IllegalArgumentException("option " + option.key() + " is not declared here");
        }
        return (T) values.get(option.key());
    }

    /** True when the user set the option explicitly. */
    public boolean isSet(ConfigOption<?> option) {
        return values.containsKey(option.key())
                && values.get(option.key()) != option.defaultValue();
    }

    /** The declared options, in declaration order. */
    public Collection<ConfigOption<?>> options() {
        return Collections.unmodifiableCollection(declared.values());
    }

    /** Key to printable value, secrets masked; for reports and logs. */
    public Map<String, String> describe() {
        Map<String, String> out = new LinkedHashMap<>();
        for (ConfigOption<?> o : declared.values()) {
            out.put(o.key(), print(o));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private <T> String print(ConfigOption<T> o) {
        return o.format((T) values.get(o.key()));
    }

    /**
     * The values that differ from their defaults, written as a properties file takes them, then the
     * pass-through keys: what builds the same configuration in another process. Secrets are left
     * out; pass them through the environment.
     */
    public Map<String, String> toProperties() {
        Map<String, String> out = new LinkedHashMap<>();
        for (ConfigOption<?> o : declared.values()) {
            Object v = values.get(o.key());
            if (v != null && !o.secret() && !v.equals(o.defaultValue())) {
                out.put(o.key(), raw(o));
            }
        }
        out.putAll(passthrough);
        return out;
    }

    @SuppressWarnings("unchecked")
    private <T> String raw(ConfigOption<T> o) {
        return o.formatUnmasked((T) values.get(o.key()));
    }

    /** Returns a copy with one more value set (validated). */
    public <T> Configuration with(ConfigOption<T> option, T value) {
        Map<String, Object> copy = new HashMap<>(values);
        copy.put(option.key(), option.validate(value));
        return new Configuration(declared, copy, passthrough);
    }

    /** Collects raw values, then validates them all at once in {@link #build()}. */
    public static final class Builder {
        private final Map<String, ConfigOption<?>> declared = new LinkedHashMap<>();
        private final Map<String, String> raw = new LinkedHashMap<>();
        private final Map<String, Object> typed = new HashMap<>();
        private final List<String> prefixes = new ArrayList<>();
        private final Map<String, String> passthrough = new LinkedHashMap<>();

        private Builder(Collection<? extends ConfigOption<?>> options) {
            for (ConfigOption<?> o : options) {
                if (declared.put(o.key(), o) != null) {
                    throw new IllegalStateException("option declared twice: " + o.key());
                }
            }
        }

        /** Accepts undeclared keys under this prefix and keeps them for {@link #passthrough}. */
        public Builder allowPrefix(String prefix) {
            prefixes.add(prefix);
            return this;
        }

        /** Sets a raw value; unknown keys fail here with a suggestion. */
        public Builder set(String key, String value) {
            if (!declared.containsKey(key) && isPassthrough(key)) {
                passthrough.put(key, value);
                return this;
            }
            requireDeclared(key);
            raw.put(key, value);
            typed.remove(key);
            return this;
        }

        /** Sets a typed value. */
        public <T> Builder set(ConfigOption<T> option, T value) {
            requireDeclared(option.key());
            typed.put(option.key(), value);
            raw.remove(option.key());
            return this;
        }

        /** Sets every entry of a map of raw values. */
        public Builder setAll(Map<String, String> values) {
            values.forEach(this::set);
            return this;
        }

        /** Reads a properties file; unknown keys fail with the file named. */
        public Builder load(Path file) {
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(file)) {
                p.load(r);
            } catch (IOException e) {
                throw new ConfigException(null, "cannot read config file " + file + ": " + e);
            }
            for (String k : p.stringPropertyNames()) {
                if (!declared.containsKey(k) && !isPassthrough(k)) {
                    throw new ConfigException(
                            k, "unknown key in " + file + suggestion(k, declared.keySet()));
                }
                set(k, p.getProperty(k));
            }
            return this;
        }

        private boolean isPassthrough(String key) {
            for (String p : prefixes) {
                if (key.startsWith(p) && key.length() > p.length()) {
                    return true;
                }
            }
            return false;
        }

        private void requireDeclared(String key) {
            if (!declared.containsKey(key)) {
                throw new ConfigException(key, "unknown key" + suggestion(key, declared.keySet()));
            }
        }

        /** Validates every value and checks required options. */
        public Configuration build() {
            Map<String, Object> values = new HashMap<>();
            for (ConfigOption<?> o : declared.values()) {
                Object v;
                if (raw.containsKey(o.key())) {
                    v = o.parse(raw.get(o.key()));
                } else if (typed.containsKey(o.key())) {
                    v = validateTyped(o, typed.get(o.key()));
                } else {
                    v = o.defaultValue();
                }
                if (v == null && o.required()) {
                    throw new ConfigException(o.key(), "is required: " + o.description());
                }
                if (v != null) {
                    values.put(o.key(), v);
                }
            }
            return new Configuration(declared, values, Map.copyOf(passthrough));
        }

        @SuppressWarnings("unchecked")
        private static <T> T validateTyped(ConfigOption<T> o, Object v) {
            return o.validate((T) v);
        }
    }

    /** " (did you mean 'x'?)" for the closest known key, or "" when none is close. */
    public static String suggestion(String key, Collection<String> known) {
        List<String> sorted = new ArrayList<>(known);
        sorted.sort(Comparator.comparingInt(k -> distance(k, key)));
        if (!sorted.isEmpty() && distance(sorted.get(0), key) <= Math.max(2, key.length() / 3)) {
            return " (did you mean '" + sorted.get(0) + "'?)";
        }
        return "";
    }

    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
