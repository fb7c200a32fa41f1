package dev.cdclab.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cdclab.config.Durations;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cdc-lab verify}: compare a running pipeline's warehouse with its source. */
@Command(
        name = "verify",
        mixinStandardHelpOptions = true,
        description = {
            "Wait until the warehouse of a running 'cdc-lab up' has every change committed at the"
                    + " source so far, then compare every table of the public schema (row count,"
                    + " content checksum, differing keys).",
            "Exit code 0 when they match, 1 when they differ."
        })
final class VerifyCommand implements Callable<Integer> {
    @Option(
            names = "--endpoints-file",
            required = true,
            paramLabel = "FILE",
            description = "The file 'cdc-lab up --endpoints-file' wrote.")
    Path endpointsFile;

    @Option(
            names = "--timeout",
            paramLabel = "DURATION",
            defaultValue = "60s",
            converter = Commands.DurationConverter.class,
            description =
                    "How long to wait for the warehouse to catch up (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        Endpoints e = Endpoints.read(endpointsFile);
        JsonNode n = e.post("/verify?timeout=" + Durations.format(timeout), timeout.plusMinutes(5));
        out.printf(
                Locale.ROOT,
                "warehouse caught up with the source in %.2f s%n",
                n.path("caught_up_s").asDouble());
        if (n.path("not_landing").size() > 0) {
            out.println("columns the source cannot send (left out of the comparison):");
            for (JsonNode c : n.path("not_landing")) {
                out.println("  " + c.asText());
            }
        }
        for (JsonNode t : n.path("tables")) {
            if (t.hasNonNull("skipped")) {
                out.printf(
                        Locale.ROOT,
                        "  %-32s skipped: %s%n",
                        t.get("table").asText(),
                        t.get("skipped").asText());
                continue;
            }
            out.printf(
                    Locale.ROOT,
                    "  %-32s %s  %-16s source %,d rows %s  warehouse %,d rows %s%n",
                    t.get("table").asText(),
                    t.get("matches").asBoolean() ? "ok  " : "DIFF",
                    "by " + t.path("compared_as").asText("?"),
                    t.get("source_rows").asLong(),
                    t.get("source_checksum").asText(),
                    t.get("warehouse_rows").asLong(),
                    t.get("warehouse_checksum").asText());
            for (JsonNode d : t.path("differences")) {
                out.println("      " + d.asText());
            }
        }
        boolean ok = n.path("verified").asBoolean();
        out.println((ok ? "verified: " : "NOT verified: ") + n.path("summary").asText());
        return ok ? 0 : CdcLab.VERIFY_FAILED;
    }
}
