package dev.cdclab.cli;

import dev.cdclab.load.run.LoadPriority;
import dev.cdclab.orchestration.infra.InfraKind;
import picocli.CommandLine.Option;

/** The load's CPU priority, for the commands that drive a load beside the pipeline. */
final class LoadPriorityOption {
    @Option(
            names = "--load-nice",
            defaultValue = "" + LoadPriority.DEFAULT_NICE,
            paramLabel = "N",
            description =
                    "Niceness (0-19) of the load's client threads and, with an embedded source, of"
                            + " the source's processes serving them, so that the source sharing"
                            + " this machine does not take the pipeline's cores; 0 = normal"
                            + " priority (default: ${DEFAULT-VALUE}).")
    int loadNice;

    /**
     * The priority for a source of this kind.
     *
     * @throws IllegalArgumentException for a niceness outside 0..19
     */
    LoadPriority priority(InfraKind infra) {
        if (loadNice < 0 || loadNice > 19) {
            throw new IllegalArgumentException("--load-nice must be 0..19");
        }
        // only an embedded source's processes are this machine's, in this process namespace
        return new LoadPriority(loadNice, infra == InfraKind.EMBEDDED);
    }
}
