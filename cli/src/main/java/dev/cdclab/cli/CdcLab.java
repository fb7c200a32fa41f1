package dev.cdclab.cli;

import dev.cdclab.config.ConfigException;
import dev.cdclab.config.OneLineError;
import dev.cdclab.orchestration.operate.KafkaExitGuard;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code cdc-lab} command line. */
@Command(
        name = "cdc-lab",
        mixinStandardHelpOptions = true,
        versionProvider = CdcLab.Version.class,
        description = "Capture-to-warehouse pipeline and latency lab.",
        subcommands = {
            RunCommand.class,
            BenchCommand.class,
            ApplyBenchCommand.class,
            OverheadCommand.class,
            ExperimentCommand.class,
            ChaosCommand.class,
            FuzzCommand.class,
            UpCommand.class,
            VerifyCommand.class,
            SqlCommand.class,
            ResnapshotCommand.class,
            LoadCommand.class,
            CaptureCommand.class,
            SqlServerCommand.class,
            StreamsCommand.class,
            SinkCommand.class,
            ConfigCommand.class,
            CommandLine.HelpCommand.class
        })
public final class CdcLab {
    /** Exit code when verification finds differences. */
    public static final int VERIFY_FAILED = 1;

    /** Exit code for bad arguments or configuration. */
    public static final int USAGE = 2;

    /** Exit code when a part fails at run time (port in use, unreachable endpoint...). */
    public static final int FAILED = 3;

    /** The command line's logging configuration: nothing until a command picks its log file. */
    static final String LOGBACK_CONFIGURATION = "dev/cdclab/cli/logback-cli.xml";

    public static void main(String[] args) {
        // before anything logs: the library jar ships no logback.xml, the command line brings its
        // own
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", LOGBACK_CONFIGURATION);
        }
        System.exit(execute(args));
    }

    /**
     * Stops whatever a running command started, as Ctrl-C would; for embedding the CLI (and for
     * tests).
     */
    public static void stopRunning() {
        Commands.closeAll();
    }

    /** Runs a command line and returns its exit code (for tests). */
    public static int execute(String... args) {
        // Kafka, Connect and Streams call Exit on fatal errors; in this process that must become
        // an error we report and clean up after, not an instant JVM exit
        KafkaExitGuard.install();
        CommandLine cl = new CommandLine(new CdcLab());
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setParameterExceptionHandler(
                (ex, a) -> {
                    PrintWriter err = ex.getCommandLine().getErr();
                    err.println("cdc-lab: " + ex.getMessage());
                    err.println(
                            "Try '"
                                    + ex.getCommandLine().getCommandSpec().qualifiedName()
                                    + " --help'.");
                    err.flush();
                    return USAGE;
                });
        cl.setExecutionExceptionHandler(
                (ex, commandLine, parseResult) -> {
                    PrintWriter err = commandLine.getErr();
                    boolean usage =
                            ex instanceof ConfigException || ex instanceof IllegalArgumentException;
                    err.println("cdc-lab: error: " + OneLineError.of(ex));
                    // the log is named only where it can say more than the line
                    String log = Commands.currentLogFile();
                    if (log != null && !usage && !(ex instanceof OneLineError)) {
                        err.println("details: " + log);
                    }
                    err.flush();
                    return usage ? USAGE : FAILED;
                });
        return cl.execute(args);
    }

    /** Version from the jar manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = CdcLab.class.getPackage().getImplementationVersion();
            return new String[] {"cdc-lab " + (v == null ? "dev" : v)};
        }
    }
}
