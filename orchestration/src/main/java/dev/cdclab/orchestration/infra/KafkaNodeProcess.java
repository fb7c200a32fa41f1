package dev.cdclab.orchestration.infra;

import dev.cdclab.embedded.KafkaBroker;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.utils.Time;

/**
 * A node of the embedded Kafka cluster in a JVM of its own, so that it can be killed ({@code kill
 * -9}) as a broker host fails, and started again on its port and log directory.
 */
final class KafkaNodeProcess implements KafkaBroker.RunningNode {
    private final ChildJvm jvm;

    private KafkaNodeProcess(ChildJvm jvm) {
        this.jvm = jvm;
    }

    /** Runs each node in a process of its own, its settings and output under {@code workDir}. */
    static KafkaBroker.NodeRunner runner(Path workDir) {
        return (id, settings) -> {
            String name = "kafka-node-" + id;
            Path file = workDir.resolve(name + ".properties");
            ChildJvm.writeSettings(
                    file, settings, "Kafka node " + id + " of cdc-lab, in its own process");
            ChildJvm jvm =
                    new ChildJvm(
                            name,
                            KafkaNodeProcess.class.getName(),
                            List.of(
                                    file.toAbsolutePath().toString(),
                                    workDir.resolve("logs/" + name + ".log")
                                            .toAbsolutePath()
                                            .toString()),
                            workDir,
                            Map.of(),
                            // C1 alone: started again under load, a node answered after 6-11 s,
                            // and after 20-44 s with C2 as well
                            List.of("-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
            return new KafkaNodeProcess(jvm.start());
        };
    }

    @Override
    public void stop() {
        jvm.stop();
        if (jvm.exitCode() != 0 && jvm.exitCode() != 143) {
            throw new IllegalStateException(
                    jvm.name()
                            + " ended with exit code "
                            + jvm.exitCode()
                            + " (see "
                            + jvm.logFile()
                            + ")");
        }
    }

    @Override
    public void kill() {
        jvm.kill();
    }

    @Override
    public boolean alive() {
        return jvm.alive();
    }

    @Override
    public Path logFile() {
        return jvm.logFile();
    }

    /** Entry point of the node process: {@code <server.properties> <log file>}. */
    public static void main(String[] args) throws IOException {
        Map<String, String> settings = ChildJvm.readSettings(Path.of(args[0]), Path.of(args[1]));
        KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(settings), Time.SYSTEM);
        // SIGTERM: a controlled shutdown, as kafka-server-stop.sh gives one
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> {
                                    server.shutdown();
                                    server.awaitShutdown();
                                },
                                "kafka-shutdown"));
        try {
            server.startup();
        } catch (RuntimeException e) {
            e.printStackTrace();
            // its threads would keep the process up, a node that never answers
            Runtime.getRuntime().halt(1);
        }
        server.awaitShutdown();
    }
}
