package dev.cdclab.cli;

import dev.cdclab.config.Durations;
import dev.cdclab.lab.report.ProgressLine;
import dev.cdclab.orchestration.admin.AdminToken;
import dev.cdclab.orchestration.logging.LogFile;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import picocli.CommandLine;

/** Helpers shared by the commands: work directories, log files, orderly shutdown. */
final class Commands {
    private static volatile String logFile;
    private static final Deque<AutoCloseable> toClose = new ArrayDeque<>();
    private static Thread hook;

    private Commands() {}

    /**
     * Prints a stage process's admin token when it made one of its own (no {@value AdminToken#ENV},
     * no token file): its clients need it, and it goes to the terminal, never to the log.
     */
    static void printTokenUnlessGiven(java.io.PrintStream out, AdminToken token, boolean given) {
        if (!given) {
            out.println(
                    "  admin token "
                            + token.reveal()
                            + "  (clients send 'Authorization: Bearer <token>'; "
                            + AdminToken.ENV
                            + " or --admin-token-file chooses it)");
        }
    }

    static String currentLogFile() {
        return logFile;
    }

    /** A fresh run id: six lower-case letters and digits. */
    static String newRunId() {
        String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
        SecureRandom r = new SecureRandom();
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 6; i++) {
            sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    /** The given directory, or {@code cdc-lab-runs/<time>-<id>}, created. */
    static Path workDir(Path given, String runId, String kind) {
        Path dir =
                given != null
                        ? given
                        : Path.of(
                                "cdc-lab-runs",
                                LocalDateTime.now()
                                                .format(
                                                        DateTimeFormatter.ofPattern(
                                                                "yyyyMMdd-HHmmss"))
                                        + "-"
                                        + kind
                                        + "-"
                                        + runId);
        try {
            Files.createDirectories(dir.resolve("logs"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create work directory " + dir, e);
        }
        return dir.toAbsolutePath();
    }

    /** Sends logging to {@code <dir>/logs/<name>}. */
    static void logTo(Path dir, String name) {
        Path f = dir.resolve("logs").resolve(name);
        LogFile.toFile(f);
        logFile = f.toString();
    }

    /** Closes {@code c} on Ctrl-C / SIGTERM (newest first) unless closed before. */
    static synchronized void closeOnShutdown(AutoCloseable c) {
        toClose.push(c);
        if (hook == null) {
            hook = new Thread(Commands::closeAll, "cdc-lab-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
        }
    }

    /** Closes everything registered, newest first. */
    static synchronized void closeAll() {
        while (!toClose.isEmpty()) {
            try {
                toClose.pop().close();
            } catch (Exception e) {
                // best effort at shutdown
            }
        }
    }

    /**
     * Shows {@code progress} once a second until {@code stopped} opens (Ctrl-C, SIGTERM); a {@code
     * healthCheck} that throws ends the wait with its error.
     */
    static void runUntilStopped(
            PrintStream out,
            CountDownLatch stopped,
            Runnable healthCheck,
            Supplier<String> progress)
            throws InterruptedException {
        try (ProgressLine p = new ProgressLine(out, progress)) {
            while (!stopped.await(1, TimeUnit.SECONDS)) {
                healthCheck.run();
            }
        }
    }

    /** A health check that throws when {@code failure} reports one, naming {@code part}. */
    static Runnable failsWith(String part, Supplier<Optional<Throwable>> failure) {
        return () ->
                failure.get()
                        .ifPresent(
                                e -> {
                                    throw new IllegalStateException(
                                            part + " failed: " + e.getMessage(), e);
                                });
    }

    /** picocli converter for {@code 500ms}, {@code 30s}, {@code 2m}. */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                return Durations.parse(value);
            } catch (RuntimeException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
