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
        if (msg == null) {
            msg = t.getClass().getSimpleName();
        }
        int nl = msg.indexOf('\n');
        return nl < 0 ? msg : msg.substring(0, nl);
    }
}
