package dev.cdclab.instance;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Group members heartbeat often enough to join a rebalance within half a second. */
class GroupMembershipTest {
    @Test
    void heartbeatsGoEveryHalfSecondWhateverTheSessionTimeout() {
        assertThat(GroupMembership.consumerSettings(Duration.ofSeconds(6)))
                .containsEntry("session.timeout.ms", 6000)
                .containsEntry("heartbeat.interval.ms", 500);
        assertThat(GroupMembership.consumerSettings(Duration.ofSeconds(45)))
                .containsEntry("heartbeat.interval.ms", 500);
    }

    @Test
    void aSessionTimeoutShorterThanThreeHeartbeatsGetsAThirdOfIt() {
        assertThat(GroupMembership.consumerSettings(Duration.ofMillis(1200)))
                .containsEntry("session.timeout.ms", 1200)
                .containsEntry("heartbeat.interval.ms", 400);
    }
}
