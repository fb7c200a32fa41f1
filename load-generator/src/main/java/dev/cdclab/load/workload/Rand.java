package dev.cdclab.load.workload;

import java.math.BigDecimal;
import java.util.SplittableRandom;

/** Deterministic randomness per (seed, stream, number): no shared generator between threads. */
final class Rand {
    private static final char[] ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789".toCharArray();

    private Rand() {}

    /** The generator for item {@code n} of stream {@code stream} under {@code seed}. */
    static SplittableRandom of(long seed, long stream, long n) {
        long s = seed * 0x9E3779B97F4A7C15L + stream * 0xBF58476D1CE4E5B9L + n;
        return new SplittableRandom(s);
    }

    static String word(SplittableRandom r, int length) {
        char[] c = new char[length];
        for (int i = 0; i < length; i++) {
            c[i] = ALPHABET[r.nextInt(ALPHABET.length)];
        }
        return new String(c);
    }

    static BigDecimal money(SplittableRandom r, long maxCents) {
        return BigDecimal.valueOf(r.nextLong(maxCents), 2);
    }
}
