package dev.cdclab.orchestration.infra;

import dev.cdclab.orchestration.logging.LogFile;
import dev.cdclab.orchestration.logging.LoggingBackend;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stage in a JVM of its own, on this JVM's class path: started, stopped (SIGTERM, its shutdown
 * hooks run) or killed ({@code kill -9}: nothing runs), and started again with the same command.
 */
public final class ChildJvm implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChildJvm.class);
    private static final long EXIT_WAIT_SECONDS = 30;

    private final String name;
    private final List<String> command;
    private final Path workDir;
    private final Path logFile;
    private final Map<String, String> env;
    private Process process;

    /**
     * @param name for logs
     * @param mainClass the class to run
     * @param args its arguments
     * @param workDir its working directory
     * @param env extra environment (secrets go here, not in the arguments)
     * @param jvmOptions options before the class name, e.g. {@code -Xmx512m}
     */
    public ChildJvm(
            String name,
            String mainClass,
            List<String> args,
            Path workDir,
            Map<String, String> env,
            List<String> jvmOptions) {
        this.name = name;
        this.workDir = workDir;
        this.logFile = workDir.resolve("logs").resolve(name + ".out");
        this.env = Map.copyOf(env);
        String java =
                ProcessHandle.current()
                        .info()
                        .command()
                        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(args);
        this.command = List.copyOf(cmd);
    }

    /** Starts the process (again); its output goes to {@code logs/<name>.out}. */
    public synchronized ChildJvm start() {
        if (process != null && process.isAlive()) {
            return this;
        }
        try {
            Files.createDirectories(logFile.getParent());
            ProcessBuilder pb =
                    new ProcessBuilder(command)
                            .directory(workDir.toFile())
                            .redirectErrorStream(true)
                            .redirectOutput(Redirect.appendTo(logFile.toFile()));
            pb.environment().putAll(env);
            process = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + e.getMessage(), e);
        }
        LOG.info("{} started as process {}", name, process.pid());
        return this;
    }

    /** {@code kill -9}: the process ends at once; no shutdown hook, no last commit. */
    public synchronized void kill() {
        if (process != null) {
            process.destroyForcibly();
            awaitExit(EXIT_WAIT_SECONDS);
            LOG.info("{} killed (SIGKILL)", name);
        }
    }

    /** SIGTERM, then SIGKILL if it has not ended within 30 s. */
    public synchronized void stop() {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!awaitExit(EXIT_WAIT_SECONDS)) {
                process.destroyForcibly();
                awaitExit(EXIT_WAIT_SECONDS);
            }
        }
    }

    /** Whether the process runs. */
    public synchronized boolean alive() {
        return process != null && process.isAlive();
    }

    /** The process's exit code, or -1 while it runs or before it started. */
    public synchronized int exitCode() {
        return process == null || process.isAlive() ? -1 : process.exitValue();
    }

    /** Where its output goes. */
    public Path logFile() {
        return logFile;
    }

    public String name() {
        return name;
    }

    private boolean awaitExit(long seconds) {
        try {
            return process.waitFor(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public void close() {
        stop();
    }

    /**
     * Writes a server's settings to {@code file}, for its process to read with {@link
     * #readSettings}.
     */
    static void writeSettings(Path file, Map<String, String> settings, String comment) {
        Properties p = new Properties();
        p.putAll(settings);
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            try (OutputStream out = Files.newOutputStream(file)) {
                p.store(out, comment);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * In the child: sends its logs to {@code logFile} (when Logback is the backend) and reads the
     * settings {@link #writeSettings} wrote.
     */
    static Map<String, String> readSettings(Path file, Path logFile) throws IOException {
        if (LoggingBackend.isLogback()) {
            LogFile.toFile(logFile);
        }
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            p.load(in);
        }
        Map<String, String> settings = new HashMap<>();
        p.forEach((k, v) -> settings.put((String) k, (String) v));
        return settings;
    }
}
