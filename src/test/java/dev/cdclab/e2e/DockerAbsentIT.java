package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdclab.cli.CdcLab;
import java.io.File;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * With no Docker engine ({@code DOCKER_HOST} pointing at a closed port), {@code --infra containers}
 * fails with one line and a non-zero exit, in a process of its own as a user would run it.
 */
@Timeout(120)
class DockerAbsentIT {
    @TempDir Path dir;

    @Test
    void containersWithoutADockerEngineIsOneLineAndANonZeroExit() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb =
                new ProcessBuilder(
                        javaBin,
                        "-cp",
                        System.getProperty("java.class.path"),
                        CdcLab.class.getName(),
                        "run",
                        "--infra",
                        "containers",
                        "--duration",
                        "2s",
                        "--warmup",
                        "0",
                        "--work-dir",
                        dir.resolve("run").toString());
        pb.environment().put("DOCKER_HOST", "tcp://127.0.0.1:" + closed);
        pb.redirectOutput(dir.resolve("out.txt").toFile());
        File errFile = dir.resolve("err.txt").toFile();
        pb.redirectError(errFile);
        Process p = pb.start();
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("exits").isTrue();
        List<String> err = Files.readAllLines(errFile.toPath(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).isEqualTo(CdcLab.FAILED);
        assertThat(err).hasSize(1);
        assertThat(err.get(0))
                .startsWith(
                        "cdc-lab: error: --infra containers needs a Docker engine: DOCKER_HOST=tcp://127.0.0.1:"
                                + closed);
    }
}
