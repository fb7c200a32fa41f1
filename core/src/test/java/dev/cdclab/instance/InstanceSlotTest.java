package dev.cdclab.instance;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Instances sharing a base directory each get a slot of their own, and take it back. */
class InstanceSlotTest {
    @TempDir Path base;

    @Test
    void runningInstancesNeverShareASlotAndAFreedOneIsTakenBack() {
        InstanceSlot first = InstanceSlot.claim(base);
        String firstId = first.memberId();
        try (InstanceSlot second = InstanceSlot.claim(base)) {
            assertThat(first.path()).isEqualTo(base.resolve("instance-0")).isDirectory();
            assertThat(second.path()).isEqualTo(base.resolve("instance-1")).isDirectory();
            assertThat(second.memberId()).isNotEqualTo(firstId);
            // the first instance stops (or dies): the next one started takes its slot and identity
            first.close();
            try (InstanceSlot restarted = InstanceSlot.claim(base)) {
                assertThat(restarted.path()).isEqualTo(base.resolve("instance-0"));
                assertThat(restarted.memberId()).isEqualTo(firstId);
            }
        }
    }

    @Test
    void slotsUnderAnotherDirectoryHaveOtherIdentities(@TempDir Path other) {
        try (InstanceSlot here = InstanceSlot.claim(base);
                InstanceSlot there = InstanceSlot.claim(other)) {
            assertThat(here.memberId()).isNotEqualTo(there.memberId());
            assertThat(here.memberId()).matches("[a-zA-Z0-9._-]+");
        }
    }
}
