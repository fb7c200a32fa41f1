package dev.cdclab.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class LoopbackPortsTest {

    @Test
    void aFreePortIsBelowTheEphemeralRangeAndCanBeBound() throws IOException {
        int low = LoopbackPorts.ephemeralLow();
        assumeTrue(low > 11_000, "the kernel does not say where its ephemeral range starts");
        for (int i = 0; i < 20; i++) {
            int port = LoopbackPorts.free();
            assertThat(port).isBetween(10_000, low - 1);
            try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                assertThat(s.getLocalPort()).isEqualTo(port);
            }
        }
    }
}
