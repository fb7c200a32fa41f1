package dev.cdclab.orchestration.infra;

import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A Testcontainers create-command modifier that publishes container ports on 127.0.0.1 only, each
 * on a free port (Docker's default publishes on every address of the host).
 */
public final class LoopbackPorts {
    private LoopbackPorts() {}

    /** For {@code container.withCreateContainerCmdModifier(LoopbackPorts.only(5432))}. */
    public static Consumer<CreateContainerCmd> only(int... containerPorts) {
        return cmd -> {
            List<PortBinding> bindings = new ArrayList<>();
            for (int p : containerPorts) {
                bindings.add(
                        new PortBinding(Ports.Binding.bindIp("127.0.0.1"), ExposedPort.tcp(p)));
            }
            cmd.getHostConfig().withPublishAllPorts(false).withPortBindings(bindings);
        };
    }
}
