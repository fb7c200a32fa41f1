package dev.cdclab.orchestration.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Sends all logging to one file, so the terminal shows only progress and the report. */
public final class LogFile {
    /** Logback context property that marks a configuration made here. */
    private static final String MARK = "cdclab.logfile";

    private LogFile() {}

    /**
     * Sends logging to {@code file} when nobody else configured it: logback runs with the command
     * line's configuration (everything off) or one made here before. Any other configuration,
     * logback's default included, is left alone (callers check {@link LoggingBackend#isLogback}
     * first: logback is optional).
     */
    public static void toFileUnlessConfigured(Path file) {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx)) {
            return;
        }
        boolean ours =
                ctx.getProperty(MARK) != null
                        || ctx.getLogger(Logger.ROOT_LOGGER_NAME).getLevel() == Level.OFF;
        if (ours) {
            toFile(file);
        }
    }

    /** Sends all logging to {@code file}, replacing any configuration. */
    public static void toFile(Path file) {
        LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
        ctx.reset();
        ctx.putProperty(MARK, file.toString());
        PatternLayoutEncoder enc = new PatternLayoutEncoder();
        enc.setContext(ctx);
        enc.setPattern("%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n");
        enc.start();
        FileAppender<ILoggingEvent> app = new FileAppender<>();
        app.setContext(ctx);
        app.setName("file");
        app.setFile(file.toAbsolutePath().toString());
        app.setAppend(true);
        app.setEncoder(enc);
        app.start();
        ch.qos.logback.classic.Logger root = ctx.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        root.addAppender(app);
        // chatty at INFO and of no use in a lab run
        ctx.getLogger("org.apache.kafka.clients.consumer.ConsumerConfig").setLevel(Level.WARN);
        ctx.getLogger("org.apache.kafka.clients.producer.ProducerConfig").setLevel(Level.WARN);
        ctx.getLogger("org.apache.kafka.clients.admin.AdminClientConfig").setLevel(Level.WARN);
        ctx.getLogger("org.apache.kafka.streams.StreamsConfig").setLevel(Level.WARN);
        ctx.getLogger("org.apache.kafka.common.config.AbstractConfig").setLevel(Level.WARN);
        ctx.getLogger("kafka.server.KafkaConfig").setLevel(Level.WARN);
        ctx.getLogger("org.apache.kafka.connect.runtime.WorkerConfig").setLevel(Level.WARN);
    }
}
