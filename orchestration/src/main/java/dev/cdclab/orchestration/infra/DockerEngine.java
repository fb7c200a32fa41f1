package dev.cdclab.orchestration.infra;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import dev.cdclab.config.OneLineError;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.utility.DockerImageName;

/**
 * Checks, before any container starts, that a Docker engine answers and that an image can be had.
 */
public final class DockerEngine {
    private static final Logger LOG = LoggerFactory.getLogger(DockerEngine.class);
    private static final long PULL_TIMEOUT_S = 300;

    private DockerEngine() {}

    /**
     * Returns when a Docker engine answers.
     *
     * @param who what needs it, e.g. {@code --infra containers}
     * @throws InfraUnavailableException with one line saying what was tried
     */
    public static void require(String who) {
        String dockerHost = System.getenv("DOCKER_HOST");
        if (dockerHost != null && !dockerHost.isBlank()) {
            String problem = probe(dockerHost.trim());
            if (problem != null) {
                throw new InfraUnavailableException(
                        who + " needs a Docker engine: DOCKER_HOST=" + dockerHost + " " + problem);
            }
        }
        boolean available;
        try {
            available = DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("Docker check failed", e);
            available = false;
        }
        if (!available) {
            throw new InfraUnavailableException(
                    who
                            + " needs a Docker engine: none answers"
                            + (dockerHost == null ? " (DOCKER_HOST is not set and" : " (")
                            + (dockerHost == null ? " /var/run/docker.sock does not answer)" : "")
                            + (dockerHost == null ? "" : "DOCKER_HOST=" + dockerHost + ")")
                            + "; start Docker, or use --infra embedded");
        }
    }

    /** Null when the engine at {@code dockerHost} accepts a connection, else why not. */
    static String probe(String dockerHost) {
        URI uri;
        try {
            uri = URI.create(dockerHost);
        } catch (IllegalArgumentException e) {
            return "is not a URL";
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme();
        switch (scheme) {
            case "unix" -> {
                Path socket = Path.of(uri.getPath());
                if (!Files.exists(socket)) {
                    return "does not exist";
                }
                try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                    ch.connect(UnixDomainSocketAddress.of(socket));
                    return null;
                } catch (IOException e) {
                    return "does not answer (" + e.getMessage() + ")";
                }
            }
            case "tcp", "http", "https" -> {
                int port = uri.getPort() > 0 ? uri.getPort() : 2375;
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(uri.getHost(), port), 3000);
                    return null;
                } catch (IOException e) {
                    return "does not answer (" + e.getMessage() + ")";
                }
            }
            default -> {
                // npipe, ssh: leave it to the Docker client
                return null;
            }
        }
    }

    /**
     * Returns when {@code image} is on this machine, pulling it if it is not.
     *
     * @param image the image name
     * @param howToReplace how a user names another image, e.g. {@code --postgres-image}
     * @throws InfraUnavailableException naming the image and how to supply another
     */
    public static void requireImage(String image, String howToReplace) {
        DockerClient client = DockerClientFactory.lazyClient();
        try {
            client.inspectImageCmd(image).exec();
            return;
        } catch (NotFoundException e) {
            LOG.info("Image {} is not on this machine; pulling it", image);
        }
        DockerImageName name = DockerImageName.parse(image);
        String problem;
        try {
            boolean done =
                    client.pullImageCmd(name.getUnversionedPart())
                            .withTag(name.getVersionPart())
                            .start()
                            .awaitCompletion(PULL_TIMEOUT_S, TimeUnit.SECONDS);
            problem = done ? null : "the pull took longer than " + PULL_TIMEOUT_S + " s";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            problem = "interrupted";
        } catch (RuntimeException e) {
            problem = OneLineError.firstLine(e.getMessage(), "no detail");
        }
        if (problem == null) {
            try {
                client.inspectImageCmd(image).exec();
                return;
            } catch (NotFoundException e) {
                problem = "the pull ended without it";
            }
        }
        throw new InfraUnavailableException(
                "image "
                        + image
                        + " cannot be had: it is not on this machine and pulling it failed ("
                        + problem
                        + "); supply another with "
                        + howToReplace
                        + " (scripts/build-local-images.sh builds local ones)");
    }
}
