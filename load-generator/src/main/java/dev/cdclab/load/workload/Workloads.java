package dev.cdclab.load.workload;

import dev.cdclab.load.dialect.SqlDialect;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;

/** The workloads by name. */
public final class Workloads {
    private static final Map<String, BiFunction<SqlDialect, WorkloadOptions, Workload>> ALL =
            new LinkedHashMap<>();

    static {
        ALL.put("mix", MixWorkload::new);
        ALL.put("hot", HotWorkload::new);
        ALL.put("transfer", TransferWorkload::new);
        ALL.put("W1", PaperWorkloads::w1);
        ALL.put("W2", PaperWorkloads::w2);
        ALL.put("W3", PaperWorkloads.SmallUpdate::new);
        ALL.put("W4", PaperWorkloads::w4);
        ALL.put("W5", PaperWorkloads.Mixed::new);
        ALL.put("W6", PaperWorkloads.LargeUpdate::new);
        ALL.put("W7", PaperWorkloads.LargeInsert::new);
        ALL.put("R1", ReplicationMixWorkload::new);
        ALL.put("T1", (d, o) -> new LargeTransactionWorkload(d, o, false));
        ALL.put("T1-single", (d, o) -> new LargeTransactionWorkload(d, o, true));
    }

    private Workloads() {}

    /** Names, in documentation order. */
    public static java.util.Set<String> names() {
        return ALL.keySet();
    }

    /**
     * Creates a workload.
     *
     * @throws IllegalArgumentException naming the valid choices when the name is unknown
     */
    public static Workload create(String name, SqlDialect dialect, WorkloadOptions options) {
        var f = ALL.get(name.toLowerCase(Locale.ROOT));
        if (f == null) {
            for (var e : ALL.entrySet()) {
                if (e.getKey().equalsIgnoreCase(name)) {
                    f = e.getValue();
                }
            }
        }
        if (f == null) {
            throw new IllegalArgumentException(
                    "unknown workload '"
                            + name
                            + "'; choose one of "
                            + String.join(", ", ALL.keySet()));
        }
        return f.apply(dialect, options);
    }

    /** One-line descriptions by name. */
    public static Map<String, String> descriptions(SqlDialect dialect) {
        Map<String, String> out = new LinkedHashMap<>();
        WorkloadOptions o = new WorkloadOptions(1, -1, -1, -1, 100);
        ALL.forEach((k, f) -> out.put(k, f.apply(dialect, o).description()));
        return out;
    }
}
