package dev.cdclab.change;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Where {@link SourcePosition#commitStart} falls among the positions of both sources. */
class SourcePositionTest {
    @Test
    void aPostgresCommitStartsBeforeItsSnapshotAndItsChangesAndAfterEarlierCommits() {
        long snapshot = 0x25cfa718L;
        String start = SourcePosition.commitStart(SourcePosition.postgres(snapshot));
        assertThat(start).isEqualTo("0000000025cfa718/");
        assertThat(start)
                .isLessThan(SourcePosition.postgres(snapshot))
                .isLessThan(SourcePosition.postgres(snapshot, snapshot - 100))
                .isLessThan(SourcePosition.withOffset(SourcePosition.postgres(snapshot), 0))
                .isGreaterThan(SourcePosition.postgres(snapshot - 1, snapshot + 500));
    }

    @Test
    void aSqlServerCommitStartsBeforeItsSnapshotReadsAndChangesAndAfterEarlierCommits() {
        String commit = "00000027:00000758:0005";
        String start = SourcePosition.commitStart(SourcePosition.sqlServer(commit, null, null));
        assertThat(start).isEqualTo(commit + "/");
        assertThat(start)
                .isLessThan(SourcePosition.sqlServer(commit, null, null))
                .isLessThan(SourcePosition.sqlServer(commit, "00000027:00000750:0001", 1L))
                .isGreaterThan(
                        SourcePosition.sqlServer(
                                "00000027:00000758:0004", "00000027:00000758:0003", 9L));
    }
}
