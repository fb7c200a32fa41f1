package dev.cdclab.cli;

import dev.cdclab.capture.CaptureConfig;
import dev.cdclab.config.ConfigOption;
import dev.cdclab.load.dialect.PostgresDialect;
import dev.cdclab.load.workload.Workloads;
import dev.cdclab.orchestration.infra.InfraConfig;
import dev.cdclab.sink.SinkConfig;
import dev.cdclab.streams.NetChangeConfig;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Parameters;

/** {@code cdc-lab config}: every setting, its default and what it does. */
@Command(
        name = "config",
        mixinStandardHelpOptions = true,
        description =
                "Print every setting of a stage (markdown): streams, sink, capture, infra, load,"
                        + " workloads.")
final class ConfigCommand implements Callable<Integer> {
    private static final String INFRA_NOTE =
            "A flag wins over its key; an image key wins over CDCLAB_POSTGRES_IMAGE /"
                    + " CDCLAB_KAFKA_IMAGE. A key given for another kind is an error.";

    @Parameters(
            arity = "0..1",
            defaultValue = "all",
            description = "streams | sink | capture | infra | load | workloads | all (default)")
    String stage;

    @Override
    public Integer call() {
        PrintStream out = System.out;
        switch (stage) {
            case "streams" ->
                    table(
                            out,
                            "streams (-D streams.<key>, or cdc-lab streams -D <key>)",
                            NetChangeConfig.OPTIONS,
                            "kafka.* keys go to Kafka Streams unchanged.");
            case "sink" ->
                    table(
                            out,
                            "sink (-D sink.<key>, or cdc-lab sink -D <key>)",
                            SinkConfig.OPTIONS,
                            "kafka.* keys go to the Kafka consumer unchanged.");
            case "capture" ->
                    table(
                            out,
                            "capture (-D capture.<key>, or cdc-lab capture ... -D <key>)",
                            CaptureConfig.OPTIONS,
                            "debezium.* keys go into the connector config unchanged.");
            case "infra" ->
                    table(
                            out,
                            "infra (-D infra.<key>, or the flags of run, bench, overhead, up)",
                            InfraConfig.OPTIONS,
                            INFRA_NOTE);
            case "load" -> loadOptions(out);
            case "workloads" -> workloads(out);
            case "all" -> {
                table(
                        out,
                        "streams (-D streams.<key>, or cdc-lab streams -D <key>)",
                        NetChangeConfig.OPTIONS,
                        "kafka.* keys go to Kafka Streams unchanged.");
                table(
                        out,
                        "sink (-D sink.<key>, or cdc-lab sink -D <key>)",
                        SinkConfig.OPTIONS,
                        "kafka.* keys go to the Kafka consumer unchanged.");
                table(
                        out,
                        "capture (-D capture.<key>, or cdc-lab capture ... -D <key>)",
                        CaptureConfig.OPTIONS,
                        "debezium.* keys go into the connector config unchanged.");
                table(
                        out,
                        "infra (-D infra.<key>, or the flags of run, bench, overhead, up)",
                        InfraConfig.OPTIONS,
                        INFRA_NOTE);
                loadOptions(out);
                workloads(out);
            }
            default ->
                    throw new IllegalArgumentException(
                            "unknown stage '"
                                    + stage
                                    + "'; choose streams, sink, capture, load, workloads");
        }
        return 0;
    }

    private static void table(
            PrintStream out, String title, List<ConfigOption<?>> options, String note) {
        out.println("### " + title);
        out.println();
        out.println("| key | type | default | description |");
        out.println("|---|---|---|---|");
        for (ConfigOption<?> o : options) {
            out.println(
                    "| `"
                            + o.key()
                            + "` | "
                            + o.type().replace("|", " \\| ")
                            + " | `"
                            + o.formatDefault()
                            + "` | "
                            + o.description().replace("|", "\\|")
                            + (o.secret() ? " (secret)" : "")
                            + " |");
        }
        if (note != null) {
            out.println();
            out.println(note);
        }
        out.println();
    }

    /** The load command's options, read from its picocli model so they are declared once. */
    private static void loadOptions(PrintStream out) {
        out.println(
                "### load (cdc-lab load --<option>; run, bench and overhead share the workload ones)");
        out.println();
        out.println("| option | default | description |");
        out.println("|---|---|---|");
        for (OptionSpec o : new CommandLine(new LoadCommand()).getCommandSpec().options()) {
            if (o.usageHelp() || o.versionHelp()) {
                continue;
            }
            String dflt = o.required() ? "(required)" : o.defaultValue();
            out.println(
                    "| `"
                            + o.longestName()
                            + "` | `"
                            + (dflt == null ? "(none)" : dflt)
                            + "` | "
                            + String.join(" ", o.description()).replace("|", "\\|")
                            + " |");
        }
        out.println();
    }

    private static void workloads(PrintStream out) {
        out.println("### workloads");
        out.println();
        out.println("| name | what it does |");
        out.println("|---|---|");
        Workloads.descriptions(new PostgresDialect())
                .forEach((k, v) -> out.println("| `" + k + "` | " + v + " |"));
        out.println();
    }
}
