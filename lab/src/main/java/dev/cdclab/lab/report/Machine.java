package dev.cdclab.lab.report;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Facts about the machine a measurement ran on. */
public final class Machine {
    private Machine() {}

    /**
     * Cores, memory, OS, Java, maximum heap, the JVM's {@code -X} options and glibc's tunables when
     * set, by key.
     */
    public static Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cores", Runtime.getRuntime().availableProcessors());
        long mem = 0;
        if (ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os) {
            mem = os.getTotalMemorySize();
        }
        m.put("memory_gib", Math.round(mem / (1024.0 * 1024 * 1024)));
        m.put(
                "os",
                System.getProperty("os.name")
                        + " "
                        + System.getProperty("os.version")
                        + " "
                        + System.getProperty("os.arch"));
        m.put(
                "java",
                System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        m.put("max_heap_mib", Runtime.getRuntime().maxMemory() / (1024 * 1024));
        List<String> options = jvmOptions(ManagementFactory.getRuntimeMXBean().getInputArguments());
        if (!options.isEmpty()) {
            m.put("jvm_options", options);
        }
        String tunables = System.getenv("GLIBC_TUNABLES");
        if (tunables != null && !tunables.isBlank()) {
            m.put("glibc_tunables", tunables);
        }
        return m;
    }

    /**
     * The options of the JVM's command line that change how it runs ({@code -X...}: heap,
     * collector, compiler), without logging and class-data archive options, nor any that names a
     * file or directory ({@code -XX:LogFile=}, {@code -XX:HeapDumpPath=}).
     */
    static List<String> jvmOptions(List<String> arguments) {
        return arguments.stream()
                .filter(a -> a.startsWith("-X"))
                .filter(a -> !a.startsWith("-Xlog") && !a.startsWith("-Xshare"))
                .filter(a -> !NAMES_A_FILE.matcher(a).matches())
                .toList();
    }

    private static final java.util.regex.Pattern NAMES_A_FILE =
            java.util.regex.Pattern.compile(
                    "-XX:[+-]?(\\w*(File|Path|Dir|AtExit)|LogCompilation|LogVMOutput)(=.*)?");

    /**
     * {@code 2 cores, 24 GiB, Linux 6.1 amd64, Java 17.0.15}, then the JVM's options and the C
     * library's allocator settings when there are any (the launcher sets both).
     */
    public static String oneLine() {
        return oneLine(describe());
    }

    /** {@link #oneLine()} of the facts {@link #describe()} gives. */
    static String oneLine(Map<String, Object> m) {
        Object tunables = m.get("glibc_tunables");
        Object options = m.get("jvm_options");
        return m.get("cores")
                + " cores, "
                + m.get("memory_gib")
                + " GiB, "
                + m.get("os")
                + ", Java "
                + String.valueOf(m.get("java")).replaceFirst(".* ", "")
                + (options instanceof List<?> l && !l.isEmpty()
                        ? " " + String.join(" ", l.stream().map(String::valueOf).toList())
                        : "")
                + (tunables == null ? "" : ", GLIBC_TUNABLES=" + tunables);
    }
}
