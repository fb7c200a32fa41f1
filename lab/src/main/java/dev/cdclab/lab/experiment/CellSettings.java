package dev.cdclab.lab.experiment;

import dev.cdclab.config.ConfigException;
import dev.cdclab.config.Configuration;
import dev.cdclab.config.SourceKind;
import dev.cdclab.load.workload.Workloads;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.orchestration.StageSettings;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The settings of one cell, split by where they go: the workload, the source server, and the
 * capture, Streams, sink and infrastructure configurations the pipeline is built with.
 */
public final class CellSettings {
    /** Workload keys ({@code workload.<key>}) and what they mean. */
    static final Map<String, String> WORKLOAD_KEYS = new LinkedHashMap<>();

    /**
     * Source server settings ({@code source.<name>}) a cell may set; all take effect on reload, so
     * they are applied with ALTER SYSTEM before capture starts.
     */
    static final Set<String> SOURCE_SETTINGS =
            Set.of(
                    "max_wal_size",
                    "min_wal_size",
                    "wal_compression",
                    "checkpoint_timeout",
                    "checkpoint_completion_target",
                    "synchronous_commit",
                    "wal_writer_delay",
                    "wal_writer_flush_after",
                    "commit_delay",
                    "commit_siblings");

    /** Experiment-level keys that are not settings of a stage. */
    static final String CAPTURE_ENABLED = "capture.enabled";

    static final String SOURCE_DURABLE = "source.durable";

    static final String SOURCE_KIND = "source.kind";

    /** duckdb (default) or postgresql: the warehouse the cell's pipeline starts for itself. */
    static final String WAREHOUSE = "warehouse";

    static {
        WORKLOAD_KEYS.put("name", "workload (see cdc-lab load --help)");
        WORKLOAD_KEYS.put("rate", "target tx/s, open loop; 0 = as fast as the threads go");
        WORKLOAD_KEYS.put("threads", "client threads");
        WORKLOAD_KEYS.put("prefill", "rows loaded before capture starts; -1 = the workload's");
        WORKLOAD_KEYS.put("seed", "random seed");
        WORKLOAD_KEYS.put("tx-size", "rows per transaction for W6, W7, T1");
        WORKLOAD_KEYS.put("filled-columns", "columns inserts fill in W1, W2, W7");
        WORKLOAD_KEYS.put("hot-keys", "keys the hot workload updates");
        WORKLOAD_KEYS.put(
                "transactions", "stop after this many transactions; 0 = run for phases.measure");
        WORKLOAD_KEYS.put(
                "nice",
                "CPU niceness (0-19) of the load's client threads and, with an embedded source,"
                        + " of the source's processes serving them; 0 (default) = normal priority,"
                        + " as the papers' tables of the source's throughput assume");
        WORKLOAD_KEYS.put(
                "during-snapshot",
                "true starts the load before capture, so the initial snapshot runs under it");
    }

    /**
     * The workload of a cell.
     *
     * @param name workload name
     * @param rate target tx/s; 0 = closed loop
     * @param threads client threads
     * @param prefill rows before capture; -1 = the workload's default
     * @param seed random seed
     * @param txSize rows per transaction; -1 = default
     * @param filledColumns columns filled; -1 = default
     * @param hotKeys keys of the hot workload
     * @param transactions stop after this many; 0 = run for the measured duration
     * @param duringSnapshot start the load before capture, under the initial snapshot
     * @param nice the load's CPU niceness (see {@code LoadPriority})
     */
    public record WorkloadSettings(
            String name,
            double rate,
            int threads,
            long prefill,
            long seed,
            int txSize,
            int filledColumns,
            int hotKeys,
            long transactions,
            boolean duringSnapshot,
            int nice) {}

    private final Map<String, String> all;
    private final WorkloadSettings workload;
    private final boolean captureEnabled;
    private final boolean durable;
    private final SourceKind sourceKind;
    private final boolean postgresWarehouse;
    private final Map<String, String> sourceSettings = new LinkedHashMap<>();
    private final StageSettings stages;

    CellSettings(Map<String, String> settings) {
        settings.forEach(CellSettings::check);
        this.all = Map.copyOf(settings);
        Map<String, String> w = new LinkedHashMap<>();
        boolean enabled = true;
        boolean durableSource = true;
        SourceKind kind = SourceKind.POSTGRES;
        boolean postgres = false;
        Map<String, String> stageKeys = new LinkedHashMap<>();
        for (var e : settings.entrySet()) {
            String k = e.getKey();
            String v = e.getValue();
            if (k.startsWith("workload.")) {
                w.put(k.substring("workload.".length()), v);
            } else if (k.equals(CAPTURE_ENABLED)) {
                enabled = Boolean.parseBoolean(v.trim());
            } else if (k.equals(SOURCE_DURABLE)) {
                durableSource = Boolean.parseBoolean(v.trim());
            } else if (k.equals(SOURCE_KIND)) {
                kind = SourceKind.parse(v);
            } else if (k.equals(WAREHOUSE)) {
                postgres = v.trim().equalsIgnoreCase("postgresql");
            } else if (k.startsWith("source.")) {
                sourceSettings.put(k.substring("source.".length()), v);
            } else {
                stageKeys.put(k, v);
            }
        }
        this.stages = StageSettings.of(stageKeys);
        this.captureEnabled = enabled;
        this.durable = durableSource;
        this.sourceKind = kind;
        this.postgresWarehouse = postgres;
        if (kind != SourceKind.POSTGRES && !sourceSettings.isEmpty()) {
            throw new ConfigException(
                    "source." + sourceSettings.keySet().iterator().next(),
                    "a PostgreSQL setting; this cell's source.kind is " + kind.label());
        }
        this.workload =
                new WorkloadSettings(
                        w.getOrDefault("name", "mix"),
                        Double.parseDouble(w.getOrDefault("rate", "500")),
                        Integer.parseInt(w.getOrDefault("threads", "8")),
                        Long.parseLong(w.getOrDefault("prefill", "-1")),
                        Long.parseLong(w.getOrDefault("seed", "42")),
                        Integer.parseInt(w.getOrDefault("tx-size", "-1")),
                        Integer.parseInt(w.getOrDefault("filled-columns", "-1")),
                        Integer.parseInt(w.getOrDefault("hot-keys", "100")),
                        Long.parseLong(w.getOrDefault("transactions", "0")),
                        Boolean.parseBoolean(w.getOrDefault("during-snapshot", "false").trim()),
                        Integer.parseInt(w.getOrDefault("nice", "0").trim()));
    }

