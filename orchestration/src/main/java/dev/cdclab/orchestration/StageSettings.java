package dev.cdclab.orchestration;

import dev.cdclab.capture.CaptureConfig;
import dev.cdclab.config.ConfigException;
import dev.cdclab.config.ConfigOption;
import dev.cdclab.config.Configuration;
import dev.cdclab.config.RowLimit;
import dev.cdclab.orchestration.infra.InfraConfig;
import dev.cdclab.sink.SinkConfig;
import dev.cdclab.streams.NetChangeConfig;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Settings addressed to a stage by prefix ({@code capture.}, {@code streams.}, {@code sink.},
 * {@code infra.}), as {@code -D} and experiment files give them: split into each stage's own keys,
 * checked against the options the stage declares, and put on a pipeline in one place.
 */
public final class StageSettings {
    /** A stage's prefix and the options it declares. */
    private record Stage(
            String prefix,
            Supplier<Configuration.Builder> builder,
            List<ConfigOption<?>> options) {}

    private static final List<Stage> STAGES =
            List.of(
                    new Stage("capture.", CaptureConfig::builder, CaptureConfig.OPTIONS),
                    new Stage("streams.", NetChangeConfig::builder, NetChangeConfig.OPTIONS),
                    new Stage("sink.", SinkConfig::builder, SinkConfig.OPTIONS),
                    new Stage("infra.", InfraConfig::builder, InfraConfig.OPTIONS));

    /** The prefixes, in the order help texts list them. */
    public static final List<String> PREFIXES = STAGES.stream().map(Stage::prefix).toList();

    private final Map<String, Map<String, String>> byPrefix;

    private StageSettings(Map<String, Map<String, String>> byPrefix) {
        this.byPrefix = byPrefix;
    }

    /** No settings. */
    public static StageSettings none() {
        return of(Map.of());
    }

    /**
     * Splits prefixed settings by stage (their order kept).
     *
     * @throws ConfigException for a key that names no stage
     */
    public static StageSettings of(Map<String, String> prefixed) {
        Map<String, Map<String, String>> m = new LinkedHashMap<>();
        STAGES.forEach(s -> m.put(s.prefix(), new LinkedHashMap<>()));
        prefixed.forEach(
                (k, v) -> m.get(stage(k).prefix()).put(k.substring(stage(k).prefix().length()), v));
        m.replaceAll((p, settings) -> Collections.unmodifiableMap(settings));
        return new StageSettings(Collections.unmodifiableMap(m));
    }

    /** Whether {@code key} starts with a stage's prefix. */
    public static boolean isStageKey(String key) {
        return STAGES.stream().anyMatch(s -> key.startsWith(s.prefix()));
    }

    /**
     * Checks one prefixed setting: a key its stage declares, and a value it accepts.
     *
     * @throws ConfigException naming the key, with a suggestion for a near miss
     */
    public static void check(String key, String value) {
        Stage s = stage(key);
        String k = key.substring(s.prefix().length());
        try {
            s.builder().get().set(k, "x");
        } catch (ConfigException e) {
            List<String> known = new ArrayList<>();
            s.options().forEach(o -> known.add(o.key()));
            String name = s.prefix().substring(0, s.prefix().length() - 1);
            throw new ConfigException(
                    key,
                    "unknown key"
                            + Configuration.suggestion(k, known)
                            + " (see 'cdc-lab config "
                            + name
                            + "')");
        }
        for (ConfigOption<?> o : s.options()) {
            if (o.key().equals(k)) {
                try {
                    o.parse(value);
                } catch (ConfigException e) {
                    throw new ConfigException(
                            key, e.getMessage().replaceFirst("^config '[^']*': ", ""));
                }
            }
        }
    }

    /** Capture's settings, without the prefix. */
    public Map<String, String> capture() {
        return byPrefix.get("capture.");
    }

    /** The net-change app's settings, without the prefix. */
    public Map<String, String> streams() {
        return byPrefix.get("streams.");
    }

    /** The sink's settings, without the prefix. */
    public Map<String, String> sink() {
        return byPrefix.get("sink.");
    }

    /** The infrastructure's settings, without the prefix. */
    public Map<String, String> infra() {
        return byPrefix.get("infra.");
    }

    /**
     * Puts the stage settings on a pipeline. The net-change keys that shape the whole pipeline
     * (interval, grace, mode, partitions, processing guarantee: topic partitions and catch-up
     * depend on them) become the pipeline's own settings, so every stage sees the same value. The
     * infrastructure's settings are the caller's to turn into an {@code InfraSpec}.
     */
    public Pipeline.Builder applyTo(Pipeline.Builder b) {
        // the row limit sizes every stage's Kafka limits alike, whichever stage it is given to
        String rowLimit = RowLimit.MAX_ROW_BYTES.key();
        capture()
                .forEach(
                        (k, v) -> {
                            if (k.equals(rowLimit)) {
                                b.maxRowBytes(RowLimit.MAX_ROW_BYTES.parse(v));
                            } else {
                                b.capture(k, v);
                            }
                        });
        streams()
                .forEach(
                        (k, v) -> {
                            switch (k) {
                                case "interval" -> b.interval(NetChangeConfig.INTERVAL.parse(v));
                                case "grace" -> b.grace(NetChangeConfig.GRACE.parse(v));
                                case "mode" -> b.mode(NetChangeConfig.MODE.parse(v));
                                case "partitions" ->
                                        b.partitions(NetChangeConfig.PARTITIONS.parse(v));
                                case "processing.guarantee" ->
                                        b.guarantee(NetChangeConfig.GUARANTEE.parse(v));
                                case "max.row.bytes" ->
                                        b.maxRowBytes(RowLimit.MAX_ROW_BYTES.parse(v));
                                default -> b.streams(k, v);
                            }
                        });
        sink().forEach(
                        (k, v) -> {
                            if (k.equals(rowLimit)) {
                                b.maxRowBytes(RowLimit.MAX_ROW_BYTES.parse(v));
                            } else {
                                b.sink(k, v);
                            }
                        });
        return b;
    }

    private static Stage stage(String key) {
        for (Stage s : STAGES) {
            if (key.startsWith(s.prefix())) {
                return s;
            }
        }
        throw new ConfigException(
                key,
                "a setting starts with "
                        + String.join(", ", PREFIXES).replaceAll(", (?=[^,]*$)", " or "));
    }
}
