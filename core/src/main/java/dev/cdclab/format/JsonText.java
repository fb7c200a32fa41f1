package dev.cdclab.format;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The one way cdc-lab writes JSON for people and files (reports, summaries, endpoints, the admin
 * endpoint): indented, maps in their insertion order, and read back as a tree.
 */
public final class JsonText {
    private static final ObjectMapper MAPPER =
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private JsonText() {}

    /** {@code value} (maps, lists, records, numbers, strings) as indented JSON. */
    public static String of(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "cannot write as JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** Writes {@code value} to {@code file} whole or not at all (a temporary file, then a move). */
    public static void write(Path file, Object value) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
        try {
            Files.writeString(tmp, of(value));
            Files.move(
                    tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The JSON text {@code text} as a tree. */
    public static JsonNode read(String text) throws IOException {
        return MAPPER.readTree(text);
    }

    /** The JSON file {@code file} as a tree. */
    public static JsonNode read(Path file) throws IOException {
        return MAPPER.readTree(file.toFile());
    }

    /** {@link #read(String)} for text that is JSON by construction (a server's own reply). */
    public static JsonNode parse(String text) {
        try {
            return read(text);
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + e.getMessage(), e);
        }
    }
}
