package dev.cdclab.initialload;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * One row of PostgreSQL's {@code COPY ... TO STDOUT} text format, as UTF-8 bytes: columns separated
 * by tabs, a newline at the end, {@code \N} for NULL, and backslash escapes ({@code \t}, {@code
 * \n}, {@code \\}, octal and hex bytes). No byte of a multi-byte UTF-8 character is a tab or a
 * backslash, so the bytes are split before they are decoded.
 */
final class CopyText {
    private CopyText() {}

    /**
     * The row's values, null for NULL.
     *
     * @throws IOException when the row does not have {@code columns} columns
     */
    static String[] row(byte[] b, int columns) throws IOException {
        String[] row = new String[columns];
        int end = b.length > 0 && b[b.length - 1] == '\n' ? b.length - 1 : b.length;
        int col = 0;
        int start = 0;
        boolean escaped = false;
        for (int i = 0; i <= end; i++) {
            byte ch = i < end ? b[i] : (byte) '\t';
            if (ch == '\\' && i < end) {
                escaped = true;
                i++;
                continue;
            }
            if (ch != '\t') {
                continue;
            }
            if (col >= columns) {
                throw new IOException(
                        "a COPY row has more than "
                                + columns
                                + " columns, "
                                + columns
                                + " expected");
            }
            row[col++] = escaped ? unescape(b, start, i) : text(b, start, i);
            start = i + 1;
            escaped = false;
        }
        if (col != columns) {
            throw new IOException("a COPY row has " + col + " columns, " + columns + " expected");
        }
        return row;
    }

    private static String text(byte[] b, int from, int to) {
        return new String(b, from, to - from, StandardCharsets.UTF_8);
    }

    private static String unescape(byte[] b, int from, int to) {
        if (to - from == 2 && b[from] == '\\' && b[from + 1] == 'N') {
            return null;
        }
        byte[] out = new byte[to - from];
        int n = 0;
        for (int i = from; i < to; i++) {
            byte ch = b[i];
            if (ch != '\\' || i + 1 >= to) {
                out[n++] = ch;
                continue;
            }
            byte e = b[++i];
            switch (e) {
                case 'b' -> out[n++] = '\b';
                case 'f' -> out[n++] = '\f';
                case 'n' -> out[n++] = '\n';
                case 'r' -> out[n++] = '\r';
                case 't' -> out[n++] = '\t';
                case 'v' -> out[n++] = 0x0b;
                case 'x' -> {
                    int v = 0;
                    int digits = 0;
                    while (digits < 2 && i + 1 < to && Character.digit(b[i + 1], 16) >= 0) {
                        v = v * 16 + Character.digit(b[++i], 16);
                        digits++;
                    }
                    out[n++] = digits == 0 ? (byte) 'x' : (byte) v;
                }
                default -> {
                    if (e >= '0' && e <= '7') {
                        int v = e - '0';
                        for (int d = 0;
                                d < 2 && i + 1 < to && b[i + 1] >= '0' && b[i + 1] <= '7';
                                d++) {
                            v = v * 8 + (b[++i] - '0');
                        }
                        out[n++] = (byte) v;
                    } else {
                        out[n++] = e;
                    }
                }
            }
        }
        return new String(out, 0, n, StandardCharsets.UTF_8);
    }
}
