package dev.cdclab.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free ports on 127.0.0.1 for servers that must know their port before they bind it (a KRaft quorum
 * names every voter's address up front). A port is taken below the kernel's ephemeral range: a port
 * from {@code bind(0)} is in that range, where any outgoing connection made before the server binds
 * (the quorum's nodes connecting to each other while they start) can take it as its local port.
 */
public final class LoopbackPorts {
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int LOWEST = 10_000;
    private static final int TRIES = 200;

    private LoopbackPorts() {}

    /**
     * A port nobody listens on now, outside the ephemeral range where the kernel says what that is;
     * a port from {@code bind(0)} otherwise.
     *
     * @throws UncheckedIOException when no port can be bound at all
     */
    public static int free() {
        int below = ephemeralLow();
        if (below - LOWEST >= 1_000) {
            for (int i = 0; i < TRIES; i++) {
                int port = ThreadLocalRandom.current().nextInt(LOWEST, below);
                if (bindable(port)) {
                    return port;
                }
            }
        }
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1: " + e.getMessage(), e);
        }
    }

    private static boolean bindable(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The first port of the ephemeral range, or 0 when it cannot be read. */
    static int ephemeralLow() {
        try {
            // readString trusts the size /proc reports and can return a part of the line
            String[] range = Files.readAllLines(EPHEMERAL_RANGE).get(0).trim().split("\\s+");
            return Integer.parseInt(range[0]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
