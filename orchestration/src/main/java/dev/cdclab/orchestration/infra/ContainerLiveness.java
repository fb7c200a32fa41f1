package dev.cdclab.orchestration.infra;

import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.NotFoundException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.containers.ContainerState;

/**
 * Whether a container has stopped, as Docker says. Testcontainers' {@code isRunning()} answers
 * false when Docker fails to answer at all (an error from a daemon busy on two cores), which would
 * stop a healthy pipeline; here only Docker's own word that the container is not running counts.
 */
final class ContainerLiveness {
    private static final Logger LOG = LoggerFactory.getLogger(ContainerLiveness.class);

    private ContainerLiveness() {}

    /**
     * How the container stopped ({@code "exit code 137"}, {@code "removed"}); empty while it runs
     * or when Docker cannot tell now.
     */
    static Optional<String> stopped(ContainerState container) {
        String id = container.getContainerId();
        if (id == null) {
            return Optional.of("not started");
        }
        InspectContainerResponse.ContainerState state;
        try {
            state = container.getDockerClient().inspectContainerCmd(id).exec().getState();
        } catch (NotFoundException e) {
            return Optional.of("removed");
        } catch (RuntimeException e) {
            LOG.debug("Docker did not say whether container {} runs: {}", id, e.toString());
            return Optional.empty();
        }
        if (Boolean.TRUE.equals(state.getRunning())) {
            return Optional.empty();
        }
        return Optional.of(
                "exit code "
                        + state.getExitCodeLong()
                        + (Boolean.TRUE.equals(state.getOOMKilled()) ? ", out of memory" : ""));
    }

    /**
     * @throws IllegalStateException saying that {@code what} has stopped, and how, when Docker says
     *     so
     */
    static void requireRunning(ContainerState container, String what) {
        stopped(container)
                .ifPresent(
                        how -> {
                            throw new IllegalStateException(what + " has stopped (" + how + ")");
                        });
    }
}
