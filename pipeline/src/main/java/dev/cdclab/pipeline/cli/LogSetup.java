package dev.cdclab.pipeline.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Sends all logging to one file, so the terminal shows only progress and the report. */
final class LogSetup {
    private LogSetup() {}

    static void toFile(Path file) {
        LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
        ctx.reset();
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
