package dev.cdclab.orchestration.logging;

import org.slf4j.LoggerFactory;

/**
 * Which SLF4J binding this JVM has, asked without touching logback's classes: logback is optional
 * for users of the library, and {@link LogFile} needs it.
 */
public final class LoggingBackend {
    private LoggingBackend() {}

    /** True when logback is SLF4J's binding here, so {@link LogFile} can configure it. */
    public static boolean isLogback() {
        return LoggerFactory.getILoggerFactory()
                .getClass()
                .getName()
                .equals("ch.qos.logback.classic.LoggerContext");
    }
}
