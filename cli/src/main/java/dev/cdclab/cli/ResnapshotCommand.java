package dev.cdclab.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cdclab.config.Durations;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code cdc-lab resnapshot TABLE}: read one table of a running pipeline's source again. */
@Command(
        name = "resnapshot",
        mixinStandardHelpOptions = true,
        description = {
            "Read one table of a running 'cdc-lab up' again while the stream goes on (Debezium's"
                    + " incremental snapshot through its signal table), and wait until the"
                    + " warehouse holds it: the warehouse table ends equal to the source table,"
                    + " rows gone from the source included. The table needs a key.",
        })
final class ResnapshotCommand implements Callable<Integer> {
    @Parameters(paramLabel = "TABLE", description = "schema.table, or a table of public.")
    String table;

    @Option(
            names = "--endpoints-file",
            required = true,
            paramLabel = "FILE",
            description = "The file 'cdc-lab up --endpoints-file' wrote.")
    Path endpointsFile;

    @Option(
            names = "--timeout",
            paramLabel = "DURATION",
            defaultValue = "5m",
            converter = Commands.DurationConverter.class,
            description =
                    "How long to wait for the table to be read and applied (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Override
    public Integer call() throws Exception {
        Endpoints e = Endpoints.read(endpointsFile);
        JsonNode n =
                e.post(
                        "/resnapshot?table="
                                + URLEncoder.encode(table, StandardCharsets.UTF_8)
                                + "&timeout="
                                + Durations.format(timeout),
                        timeout.plusMinutes(1));
        System.out.printf(
                Locale.ROOT,
                "%s read again (%,d rows) and applied in %.1f s%n",
                n.path("table").asText(),
                n.path("rows_read").asLong(),
                n.path("took_s").asDouble());
        return 0;
    }
}
