package dev.cdclab.orchestration.admin;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The secret an admin endpoint's clients show: made by each run, written to its endpoints file
 * (readable by its owner only) and to the URL of the live page it prints, never logged. A web page
 * of another site can send requests to loopback, but cannot read the token.
 */
public final class AdminToken {
    /** The environment variable a stage process, or a client, takes the token from. */
    public static final String ENV = "CDCLAB_ADMIN_TOKEN";

    /** The request header that carries it: {@code Authorization: Bearer <token>}. */
    public static final String HEADER = "Authorization";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final String value;

    private AdminToken(String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("an admin token cannot be empty");
        }
        this.value = value;
    }

    /** A new random token: 32 bytes, URL-safe base64. */
    public static AdminToken generate() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return new AdminToken(Base64.getUrlEncoder().withoutPadding().encodeToString(b));
    }

    /** The token {@value #ENV} names, or a new one when it names none. */
    public static AdminToken fromEnvironmentOrNew() {
        String v = System.getenv(ENV);
        return v == null || v.isBlank() ? generate() : new AdminToken(v.trim());
    }

    /**
     * The token in {@code file} (its first line) when one is given, else the one {@value #ENV}
     * names, else a new one.
     *
     * @throws IllegalArgumentException naming the file when it cannot be read or is empty
     */
    public static AdminToken fromFileOrEnvironmentOrNew(java.nio.file.Path file) {
        if (file == null) {
            return fromEnvironmentOrNew();
        }
        return new AdminToken(read(file));
    }

    /**
     * The token a client presents: from {@code file} if given, else from {@value #ENV}; null for
     * none.
     */
    public static String presented(java.nio.file.Path file) {
        if (file != null) {
            return read(file);
        }
        String v = System.getenv(ENV);
        return v == null || v.isBlank() ? null : v.trim();
    }

    private static String read(java.nio.file.Path file) {
        String v;
        try {
            v = java.nio.file.Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("--admin-token-file: cannot read " + file, e);
        }
        int nl = v.indexOf('\n');
        v = nl < 0 ? v : v.substring(0, nl).strip();
        if (v.isEmpty()) {
            throw new IllegalArgumentException("--admin-token-file: " + file + " is empty");
        }
        return v;
    }

    /** A token given as text (an endpoints file's). */
    public static AdminToken of(String value) {
        return new AdminToken(value);
    }

    /** The token's text, for the endpoints file, a client's header and the live page's URL. */
    public String reveal() {
        return value;
    }

    /** The header value a client sends. */
    public String bearer() {
        return "Bearer " + value;
    }

    /** Whether {@code presented} is this token, compared in constant time. */
    boolean matches(String presented) {
        return presented != null
                && MessageDigest.isEqual(
                        value.getBytes(StandardCharsets.UTF_8),
                        presented.getBytes(StandardCharsets.UTF_8));
    }

    /** Never the token itself: it must not reach a log. */
    @Override
    public String toString() {
        return "AdminToken[******]";
    }
}
