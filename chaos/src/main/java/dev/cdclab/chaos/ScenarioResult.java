package dev.cdclab.chaos;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one scenario ended with.
 *
 * @param name the scenario
 * @param expect what had to hold
 * @param faults faults injected
 * @param rowsLost busy-table rows missing, at another version or back from the dead once the
 *     pipeline was quiet; null for a scenario that must stop the pipeline
 * @param duplicatesAbsorbed change events and net changes delivered more than once (replays) that
 *     the warehouse absorbed
 * @param regressions times a warehouse row was seen going back to an older version
 * @param tornReads reads of the warehouse (REPEATABLE READ, continuously) that showed part of a
 *     source transaction: the accounts' count or total other than every transaction keeps
 * @param consistentReads reads of the warehouse that showed whole transactions only
 * @param sinceFaultMs the longest time from a round's first fault (the scenario's, when it has one
 *     round) until a row written at the end of the round is in the warehouse: for a process killed
 *     and restarted, the whole stall; it includes any wait the scenario makes on purpose; -1 if not
 *     measured
 * @param recoveryMs the slowest recovery: from the end of the faults (of a round, when the scenario
 *     waits for the pipeline between rounds) to a row written then being in the warehouse; -1 if
 *     not measured
 * @param verified every captured table equals the source (count, checksum, differing keys)
 * @param stoppedWith what the pipeline said when it stopped, or null
 * @param passed whether what had to hold held
 * @param note why it did not pass, or what else was seen
 */
public record ScenarioResult(
        String name,
        Scenario.Expect expect,
        int faults,
        Long rowsLost,
        long duplicatesAbsorbed,
        long regressions,
        long tornReads,
        long consistentReads,
        long sinceFaultMs,
        long recoveryMs,
        boolean verified,
        String stoppedWith,
        boolean passed,
        String note) {

    /** JSON-ready fields. */
    public Map<String, Object> asMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("expect", expect.name().toLowerCase(java.util.Locale.ROOT));
        m.put("faults_injected", faults);
        m.put("rows_lost", rowsLost);
        m.put("duplicates_absorbed", duplicatesAbsorbed);
        m.put("regressions", regressions);
        m.put("torn_reads", tornReads);
        m.put("consistent_reads", consistentReads);
        m.put("since_fault_ms", sinceFaultMs);
        m.put("recovery_ms", recoveryMs);
        m.put("verified", verified);
        m.put("stopped_with", stoppedWith);
        m.put("passed", passed);
        m.put("note", note);
        return m;
    }
}
