package dev.cdclab.config;

/**
 * Marks an error whose message says all a user needs (what is wrong and what to do), so the command
 * line prints that one line and no pointer to the log.
 */
public interface OneLineError {
    /**
     * The first line of an error's message, or of the first cause that has one; the class name when
     * none does.
     */
    static String of(Throwable e) {
        Throwable t = e;
        String msg = t.getMessage();
        while ((msg == null || msg.isBlank()) && t.getCause() != null) {
            t = t.getCause();
            msg = t.getMessage();
        }
        return firstLine(msg, t.getClass().getSimpleName());
    }

    /** The first non-blank line of {@code text}, stripped; {@code ifNone} when it has none. */
    static String firstLine(String text, String ifNone) {
        if (text != null) {
            for (String line : (Iterable<String>) text.lines()::iterator) {
                if (!line.isBlank()) {
                    return line.strip();
                }
            }
        }
        return ifNone;
    }
}
