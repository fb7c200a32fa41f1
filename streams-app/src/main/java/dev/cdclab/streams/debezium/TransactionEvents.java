package dev.cdclab.streams.debezium;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cdclab.change.MalformedRecordException;
import java.io.IOException;

/** Reads Debezium transaction metadata events ({@code provide.transaction.metadata=true}). */
public final class TransactionEvents {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private TransactionEvents() {}

    /**
     * Returns the source commit time of an END event, or -1 for BEGIN events.
     *
     * @throws MalformedRecordException when the value is not a transaction event
     */
    public static long endCommitMs(byte[] value) {
        if (value == null) {
            return -1;
        }
        JsonNode n;
        try {
            n = MAPPER.readTree(value);
        } catch (IOException e) {
            throw new MalformedRecordException("transaction event is not JSON: " + e.getMessage());
        }
        JsonNode payload = n.has("payload") && n.has("schema") ? n.get("payload") : n;
        String status = payload.path("status").asText("");
        if ("BEGIN".equals(status)) {
            return -1;
        }
        if (!"END".equals(status) || !payload.hasNonNull("ts_ms")) {
            throw new MalformedRecordException("not a transaction BEGIN/END event");
        }
        return payload.get("ts_ms").asLong();
    }
}
