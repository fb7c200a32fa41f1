package dev.cdclab.lab.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cdclab.format.JsonText;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code manifest.json}: every cell of an experiment and its state, rewritten atomically after each
 * change, so a run stopped at any moment leaves a file {@code --resume} can read.
 */
final class Manifest {
    /** A cell's state. */
    enum State {
        PENDING,
        RUNNING,
        DONE,
        FAILED
    }

    /** One cell's entry. */
    static final class Entry {
        final ExperimentCell cell;
        State state = State.PENDING;
        String error;
        Double seconds;

        Entry(ExperimentCell cell) {
            this.cell = cell;
        }
    }

    private final Path file;
    private final String name;
    private final String scale;
    private final String fileDigest;
    private final List<Entry> entries = new ArrayList<>();

    Manifest(Path file, ExperimentSpec spec, String fileDigest) {
        this.file = file;
        this.name = spec.name();
        this.scale = spec.scale().label();
        this.fileDigest = fileDigest;
        spec.cells().forEach(c -> entries.add(new Entry(c)));
    }

    List<Entry> entries() {
        return entries;
    }

    /**
     * Takes the states of an earlier run of the same file at the same scale; cells that were
     * running when it stopped run again, as do failed ones.
     *
     * @throws IllegalArgumentException when the earlier run was of another file or scale
     */
    void resumeFrom(Path earlier) {
        JsonNode old;
        try {
            old = JsonText.read(earlier);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + earlier + ": " + e.getMessage());
        }
        if (!fileDigest.equals(old.path("file_sha256").asText())
                || !scale.equals(old.path("scale").asText())) {
            throw new IllegalArgumentException(
                    earlier
                            + " is from another experiment file or scale (was "
                            + old.path("scale").asText()
                            + "); use another --out");
        }
        Map<String, JsonNode> byId = new LinkedHashMap<>();
        old.path("cells").forEach(c -> byId.put(c.path("id").asText(), c));
        for (Entry e : entries) {
            JsonNode o = byId.get(e.cell.id());
            if (o != null && "done".equals(o.path("state").asText())) {
                e.state = State.DONE;
                e.seconds = o.path("seconds").isNumber() ? o.path("seconds").asDouble() : null;
            }
        }
    }

    synchronized void save() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("scale", scale);
        m.put("file_sha256", fileDigest);
        List<Map<String, Object>> cells = new ArrayList<>();
        for (Entry e : entries) {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("id", e.cell.id());
            c.put("levels", e.cell.levels());
            c.put("repetition", e.cell.repetition());
            c.put("state", e.state.name().toLowerCase(java.util.Locale.ROOT));
            if (e.seconds != null) {
                c.put("seconds", e.seconds);
            }
            if (e.error != null) {
                c.put("error", e.error);
            }
            cells.add(c);
        }
        m.put("cells", cells);
        try {
            JsonText.write(file, m);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
