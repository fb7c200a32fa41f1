package dev.cdclab.orchestration.infra;

import dev.cdclab.orchestration.logging.LogFile;
import dev.cdclab.orchestration.logging.LoggingBackend;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stage in a JVM of its own, on this JVM's class path: started, stopped (SIGTERM, its shutdown
 * hooks run) or killed ({@code kill -9}: nothing runs), and started again with the same command.
 *
 * <p>JVMs of one role (the same command, and the name without its instance number) share a
 * class-data archive (HotSpot's dynamic AppCDS) under the temporary directory, when their class
 * path is all jars: the first one that ends normally archives the classes it loaded, and the later
 * ones map them instead of loading and verifying them again, so a stage restarted after a kill is
 * up sooner (on two idle cores a Streams instance was running 1.4-1.6 s after its start instead of
 * 2.2-2.4 s).
 */
public final class ChildJvm implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChildJvm.class);
    private static final long EXIT_WAIT_SECONDS = 30;

    private final String name;
    private final List<String> command;
    private final Path workDir;
    private final Path logFile;
    private final Map<String, String> env;

    /** The class-data archive of this command; null when the JVM cannot use one. */
    private final Path archive;

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
        this(
                name,
                mainClass,
                args,
                workDir,
                env,
                jvmOptions,
                System.getProperty("java.class.path"));
    }

    /** The same, on {@code classPath}. */
    ChildJvm(
            String name,
            String mainClass,
            List<String> args,
            Path workDir,
            Map<String, String> env,
            List<String> jvmOptions,
            String classPath) {
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
        cmd.add(classPath);
        cmd.add(mainClass);
        this.archive =
                ARCHIVABLE.computeIfAbsent(classPath, ChildJvm::archivable)
                        ? classDataArchive(cmd, classPath, name.replaceFirst("-\\d+$", ""))
                        : null;
        cmd.addAll(args);
        this.command = List.copyOf(cmd);
    }

    /**
     * HotSpot archives classes only from jars: a JVM asked to archive with a directory that holds
     * classes on its class path (a build's {@code target/classes}, or a test runner's manifest jar
     * naming one) does not start. The launcher's class path is all jars.
     */
    private static final Map<String, Boolean> ARCHIVABLE = new ConcurrentHashMap<>();

    private static boolean archivable(String classPath) {
        if (System.getProperty("java.vm.name", "").contains("OpenJ9")) {
            return false;
        }
        for (String entry : classPath.split(File.pathSeparator)) {
            if (!entry.endsWith(".jar") || !new File(entry).isFile()) {
                return false;
            }
            try (JarFile jar = new JarFile(entry)) {
                Manifest m = jar.getManifest();
                if (m != null && m.getMainAttributes().getValue("Class-Path") != null) {
                    return false;
                }
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }

    /**
     * Where the archive of this command (java, its options, class path and main class) and role
     * (the name without an instance number: {@code sink} for {@code sink-2}) goes: named by a hash
     * of them and of every class-path entry's size and time, so a rebuilt jar makes a new one.
     */
    private static Path classDataArchive(List<String> command, String classPath, String role) {
        StringBuilder key = new StringBuilder(String.join(" ", command)).append(' ').append(role);
        key.append(' ').append(System.getProperty("java.vm.version"));
        for (String entry : classPath.split(File.pathSeparator)) {
            File f = new File(entry);
            key.append('|').append(f.length()).append('@').append(f.lastModified());
        }
        try {
            byte[] hash =
                    MessageDigest.getInstance("SHA-256")
                            .digest(key.toString().getBytes(StandardCharsets.UTF_8));
            return Path.of(System.getProperty("java.io.tmpdir"), "cdc-lab-cds")
                    .resolve(HexFormat.of().formatHex(hash, 0, 12) + ".jsa");
        } catch (NoSuchAlgorithmException e) {
            return null;
        }
    }

    /** Starts the process (again); its output goes to {@code logs/<name>.out}. */
    public synchronized ChildJvm start() {
        if (process != null && process.isAlive()) {
            return this;
        }
        try {
            Files.createDirectories(logFile.getParent());
            List<String> cmd = new ArrayList<>(command);
            Path dump = useClassData(cmd);
            ProcessBuilder pb =
                    new ProcessBuilder(cmd)
                            .directory(workDir.toFile())
                            .redirectErrorStream(true)
                            .redirectOutput(Redirect.appendTo(logFile.toFile()));
            pb.environment().putAll(env);
            process = pb.start();
            if (dump != null) {
                Process p = process;
                p.onExit().thenRun(() -> keepArchive(p, dump));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + e.getMessage(), e);
        }
        LOG.info("{} started as process {}", name, process.pid());
        return this;
    }

    /**
     * Adds the options that map this command's class-data archive, or that write it at exit when
     * there is none yet; returns where it is written then, else null.
     */
    private Path useClassData(List<String> cmd) {
        if (archive == null) {
            return null;
        }
        try {
            Files.createDirectories(archive.getParent());
        } catch (IOException e) {
            LOG.debug("{}: no class-data archive: {}", name, e.toString());
            return null;
        }
        Path dump = null;
        if (Files.isRegularFile(archive)) {
            cmd.add(1, "-XX:SharedArchiveFile=" + archive);
        } else {
            dump = archive.resolveSibling(archive.getFileName() + "." + UUID.randomUUID());
            cmd.add(1, "-XX:ArchiveClassesAtExit=" + dump);
        }
        // an archive the JVM cannot use is no reason to say so in the stage's output
        cmd.add(1, "-Xlog:cds*=off");
        return dump;
    }

    /**
     * Keeps the archive a JVM wrote at its exit, unless it did not end normally (killed, its
     * archive may be partly written).
     */
    private void keepArchive(Process p, Path written) {
        int code = p.exitValue();
        boolean normal = code < 128 || code == 130 || code == 143;
        try {
            if (normal && Files.isRegularFile(written) && Files.size(written) > 0) {
                Files.move(
                        written,
                        archive,
                        StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
                LOG.debug("{}: class-data archive {} written", name, archive);
                pruneArchives();
            } else {
                Files.deleteIfExists(written);
            }
        } catch (IOException e) {
            LOG.debug("{}: class-data archive not kept: {}", name, e.toString());
        }
    }

    /** Archives kept: every rebuild of a jar makes new ones, of about 40 MB each. */
    private static final int ARCHIVES_KEPT = 12;

    /** Deletes all but the newest {@link #ARCHIVES_KEPT} archives. */
    private void pruneArchives() throws IOException {
        List<Path> all;
        try (var files = Files.list(archive.getParent())) {
            all =
                    files.filter(f -> f.getFileName().toString().endsWith(".jsa"))
                            .sorted(
                                    Comparator.comparing((Path f) -> f.toFile().lastModified())
                                            .reversed())
                            .toList();
        }
        for (Path old : all.subList(Math.min(all.size(), ARCHIVES_KEPT), all.size())) {
            Files.deleteIfExists(old);
        }
    }

    /** The class-data archive JVMs with this command share; null when they cannot have one. */
    Path classDataArchive() {
        return archive;
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
