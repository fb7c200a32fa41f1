package dev.cdclab.orchestration.operate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Stops a run before the work directory's disk fills: Kafka and PostgreSQL must not run out. */
public final class DiskGuard {
    private static final Logger LOG = LoggerFactory.getLogger(DiskGuard.class);

    private final Path dir;
    private final long minFreeBytes;

    public DiskGuard(Path dir, long minFreeBytes) {
        this.dir = dir.toAbsolutePath();
        this.minFreeBytes = minFreeBytes;
    }

    /**
     * Returns when enough space is left.
     *
     * @throws DiskFullException naming the directory and what is left
     */
    public void check() {
        long free;
        try {
            free = Files.getFileStore(dir).getUsableSpace();
        } catch (IOException e) {
            LOG.warn("Cannot read free space of {}: {}", dir, e.getMessage());
            return;
        }
        if (free < minFreeBytes) {
            throw new DiskFullException(
                    "disk almost full: "
                            + free / (1024 * 1024)
                            + " MiB left under "
                            + dir
                            + " (need "
                            + minFreeBytes / (1024 * 1024)
                            + " MiB); stopping before anything is lost");
        }
    }
}
