package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The options {@code ./cdc-lab} gives the JVM of each command, read through a {@code java} on the
 * PATH that prints its arguments instead of running.
 */
@Timeout(60)
class LauncherJvmOptionsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final String C1_ALONE = "-XX:TieredStopAtLevel=1";
    private static final List<String> C2_THRESHOLDS_TENFOLD =
            List.of(
                    "-XX:Tier4InvocationThreshold=50000",
                    "-XX:Tier4MinInvocationThreshold=6000",
                    "-XX:Tier4CompileThreshold=150000",
                    "-XX:Tier4BackEdgeThreshold=400000");

    @TempDir Path dir;

    @Test
    void theStagesAUserRestartsAreCompiledByC1Alone() throws Exception {
        for (String stage : List.of("streams", "sink")) {
            List<String> args = javaArguments(Map.of(), stage, "--help");
            assertThat(args).as(stage).contains(C1_ALONE, "-Xmx1g");
            assertThat(args).as(stage).doesNotContainAnyElementsOf(C2_THRESHOLDS_TENFOLD);
            assertThat(args).as(stage).anyMatch(a -> a.startsWith("-XX:ArchiveClassesAtExit="));
            assertThat(args.subList(args.indexOf("dev.cdclab.cli.CdcLab"), args.size()))
                    .containsExactly("dev.cdclab.cli.CdcLab", stage, "--help");
        }
    }

    @Test
    void otherCommandsKeepBothTiersWithC2sThresholdsTenfold() throws Exception {
        for (String command : List.of("run", "up", "bench", "chaos")) {
            assertThat(javaArguments(Map.of(), command, "--help"))
                    .as(command)
                    .contains("-Xmx1g")
                    .containsAll(C2_THRESHOLDS_TENFOLD)
                    .doesNotContain(C1_ALONE);
        }
    }

    @Test
    void javaOptionsOfTheUsersOwnReplaceTheLaunchersForTheStagesToo() throws Exception {
        List<String> args =
                javaArguments(Map.of("CDCLAB_JAVA_OPTS", "-Xmx2g -XX:+UseSerialGC"), "sink");
        assertThat(args).contains("-Xmx2g", "-XX:+UseSerialGC").doesNotContain(C1_ALONE, "-Xmx1g");
        assertThat(javaArguments(Map.of("CDCLAB_JAVA_OPTS", "-Xmx2g"), "run"))
                .contains("-Xmx2g")
                .doesNotContainAnyElementsOf(C2_THRESHOLDS_TENFOLD);
    }

    private List<String> javaArguments(Map<String, String> env, String... command)
            throws IOException, InterruptedException {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path java = bin.resolve("java");
        Files.writeString(java, "#!/bin/sh\nprintf '%s\\n' \"$@\"\n", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path out = dir.resolve("java-arguments.txt");
        List<String> cmd = new ArrayList<>(List.of(ROOT.resolve("cdc-lab").toString()));
        cmd.addAll(List.of(command));
        ProcessBuilder pb =
                new ProcessBuilder(cmd)
                        .directory(ROOT.toFile())
                        .redirectOutput(out.toFile())
                        .redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        // a cache of its own: no class-data archive of an earlier run is found or checked
        pb.environment().put("XDG_CACHE_HOME", dir.resolve("cache").toString());
        pb.environment().remove("CDCLAB_JAVA_OPTS");
        pb.environment().putAll(env);
        Process p = pb.start();
        assertThat(p.waitFor(50, TimeUnit.SECONDS)).as("the launcher returned").isTrue();
        assertThat(p.exitValue()).as("the launcher's exit code").isZero();
        return Files.readAllLines(out, StandardCharsets.UTF_8);
    }
}
