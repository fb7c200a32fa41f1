package dev.cdclab.lab.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.lab.bench.CpuMeter;
import dev.cdclab.lab.bench.ThreadRole;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunReportTest {

    private static CpuMeter.Usage usage(double machine, double jvm, double postgres) {
        Map<ThreadRole, Double> roles = new EnumMap<>(ThreadRole.class);
        roles.put(ThreadRole.LOAD, 5.1);
        roles.put(ThreadRole.SINK, 6.6);
        roles.put(ThreadRole.JIT, 14.4);
        roles.put(ThreadRole.GC, 0.1);
        roles.put(ThreadRole.OTHER, jvm - 26.2);
        return new CpuMeter.Usage(machine, jvm, postgres, 30, roles);
    }

    @Test
    void cpuLineGivesCoresBusyByProcessAndByWhatTheJvmsThreadsWorkFor() {
        String line = RunReport.cpuLine(usage(30, 27, 2), 4);

        assertThat(line)
                .isEqualTo(
                        "1.00 of 4 cores busy over 30.00 s (load and catch-up): PostgreSQL 0.07,"
                                + " this JVM 0.90 (load generator 0.17, sink 0.22, JIT compiler"
                                + " 0.48, other 0.03), other processes 0.03");
    }

    @Test
    void cpuLineSaysWhenTheMachineWasSaturated() {
        assertThat(RunReport.cpuLine(usage(57, 42, 14), 2))
                .startsWith("1.90 of 2 cores busy")
                .endsWith("; the machine was saturated: latency includes waiting for a core");
        assertThat(RunReport.cpuLine(usage(53, 42, 10), 2)).doesNotContain("saturated");
    }
}
