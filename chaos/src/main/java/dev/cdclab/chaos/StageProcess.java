package dev.cdclab.chaos;

import dev.cdclab.orchestration.infra.ChildJvm;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A stage ({@code streams} or {@code sink}) in a JVM of its own, so that it can be killed. */
public final class StageProcess {
    private StageProcess() {}

    /**
     * A stage's JVM, not yet started.
     *
     * @param name for its log file
     * @param command the {@code cdc-lab} command ({@code streams}, {@code sink})
     * @param stageMain the class whose main runs {@code cdc-lab}
     * @param settings the stage's settings, passed as {@code --set key=value}
     * @param extraArgs arguments after the settings
     * @param env extra environment (secrets)
     * @param jvm JVM options beside the heap, collector and JIT ones
     */
    public static ChildJvm of(
            String name,
            String command,
            String stageMain,
            Path work,
            Map<String, String> settings,
            List<String> extraArgs,
            Map<String, String> env,
            List<String> jvm) {
        List<String> args = new ArrayList<>();
        args.add(command);
        settings.forEach(
                (k, v) -> {
                    args.add("--set");
                    args.add(k + "=" + v);
                });
        args.addAll(extraArgs);
        // C1 alone, as the launcher runs these stages: a restarted stage works through its
        // outage's backlog instead of competing with C2 compiling in every stage at once
        List<String> jvmOptions =
                new ArrayList<>(List.of("-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        jvmOptions.addAll(jvm);
        return new ChildJvm(name, stageMain, args, work, env, jvmOptions);
    }
}