    public WorkloadSettings workload() {
        return workload;
    }

    /** False runs the workload on the source alone: no slot, no Debezium, no pipeline. */
    public boolean captureEnabled() {
        return captureEnabled;
    }

    public boolean durable() {
        return durable;
    }

    /** The source database: postgres (default) or sqlserver (containers or external infra). */
    public SourceKind sourceKind() {
        return sourceKind;
    }

    /** Server settings applied to the source before capture starts. */
    public Map<String, String> sourceSettings() {
        return sourceSettings;
    }

    public Map<String, String> infra() {
        return stages.infra();
    }

    /** Every setting of the cell. */
    public Map<String, String> all() {
        return all;
    }

    /** Puts the stage settings on a pipeline builder. */
    void apply(Pipeline.Builder b) {
        b.durable(durable).postgresWarehouse(postgresWarehouse);
        stages.applyTo(b);
    }

    /**
     * Checks one setting: a known key with a valid value.
     *
     * @throws ConfigException naming the key, with a suggestion for a near miss
     */
    static void check(String key, String value) {
        if (key.startsWith("workload.")) {
            String k = key.substring("workload.".length());
            if (!WORKLOAD_KEYS.containsKey(k)) {
                throw new ConfigException(
                        key, "unknown workload key" + suggestion(k, WORKLOAD_KEYS.keySet()));
            }
            checkWorkloadValue(key, k, value);
        } else if (key.equals(SOURCE_KIND)) {
            try {
                SourceKind.parse(value);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(key, e.getMessage());
            }
        } else if (key.equals(WAREHOUSE)) {
            if (!value.trim().equalsIgnoreCase("duckdb")
                    && !value.trim().equalsIgnoreCase("postgresql")) {
                throw new ConfigException(key, "'" + value + "' is not duckdb or postgresql");
            }
        } else if (key.equals(CAPTURE_ENABLED) || key.equals(SOURCE_DURABLE)) {
            if (!value.trim().equalsIgnoreCase("true") && !value.trim().equalsIgnoreCase("false")) {
                throw new ConfigException(key, "'" + value + "' is not true or false");
            }
        } else if (key.startsWith("source.")) {
            String k = key.substring("source.".length());
            if (!SOURCE_SETTINGS.contains(k)) {
                Set<String> known = new TreeSet<>(SOURCE_SETTINGS);
                known.add("durable");
                known.add("kind");
                throw new ConfigException(
                        key,
                        "not a source setting an experiment can vary"
                                + suggestion(k, known)
                                + "; known: kind, durable, "
                                + String.join(", ", new TreeSet<>(SOURCE_SETTINGS)));
            }
        } else if (StageSettings.isStageKey(key)) {
            StageSettings.check(key, value);
        } else {
            throw new ConfigException(
                    key,
                    "a setting is warehouse, or starts with workload., capture., streams., sink.,"
                            + " source. or infra."
                            + suggestion(
                                    key, List.of("capture.enabled", "source.durable", WAREHOUSE)));
        }
    }

    private static void checkWorkloadValue(String key, String k, String value) {
        try {
            switch (k) {
                case "name" -> {
                    boolean known =
                            Workloads.names().stream().anyMatch(n -> n.equalsIgnoreCase(value));
                    if (!known) {
                        throw new ConfigException(
                                key,
                                "unknown workload '"
                                        + value
                                        + "'"
                                        + suggestion(value, Workloads.names())
                                        + "; known: "
                                        + String.join(", ", Workloads.names()));
                    }
                }
                case "rate" -> positive(key, Double.parseDouble(value), true);
                case "threads" -> {
                    int t = Integer.parseInt(value.trim());
                    if (t < 1 || t > 1000) {
                        throw new ConfigException(key, "must be 1..1000");
                    }
                }
                case "prefill", "tx-size", "filled-columns" -> {
                    if (Long.parseLong(value.trim()) < -1) {
                        throw new ConfigException(key, "must be >= 0, or -1 for the workload's");
                    }
                }
                case "hot-keys" -> positive(key, Integer.parseInt(value.trim()), false);
                case "nice" -> {
                    int n = Integer.parseInt(value.trim());
                    if (n < 0 || n > 19) {
                        throw new ConfigException(key, "must be 0..19");
                    }
                }
                case "transactions" -> positive(key, Long.parseLong(value.trim()), true);
                case "during-snapshot" -> {
                    String v = value.trim();
                    if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
                        throw new ConfigException(key, "'" + value + "' is not true or false");
                    }
                }
                default -> Long.parseLong(value.trim());
            }
        } catch (NumberFormatException e) {
            throw new ConfigException(key, "'" + value + "' is not a number");
        }
    }

    private static void positive(String key, double v, boolean zeroOk) {
        if (v < 0 || (!zeroOk && v == 0)) {
            throw new ConfigException(key, zeroOk ? "must be >= 0" : "must be > 0");
        }
    }

    static String suggestion(String key, Collection<String> known) {
        return Configuration.suggestion(key, known);
    }
}
