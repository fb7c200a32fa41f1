package dev.cdclab.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Instances sharing a {@code state.dir} each get a directory of their own, and take it back. */
class StateDirectoryTest {
    @TempDir Path base;

    @Test
    void runningInstancesNeverShareADirectoryAndAFreedOneIsTakenBack() {
        StateDirectory first = StateDirectory.claim(base);
        try (StateDirectory second = StateDirectory.claim(base)) {
            assertThat(first.path()).isEqualTo(base.resolve("instance-0")).isDirectory();
            assertThat(second.path()).isEqualTo(base.resolve("instance-1")).isDirectory();
            // the first instance stops (or dies): the next one started takes its directory
            first.close();
            try (StateDirectory restarted = StateDirectory.claim(base)) {
                assertThat(restarted.path()).isEqualTo(base.resolve("instance-0"));
            }
        }
    }
}
