package dev.cdclab.orchestration.infra;

import dev.cdclab.config.RunNames;
import dev.cdclab.embedded.ConnectWorker;
import dev.cdclab.embedded.KafkaBroker;
import dev.cdclab.orchestration.StageConfigs;
import dev.cdclab.plugins.ConnectPlugins;

/** The services every kind may run in this JVM: the KRaft broker and the Connect worker. */
final class LocalServices {
    private LocalServices() {}

    static KafkaBroker broker(InfraSpec.Context ctx) {
        return broker(ctx, 1);
    }

    /**
     * One node in this JVM; the nodes of a cluster each in a process of their own, so that one can
     * be killed as a broker's host fails.
     */
    static KafkaBroker broker(InfraSpec.Context ctx, int nodes) {
        return KafkaBroker.builder()
                .logDir(ctx.workDir().resolve("kafka"))
                .port(ctx.kafkaPort())
                .nodes(nodes)
                .runner(
                        nodes == 1
                                ? KafkaBroker.IN_THIS_JVM
                                : KafkaNodeProcess.runner(ctx.workDir()))
                .start();
    }

    static ConnectWorker connect(String bootstrapServers, InfraSpec.Context ctx) {
        return connectWorker(bootstrapServers, ctx).start();
    }

    static ConnectWorker.Builder connectWorker(String bootstrapServers, InfraSpec.Context ctx) {
        ConnectWorker.Builder b =
                ConnectWorker.builder()
                        .bootstrapServers(bootstrapServers)
                        .groupId(RunNames.of(ctx.runId()).connectGroup())
                        .property("producer.compression.type", StageConfigs.KAFKA_COMPRESSION);
        // connectors whose Debezium version differs from the class path's, isolated
        ctx.connectPlugins().stream()
                .sorted()
                .forEach(p -> b.pluginPath(ConnectPlugins.pathEntry(p)));
        return b;
    }
}
