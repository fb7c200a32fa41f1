package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cdclab.cli.CdcLab;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin endpoint of a running {@code up} (DuckDB warehouse) answers its own clients only: each
 * route that acts or reads data wants the run's token, a foreign Host or Origin is refused, and the
 * warehouse's SQL reads the warehouse and nothing else. Its clients ({@code cdc-lab sql}, {@code
 * verify}, {@code resnapshot}) still work from the endpoints file.
 */
@Timeout(600)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminEndpointIT {
    @TempDir static Path dir;
    private TestHelper.RunningUp up;
    private String admin;
    private int port;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    void startUp() throws Exception {
        up = TestHelper.up(dir);
        admin = up.adminUrl();
        port = URI.create(admin).getPort();
        try (Connection c = up.source();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE public.guarded (id int PRIMARY KEY, v text)");
            s.execute(
                    "INSERT INTO public.guarded SELECT g, 'v' || g FROM generate_series(1, 20) g");
        }
        TestHelper.CliRun v =
                TestHelper.cdcLab(
                        "verify",
                        "--endpoints-file",
                        up.endpointsFile().toString(),
                        "--timeout",
                        "90s");
        assertThat(v.code()).as(v.out()).isZero();
    }

    @AfterAll
    void stopUp() throws Exception {
        CdcLab.stopRunning();
        if (up != null) {
            assertThat(up.exit().get(60, TimeUnit.SECONDS)).isZero();
        }
    }

    private HttpResponse<String> send(HttpRequest.Builder b) throws Exception {
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(admin + path)).timeout(Duration.ofSeconds(60));
    }

    private HttpRequest.Builder authorized(String path) {
        return request(path).header("Authorization", "Bearer " + up.adminToken());
    }

    @Test
    void everyRouteThatActsOrReadsDataWantsTheToken() throws Exception {
        for (String path : new String[] {"/status", "/live.json"}) {
            HttpResponse<String> none = send(request(path));
            assertThat(none.statusCode()).as(path).isEqualTo(401);
            assertThat(none.body()).contains("needs its token");
        }
        for (String path : new String[] {"/query", "/verify", "/resnapshot?table=public.guarded"}) {
            HttpResponse<String> none =
                    send(request(path).POST(HttpRequest.BodyPublishers.ofString("SELECT 1")));
            assertThat(none.statusCode()).as(path).isEqualTo(401);
        }
        HttpResponse<String> wrong =
                send(request("/status").header("Authorization", "Bearer not-the-token"));
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(wrong.body()).contains("wrong token").doesNotContain(up.adminToken());
        assertThat(send(authorized("/status")).statusCode()).isEqualTo(200);
    }

    @Test
    void metricsStayOpenOnLoopbackForPrometheus() throws Exception {
        HttpResponse<String> r = send(request("/metrics"));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("cdclab_");
    }

    @Test
    void aForeignOriginIsRefusedEvenWithTheToken() throws Exception {
        HttpResponse<String> r =
                send(
                        authorized("/query")
                                .header("Origin", "http://pages.example")
                                .header("Content-Type", "text/plain")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                "SELECT count(*) FROM public.guarded")));
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(r.body()).contains("another site").contains("pages.example");
        HttpResponse<String> own =
                send(
                        authorized("/query")
                                .header("Origin", "http://127.0.0.1:" + port)
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                "SELECT count(*) AS n FROM public.guarded")));
        assertThat(own.statusCode()).as(own.body()).isEqualTo(200);
    }

    @Test
    void aForeignHostIsRefusedAsDnsRebindingWouldSendIt() throws Exception {
        // Java's client will not send a Host of its own choosing: a raw request does
        String answer;
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            out.write(
                    ("GET /status HTTP/1.1\r\nHost: rebound.example:"
                                    + port
                                    + "\r\nAuthorization: Bearer "
                                    + up.adminToken()
                                    + "\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(answer).startsWith("HTTP/1.1 403").contains("rebound.example");
    }

    @Test
    void warehouseSqlReadsTheWarehouseAndNoFile() throws Exception {
        HttpResponse<String> file =
                send(
                        authorized("/query")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                "SELECT content FROM read_text('/etc/hostname')")));
        assertThat(file.statusCode()).isEqualTo(400);
        assertThat(file.body()).doesNotContain("\"rows\"");
        TestHelper.CliRun viaCli =
                TestHelper.cdcLab(
                        "sql",
                        "--endpoints-file",
                        up.endpointsFile().toString(),
                        "SELECT * FROM read_csv('/etc/passwd')");
        assertThat(viaCli.code()).isNotZero();
        TestHelper.CliRun attach =
                TestHelper.cdcLab(
                        "sql",
                        "--endpoints-file",
                        up.endpointsFile().toString(),
                        "SELECT * FROM duckdb_settings() WHERE name = 'enable_external_access'");
        assertThat(attach.code()).as(attach.out()).isZero();
        assertThat(attach.out()).contains("false");
        TestHelper.CliRun rows =
                TestHelper.cdcLab(
                        "sql",
                        "--endpoints-file",
                        up.endpointsFile().toString(),
                        "--format",
                        "csv",
                        "SELECT count(*) AS n FROM public.guarded");
        assertThat(rows.code()).as(rows.out()).isZero();
        assertThat(rows.out()).contains("n\n20\n");
    }

    @Test
    void theClientsStillWorkFromTheEndpointsFile() throws Exception {
        TestHelper.CliRun verify =
                TestHelper.cdcLab(
                        "verify",
                        "--endpoints-file",
                        up.endpointsFile().toString(),
                        "--timeout",
                        "90s");
        assertThat(verify.code()).as(verify.out()).isZero();
        TestHelper.CliRun resnapshot =
                TestHelper.cdcLab(
                        "resnapshot",
                        "--endpoints-file",
                        up.endpointsFile().toString(),
                        "public.guarded");
        assertThat(resnapshot.code()).as(resnapshot.out()).isZero();
        HttpResponse<String> status = send(authorized("/status"));
        assertThat(new ObjectMapper().readTree(status.body()).isObject()).isTrue();
    }
}
