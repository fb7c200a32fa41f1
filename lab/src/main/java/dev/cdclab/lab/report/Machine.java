package dev.cdclab.lab.report;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;

/** Facts about the machine a measurement ran on. */
public final class Machine {
    private Machine() {}

    /** Cores, memory, OS, Java, maximum heap and glibc's tunables when set, by key. */
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
        String tunables = System.getenv("GLIBC_TUNABLES");
        if (tunables != null && !tunables.isBlank()) {
            m.put("glibc_tunables", tunables);
        }
        return m;
    }

    /**
     * {@code 2 cores, 24 GiB, Linux 6.1 amd64, Java 17.0.15}, and the C library's allocator
     * settings when the environment gives any (the launcher does).
     */
    public static String oneLine() {
        return oneLine(describe());
    }

    /** {@link #oneLine()} of the facts {@link #describe()} gives. */
    static String oneLine(Map<String, Object> m) {
        Object tunables = m.get("glibc_tunables");
        return m.get("cores")
                + " cores, "
                + m.get("memory_gib")
                + " GiB, "
                + m.get("os")
                + ", Java "
                + String.valueOf(m.get("java")).replaceFirst(".* ", "")
                + (tunables == null ? "" : ", GLIBC_TUNABLES=" + tunables);
    }
}
