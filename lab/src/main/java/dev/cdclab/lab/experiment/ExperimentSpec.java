package dev.cdclab.lab.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.cdclab.config.ConfigException;
import dev.cdclab.config.Durations;
import dev.cdclab.config.OneLineError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * An experiment file: a workload, its phases, and a matrix of pipeline settings whose cells are the
 * cartesian product of the factor levels. Every key is checked when the file is read; an unknown
 * one fails with a suggestion (see docs/experiments.md).
 *
 * @param name the experiment's name (letters, digits, '-', '_')
 * @param reproduces what it reproduces, free text printed in the summary
 * @param description what it measures, free text
 * @param scale the scale it was read at
 * @param phases warm-up, measured load and the longest wait for the warehouse afterwards
 * @param repetitions runs per cell
 * @param base settings every cell starts from: the workload block and the constants
 * @param factors setting key to its levels, in file order
 * @param conclusions the seed's claims checked against the results
 */
public record ExperimentSpec(
        String name,
        String reproduces,
        String description,
        Scale scale,
        Phases phases,
        int repetitions,
        Map<String, String> base,
        Map<String, List<String>> factors,
        List<Conclusion> conclusions) {

    /** How big the experiment runs. */
    public enum Scale {
        /** As the file says. */
        FILE,
        /** Short phases, few threads, small tables: a whole file in minutes on a laptop. */
        QUICK,
        /** The white paper's: 100 threads, 500 s, 390,000 prefilled rows. */
        PAPER;

        /** {@code quick}, {@code paper} or {@code file}. */
        public static Scale parse(String s) {
            for (Scale v : values()) {
                if (v.name().equalsIgnoreCase(s.trim())) {
                    return v;
                }
            }
            throw new IllegalArgumentException(
                    "--scale: '" + s + "' is not one of quick, paper, file");
        }

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * The phases of every cell.
     *
     * @param warmup load before measuring, excluded from the results
     * @param measure the measured load (or until {@code workload.transactions} are done)
     * @param drain the longest wait for the warehouse after the load
     */
    public record Phases(Duration warmup, Duration measure, Duration drain) {}

    private static final Set<String> TOP =
            Set.of(
                    "name",
                    "reproduces",
                    "description",
                    "workload",
                    "phases",
                    "repetitions",
                    "factors",
                    "constants",
                    "conclusions",
                    "scales");
    private static final Set<String> PHASES = Set.of("warmup", "measure", "drain");
    private static final Set<String> SCALES = Set.of("quick", "paper");
    static final Duration QUICK_MEASURE = Duration.ofSeconds(15);
    static final Duration QUICK_WARMUP = Duration.ofSeconds(5);
    static final int QUICK_THREADS = 8;
    static final long QUICK_PREFILL = 10_000;

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /**
     * An experiment file's text from its tree (the keys of a file: name, workload, phases, factors,
     * constants, ...), for experiments a command composes.
     */
    public static String yaml(Map<String, Object> tree) {
        try {
            return YAML.writeValueAsString(tree);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot write as YAML: " + e.getMessage(), e);
        }
    }

    /**
     * Reads and checks a file.
     *
     * @throws ConfigException naming the key and what is wrong with it
     * @throws IllegalArgumentException when the file cannot be read or parsed
     */
    public static ExperimentSpec read(Path file, Scale scale) {
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("experiment file " + file + " does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage());
        }
        return parse(text, file.getFileName().toString(), scale);
    }

    /** Parses the text of a file; {@code origin} names it in errors. */
    public static ExperimentSpec parse(String yaml, String origin, Scale scale) {
        JsonNode root;
        try {
            root = YAML.readTree(yaml);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    origin + " is not valid YAML: " + OneLineError.firstLine(e.getMessage(), ""));
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException(origin + " must be a YAML mapping (name: ...)");
        }
        checkKeys(root, TOP, "");
        ObjectNode tree = ((ObjectNode) root).deepCopy();
        if (tree.has("scales")) {
            checkKeys(tree.get("scales"), SCALES, "scales.");
            JsonNode over = tree.get("scales").get(scale.label());
            if (over != null) {
                checkKeys(over, minus(TOP, "scales", "name"), "scales." + scale.label() + ".");
            }
        }
        applyScale(tree, scale);
        return fromTree(tree, scale);
    }

    private static Set<String> minus(Set<String> s, String... drop) {
        Set<String> r = new java.util.HashSet<>(s);
        r.removeAll(List.of(drop));
        return r;
    }

    private static void applyScale(ObjectNode tree, Scale scale) {
        if (scale == Scale.FILE) {
            return;
        }
        ObjectNode phases = tree.with("phases");
        ObjectNode workload = tree.with("workload");
        if (scale == Scale.QUICK) {
            capDuration(phases, "measure", QUICK_MEASURE);
            capDuration(phases, "warmup", QUICK_WARMUP);
            if (workload.path("threads").asInt(16) > QUICK_THREADS) {
                workload.put("threads", QUICK_THREADS);
            }
            long prefill = workload.path("prefill").asLong(-1);
            if (prefill < 0 || prefill > QUICK_PREFILL) {
                workload.put("prefill", QUICK_PREFILL);
            }
        } else {
            phases.put("measure", "500s");
            workload.put("threads", 100);
            workload.put("prefill", 390_000);
        }
        JsonNode over = tree.path("scales").get(scale.label());
        if (over != null) {
            merge(tree, (ObjectNode) over);
        }
    }

    private static void capDuration(ObjectNode phases, String key, Duration cap) {
        Duration d =
                phases.has(key) ? Durations.parse(phases.get(key).asText()) : defaultPhase(key);
        if (d.compareTo(cap) > 0) {
            phases.put(key, Durations.format(cap));
        }
    }

    private static Duration defaultPhase(String key) {
        return switch (key) {
            case "warmup" -> Duration.ofSeconds(10);
            case "measure" -> Duration.ofSeconds(30);
            default -> Duration.ofMinutes(5);
        };
    }

    /** Deep merge: mappings merge key by key, anything else replaces. */
    private static void merge(ObjectNode into, ObjectNode from) {
        for (Iterator<Map.Entry<String, JsonNode>> it = from.fields(); it.hasNext(); ) {
            var e = it.next();
            JsonNode cur = into.get(e.getKey());
            if (cur instanceof ObjectNode o && e.getValue() instanceof ObjectNode n) {
                merge(o, n);
            } else {
                into.set(e.getKey(), e.getValue().deepCopy());
            }
        }
    }

    private static ExperimentSpec fromTree(ObjectNode tree, Scale scale) {
        String name = text(tree, "name", null);
        if (name == null || !name.matches("[A-Za-z0-9][A-Za-z0-9_-]{0,63}")) {
            throw new ConfigException(
                    "name",
                    "required: letters, digits, '-' and '_' (it names the results directory)");
        }
        JsonNode ph = tree.path("phases");
        if (!ph.isMissingNode()) {
            checkKeys(ph, PHASES, "phases.");
        }
        Phases phases =
                new Phases(
                        duration(ph, "warmup", defaultPhase("warmup"), true),
                        duration(ph, "measure", defaultPhase("measure"), false),
                        duration(ph, "drain", defaultPhase("drain"), false));
        int reps = tree.path("repetitions").asInt(1);
        if (reps < 1
                || reps > 100
                || (tree.has("repetitions") && !tree.get("repetitions").isInt())) {
            throw new ConfigException("repetitions", "must be a whole number 1..100");
        }

        Map<String, String> base = new LinkedHashMap<>();
        JsonNode wl = tree.path("workload");
        if (!wl.isMissingNode()) {
            if (!wl.isObject()) {
                throw new ConfigException(
                        "workload", "must be a mapping, e.g. {name: mix, rate: 500}");
            }
            wl.fields()
                    .forEachRemaining(
                            e ->
                                    base.put(
                                            "workload." + e.getKey(),
                                            scalar(e.getValue(), "workload." + e.getKey())));
        }
        JsonNode constants = tree.path("constants");
        if (!constants.isMissingNode() && !constants.isObject()) {
            throw new ConfigException("constants", "must be a mapping of setting: value");
        }
        constants
                .fields()
                .forEachRemaining(e -> base.put(e.getKey(), scalar(e.getValue(), e.getKey())));

        Map<String, List<String>> factors = new LinkedHashMap<>();
        JsonNode fs = tree.path("factors");
        if (!fs.isMissingNode() && !fs.isObject()) {
            throw new ConfigException("factors", "must be a mapping of setting: [level, ...]");
        }
        fs.fields()
                .forEachRemaining(
                        e -> {
                            List<String> levels = new ArrayList<>();
                            if (e.getValue().isArray()) {
                                e.getValue().forEach(v -> levels.add(scalar(v, e.getKey())));
                            } else {
                                levels.add(scalar(e.getValue(), e.getKey()));
                            }
                            if (levels.isEmpty()) {
                                throw new ConfigException(
                                        e.getKey(), "a factor needs at least one level");
                            }
                            if (levels.size() != new java.util.HashSet<>(levels).size()) {
                                throw new ConfigException(e.getKey(), "a level is listed twice");
                            }
                            factors.put(e.getKey(), levels);
                        });

        // every key a cell can get is checked now, not when its cell starts
        for (var e : base.entrySet()) {
            CellSettings.check(e.getKey(), e.getValue());
        }
        for (var e : factors.entrySet()) {
            for (String level : e.getValue()) {
                CellSettings.check(e.getKey(), level);
            }
        }

        List<Conclusion> conclusions = new ArrayList<>();
        JsonNode cs = tree.path("conclusions");
        if (!cs.isMissingNode()) {
            if (!cs.isArray()) {
                throw new ConfigException("conclusions", "must be a list");
            }
            int i = 0;
            for (JsonNode c : cs) {
                conclusions.add(Conclusion.from(c, "conclusions[" + i++ + "]", factors, base));
            }
        }
        return new ExperimentSpec(
                name,
                text(tree, "reproduces", ""),
                text(tree, "description", ""),
                scale,
                phases,
                reps,
                base,
                factors,
                conclusions);
    }

    static void checkKeys(JsonNode node, Set<String> known, String prefix) {
        if (!node.isObject()) {
            throw new ConfigException(
                    prefix.isEmpty() ? "(file)" : prefix.substring(0, prefix.length() - 1),
                    "must be a mapping");
        }
        node.fieldNames()
                .forEachRemaining(
                        k -> {
                            if (!known.contains(k)) {
                                throw new ConfigException(
                                        prefix + k,
                                        "unknown key" + CellSettings.suggestion(k, known));
                            }
                        });
    }

    private static String text(JsonNode tree, String key, String dflt) {
        JsonNode n = tree.get(key);
        return n == null || n.isNull() ? dflt : scalar(n, key);
    }

    static String scalar(JsonNode n, String key) {
        if (n.isContainerNode()) {
            throw new ConfigException(key, "must be a single value, not a list or mapping");
        }
        return n.asText();
    }

    private static Duration duration(JsonNode node, String key, Duration dflt, boolean zeroOk) {
        JsonNode n = node.get(key);
        if (n == null) {
            return dflt;
        }
        Duration d;
        try {
            d = Durations.parse(n.asText());
        } catch (RuntimeException e) {
            throw new ConfigException("phases." + key, e.getMessage());
        }
        if (d.isNegative() || (!zeroOk && d.isZero())) {
            throw new ConfigException("phases." + key, zeroOk ? "must be >= 0" : "must be > 0");
        }
        return d;
    }

    /** The cells, in run order: factor levels varied last-factor-fastest, then repetitions. */
    public List<ExperimentCell> cells() {
        List<Map<String, String>> combos = new ArrayList<>();
        combos.add(new LinkedHashMap<>());
        for (var f : factors.entrySet()) {
            List<Map<String, String>> next = new ArrayList<>();
            for (Map<String, String> c : combos) {
                for (String level : f.getValue()) {
                    Map<String, String> m = new LinkedHashMap<>(c);
                    m.put(f.getKey(), level);
                    next.add(m);
                }
            }
            combos = next;
        }
        List<ExperimentCell> cells = new ArrayList<>();
        int n = 0;
        for (Map<String, String> c : combos) {
            n++;
            for (int r = 1; r <= repetitions; r++) {
                Map<String, String> settings = new LinkedHashMap<>(base);
                settings.putAll(c);
                cells.add(
                        new ExperimentCell(
                                ExperimentCell.id(n, c, r, repetitions), c, r, settings));
            }
        }
        return cells;
    }
}
