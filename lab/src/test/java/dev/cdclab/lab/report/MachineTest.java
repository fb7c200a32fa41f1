package dev.cdclab.lab.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The machine line names the JVM options and allocator settings a run had, and only those. */
class MachineTest {
    private static Map<String, Object> facts() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cores", 2);
        m.put("memory_gib", 24L);
        m.put("os", "Linux 6.18.44 amd64");
        m.put("java", "OpenJDK 64-Bit Server VM 17.0.15");
        m.put("max_heap_mib", 1024L);
        return m;
    }

    @Test
    void withoutTunablesTheLineIsTheMachineAndJava() {
        assertThat(Machine.oneLine(facts()))
                .isEqualTo("2 cores, 24 GiB, Linux 6.18.44 amd64, Java 17.0.15");
    }

    @Test
    void glibcTunablesAreNamedWhenSet() {
        Map<String, Object> m = facts();
        m.put("glibc_tunables", "glibc.malloc.tcache_count=4096");
        assertThat(Machine.oneLine(m))
                .isEqualTo(
                        "2 cores, 24 GiB, Linux 6.18.44 amd64, Java 17.0.15,"
                                + " GLIBC_TUNABLES=glibc.malloc.tcache_count=4096");
    }

    @Test
    void jvmOptionsFollowJavaAndPrecedeTheTunables() {
        Map<String, Object> m = facts();
        m.put("jvm_options", List.of("-Xmx1g", "-XX:Tier4InvocationThreshold=50000"));
        m.put("glibc_tunables", "glibc.malloc.tcache_count=4096");
        assertThat(Machine.oneLine(m))
                .isEqualTo(
                        "2 cores, 24 GiB, Linux 6.18.44 amd64, Java 17.0.15 -Xmx1g"
                                + " -XX:Tier4InvocationThreshold=50000,"
                                + " GLIBC_TUNABLES=glibc.malloc.tcache_count=4096");
    }

    @Test
    void onlyOptionsThatChangeHowTheJvmRunsAreKept() {
        assertThat(
                        Machine.jvmOptions(
                                List.of(
                                        "-javaagent:/x/jacoco.jar",
                                        "-XX:+UseG1GC",
                                        "-Xlog:cds=off",
                                        "-XX:SharedArchiveFile=/home/u/.cache/a.jsa",
                                        "-Xshare:auto",
                                        "-XX:ArchiveClassesAtExit=/tmp/a.jsa",
                                        "-XX:+LogCompilation",
                                        "-XX:LogFile=/tmp/jit.log",
                                        "-XX:HeapDumpPath=/tmp",
                                        "-XX:+HeapDumpOnOutOfMemoryError",
                                        "-Dfoo=bar",
                                        "-Xmx1g")))
                .containsExactly("-XX:+UseG1GC", "-XX:+HeapDumpOnOutOfMemoryError", "-Xmx1g");
    }

    @Test
    void describeReadsTheEnvironment() {
        String env = System.getenv("GLIBC_TUNABLES");
        Map<String, Object> m = Machine.describe();
        if (env == null || env.isBlank()) {
            assertThat(m).doesNotContainKey("glibc_tunables");
        } else {
            assertThat(m).containsEntry("glibc_tunables", env);
        }
        assertThat(m).containsKeys("cores", "memory_gib", "os", "java", "max_heap_mib");
    }
}
