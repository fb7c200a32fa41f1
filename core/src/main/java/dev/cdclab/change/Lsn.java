package dev.cdclab.change;

/** Formats PostgreSQL log sequence numbers the way PostgreSQL prints them ({@code 16/B374D848}). */
public final class Lsn {
    private Lsn() {}

    public static String format(long lsn) {
        return Long.toHexString(lsn >>> 32).toUpperCase()
                + "/"
                + Long.toHexString(lsn & 0xFFFFFFFFL).toUpperCase();
    }

    /** Parses {@code 16/B374D848}. */
    public static long parse(String text) {
        int slash = text.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("not an LSN: " + text);
        }
        long hi = Long.parseLong(text.substring(0, slash), 16);
        long lo = Long.parseLong(text.substring(slash + 1), 16);
        return (hi << 32) | lo;
    }
}
