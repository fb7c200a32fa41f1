package dev.cdclab.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RunNamesTest {

    @Test
    void everyNameOfARunComesFromItsId() {
        RunNames n = RunNames.of("t1-a");
        assertThat(n.topicPrefix()).isEqualTo("cdclab-t1-a");
        assertThat(n.changeTopic()).isEqualTo("cdclab-t1-a.changes");
        assertThat(n.netChangeTopic()).isEqualTo("cdclab-t1-a.net-changes");
        assertThat(n.heartbeatTopic()).isEqualTo("__debezium-heartbeat.cdclab-t1-a");
        assertThat(n.connectorName()).isEqualTo("cdclab-source-t1-a");
        assertThat(n.connectGroup()).isEqualTo("cdclab-connect-t1-a");
        assertThat(n.streamsApplicationId()).isEqualTo("cdclab-net-changes-t1-a");
        assertThat(n.sinkGroupId()).isEqualTo("cdclab-warehouse-sink-t1-a");
        // PostgreSQL folds unquoted names to lower case and refuses '-' in slot names
        assertThat(RunNames.of("Run-7").slot()).isEqualTo("cdclab_run_7");
        assertThat(n.publication()).isEqualTo(n.slot());
    }

    @Test
    void bothStagesNameTheirDeadLettersAfterTheTopicTheyRead() {
        RunNames n = RunNames.of("x");
        assertThat(n.streamsDeadLetterTopic()).isEqualTo("cdclab-x.changes-dead-letters");
        assertThat(n.sinkDeadLetterTopic()).isEqualTo("cdclab-x.net-changes-dead-letters");
        assertThat(RunNames.deadLetterTopic("in")).isEqualTo("in-dead-letters");
    }

    @Test
    void theStandardPipelinesNamesDoNotCollideWithOurs() {
        RunNames ours = RunNames.of("b1");
        RunNames standard = new RunNames(RunNames.STANDARD, "b1");
        assertThat(standard.topicPrefix()).isEqualTo("standard-b1");
        assertThat(standard.slot()).isNotEqualTo(ours.slot());
        assertThat(standard.changeTopic()).doesNotStartWith(ours.topicPrefix());
    }

    @Test
    void anIdThatCannotNameATopicOrASlotIsRefused() {
        for (String bad : new String[] {"", "a b", "-x", "a.b", "x".repeat(64), "ü"}) {
            assertThatThrownBy(() -> RunNames.of(bad))
                    .as("'%s'", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("run id");
        }
    }
}
