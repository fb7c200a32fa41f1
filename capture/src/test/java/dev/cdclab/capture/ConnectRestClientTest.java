package dev.cdclab.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Failures of the Connect REST API keep their status and never turn into an empty answer. */
class ConnectRestClientTest {
    private HttpServer server;
    private ConnectRestClient client;

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/connectors/gone", x -> reply(x, 404, "{\"message\":\"not found\"}"));
        server.createContext(
                "/connectors/garbled/status", x -> reply(x, 200, "<html>proxy</html>"));
        server.createContext(
                "/connectors/broken/status", x -> reply(x, 500, "{\"message\":\"boom\\nat x\"}"));
        server.start();
        client = new ConnectRestClient("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private static void reply(com.sun.net.httpserver.HttpExchange x, int code, String body)
            throws java.io.IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        x.sendResponseHeaders(code, b.length);
        try (OutputStream os = x.getResponseBody()) {
            os.write(b);
        }
    }

    @Test
    void deletingAConnectorThatIsNotThereIsFine() {
        assertThatCode(() -> client.delete("gone")).doesNotThrowAnyException();
    }

    @Test
    void aSuccessWhoseBodyIsNotJsonIsAnError() {
        assertThatThrownBy(() -> client.status("garbled"))
                .isInstanceOfSatisfying(
                        ConnectRestException.class, e -> assertThat(e.status()).isEqualTo(200))
                .hasMessageContaining("not JSON");
    }

    @Test
    void anErrorStatusKeepsItsCodeAndFirstLine() {
        assertThatThrownBy(() -> client.status("broken"))
                .isInstanceOfSatisfying(
                        ConnectRestException.class, e -> assertThat(e.status()).isEqualTo(500))
                .hasMessage("GET /connectors/broken/status -> 500: boom");
    }
}
