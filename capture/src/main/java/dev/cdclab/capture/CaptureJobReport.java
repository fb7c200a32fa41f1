package dev.cdclab.capture;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * SQL Server's capture job on its own work, from {@code sys.dm_cdc_log_scan_sessions}, and the
 * white paper's CDC throughput: commands per second from the first scan whose latency exceeded 5 s
 * to the end of the last scan.
 *
 * @param sessions log scan sessions (the aggregate row left out)
 * @param transactions {@code tran_count} summed
 * @param commands {@code command_count} summed
 * @param durationSeconds {@code duration} summed, seconds
 * @param maxLatencySeconds largest {@code latency}, seconds
 * @param emptyScans {@code empty_scan_count} of the last session
 * @param commandsPerSecondWhileBehind commands per second from the first session with latency over
 *     5 s to the end of the last session; null when no session was that far behind
 * @param commandsPerSecond commands per second over all sessions, first start to last end
 */
public record CaptureJobReport(
        long sessions,
        long transactions,
        long commands,
        long durationSeconds,
        long maxLatencySeconds,
        long emptyScans,
        Double commandsPerSecondWhileBehind,
        Double commandsPerSecond) {

    /** JSON-ready fields. */
    public Map<String, Object> asMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("sessions", sessions);
        m.put("tran_count", transactions);
        m.put("command_count", commands);
        m.put("duration_s", durationSeconds);
        m.put("max_latency_s", maxLatencySeconds);
        m.put("empty_scan_count", emptyScans);
        m.put("cdc_throughput_commands_per_s_while_latency_over_5s", commandsPerSecondWhileBehind);
        m.put("cdc_throughput_commands_per_s", commandsPerSecond);
        return m;
    }
}
