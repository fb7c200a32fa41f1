package dev.cdclab.orchestration.admin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.cdclab.format.JsonText;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.orchestration.metrics.PrometheusMetrics;
import dev.cdclab.sink.WarehouseSink;
import dev.cdclab.streams.NetChangeApp;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A process's own HTTP endpoint on loopback. A pipeline's serves its live page ({@code GET /}),
 * {@code GET /metrics} in Prometheus' text format, {@code POST /query} (read-only SQL against the
 * warehouse), {@code GET /status}, {@code POST /verify} and {@code POST /resnapshot}; a stage run
 * as its own process serves {@code /metrics} and {@code /status}, and the sink's {@code /query}.
 */
public final class AdminServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);

    /** One route's handler; an exception it throws answers 500 with its message. */
    @FunctionalInterface
    interface Route {
        void handle(HttpExchange x) throws Exception;
    }

    private final HttpServer server;
    private final ExecutorService executor;
    private final List<AutoCloseable> owned = new ArrayList<>();
    private final AdminToken token;

    private AdminServer(int port, AdminToken token) throws IOException {
        this.token = token;
        try {
            server =
                    HttpServer.create(
                            new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        } catch (BindException e) {
            throw inUse(port);
        }
        executor =
                Executors.newFixedThreadPool(
                        4,
                        r -> {
                            Thread t = new Thread(r, "admin-http");
                            t.setDaemon(true);
                            return t;
                        });
        server.setExecutor(executor);
    }

    /**
     * The endpoint of a started pipeline, on {@code port} of 127.0.0.1 (0: a free one): its page,
     * metrics, queries, status, verification and re-snapshots.
     *
     * @throws IllegalArgumentException when the port is in use
     */
    public static AdminServer forPipeline(Pipeline pipeline, int port, AdminToken token)
            throws IOException {
        AdminServer a = new AdminServer(port, token);
        try {
            PrometheusMetrics metrics = a.own(PrometheusMetrics.of(pipeline));
            a.openRoute("/metrics", x -> metrics(x, metrics));
            new PipelineRoutes(pipeline).register(a);
            if (pipeline.sink() != null) {
                new QueryRoute(pipeline.sink()).register(a);
            } else {
                a.route(
                        "/query",
                        x ->
                                json(
                                        x,
                                        409,
                                        Map.of(
                                                "error",
                                                "the sink runs in a process of its own: ask its"
                                                        + " admin URL")));
            }
            new LivePage(a.own(LiveHistory.start(pipeline))).register(a);
        } catch (RuntimeException e) {
            a.close();
            throw e;
        }
        return a.start();
    }

    /** The endpoint of a Streams app run as its own process: metrics and status. */
    public static AdminServer forStreams(NetChangeApp app, int port, AdminToken token)
            throws IOException {
        AdminServer a = new AdminServer(port, token);
        PrometheusMetrics metrics = a.own(new PrometheusMetrics());
        app.bindTo(metrics.registry());
        a.openRoute("/metrics", x -> metrics(x, metrics));
        a.route(
                "/status",
                x -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("state", String.valueOf(app.state()));
                    m.put("captured_changes", app.stats().rawChanges());
                    m.put("net_changes_emitted", app.stats().netChanges());
                    m.put("open_interval_keys", app.stats().openKeys());
                    m.put("late_changes", app.stats().late());
                    m.put("dead_letters", app.stats().deadLetters());
                    json(x, 200, m);
                });
        return a.start();
    }

    /** The endpoint of a sink run as its own process: metrics, status and read-only queries. */
    public static AdminServer forSink(WarehouseSink sink, int port, AdminToken token)
            throws IOException {
        AdminServer a = new AdminServer(port, token);
        PrometheusMetrics metrics = a.own(new PrometheusMetrics());
        sink.bindTo(metrics.registry());
        a.openRoute("/metrics", x -> metrics(x, metrics));
        new QueryRoute(sink).register(a);
        a.route(
                "/status",
                x -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("net_changes_applied", sink.stats().netChanges());
                    m.put("raw_changes_applied", sink.stats().rawChanges());
                    m.put("held", sink.stats().held());
                    m.put("dead_letters", sink.stats().deadLettered());
                    m.put("applied_through_ms", sink.stats().appliedThroughMs());
                    json(x, 200, m);
                });
        return a.start();
    }

    /**
     * Fails at once, before anything starts, when {@code port} (not 0) is taken on 127.0.0.1.
     *
     * @throws IllegalArgumentException naming the port
     */
    public static void requireFree(int port) throws IOException {
        if (port != 0) {
            try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                s.setReuseAddress(true);
            } catch (BindException e) {
                throw inUse(port);
            }
        }
    }

    private static IllegalArgumentException inUse(int port) {
        return new IllegalArgumentException(
                "admin port " + port + " on 127.0.0.1 is in use (choose another one, or 0)");
    }

    private AdminServer start() {
        server.start();
        return this;
    }

    private <T extends AutoCloseable> T own(T closeable) {
        owned.add(closeable);
        return closeable;
    }

    /**
     * Serves {@code path} (and what lies under it) with {@code route}, to requests that show the
     * token.
     */
    void route(String path, Route route) {
        server.createContext(path, handler(route, true));
    }

    /**
     * Serves {@code path} without the token: {@code /metrics}, which Prometheus scrapes from
     * loopback without one, and the live page's static files (the page takes the token from its own
     * URL). The Host and Origin checks still hold.
     */
    void openRoute(String path, Route route) {
        server.createContext(path, handler(route, false));
    }

    private HttpHandler handler(Route route, boolean secured) {
        return x -> {
            try {
                String refused = refusal(x, secured);
                if (refused != null) {
                    int code = refused.startsWith("401 ") ? 401 : 403;
                    json(x, code, Map.of("error", refused.substring(4)));
                    return;
                }
                route.handle(x);
            } catch (Exception e) {
                LOG.warn("{} {} failed", x.getRequestMethod(), x.getRequestURI(), e);
                try {
                    json(x, 500, Map.of("error", String.valueOf(e.getMessage())));
                } catch (IOException | RuntimeException ignored) {
                    // the response had started; the client sees a cut answer
                }
            } finally {
                x.close();
            }
        };
    }

    /**
     * Why the request is refused, prefixed by its status ({@code 403 }, {@code 401 }); null when it
     * is not. A browser sends the Host it was pointed at and, from a script of another site, that
     * site's Origin: a page that points a host name of its own at loopback (DNS rebinding) shows
     * its name as the Host, and a page that posts to loopback shows its Origin. Neither can show
     * the token.
     */
    private String refusal(HttpExchange x, boolean secured) {
        int port = server.getAddress().getPort();
        String host = x.getRequestHeaders().getFirst("Host");
        if (host == null || !ownAuthority(host, port)) {
            return "403 the Host '"
                    + host
                    + "' is not this endpoint's (127.0.0.1:"
                    + port
                    + " or localhost:"
                    + port
                    + "): refused, as a page pointing a name of its own at loopback would send it";
        }
        String origin = x.getRequestHeaders().getFirst("Origin");
        if (origin != null
                && !(origin.startsWith("http://") && ownAuthority(origin.substring(7), port))) {
            return "403 a request from another site (Origin '" + origin + "') is refused";
        }
        if (!secured) {
            return null;
        }
        String auth = x.getRequestHeaders().getFirst(AdminToken.HEADER);
        if (auth == null || auth.isBlank()) {
            return "401 this endpoint needs its token: send 'Authorization: Bearer <token>' (the"
                    + " token is in the endpoints file, and in the live page's URL)";
        }
        String presented =
                auth.regionMatches(true, 0, "Bearer ", 0, 7) ? auth.substring(7).trim() : "";
        if (!token.matches(presented)) {
            return "401 wrong token for this endpoint";
        }
        return null;
    }

    /** Whether {@code authority} ({@code host:port}) is this endpoint's. */
    private static boolean ownAuthority(String authority, int port) {
        String a = authority.trim().toLowerCase(java.util.Locale.ROOT);
        return a.equals("127.0.0.1:" + port)
                || a.equals("localhost:" + port)
                || a.equals("[::1]:" + port);
    }

    /** The token its clients show. */
    public AdminToken token() {
        return token;
    }

    /** The live page's address, the token in its fragment: a browser sends no fragment on. */
    public String pageUrl() {
        return url() + "/#token=" + token.reveal();
    }

    private static void metrics(HttpExchange x, PrometheusMetrics metrics) throws IOException {
        send(x, 200, "text/plain; version=0.0.4; charset=utf-8", metrics.scrape());
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** For clients: the base URI. */
    public URI uri() {
        return URI.create(url());
    }

    /** The decoded query parameters of the request. */
    static Map<String, String> query(HttpExchange x) {
        Map<String, String> out = new LinkedHashMap<>();
        String q = x.getRequestURI().getRawQuery();
        if (q != null) {
            for (String kv : q.split("&")) {
                int eq = kv.indexOf('=');
                if (eq > 0) {
                    out.put(
                            kv.substring(0, eq),
                            URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
                }
            }
        }
        return out;
    }

    /** The request's body as UTF-8 text. */
    static String body(HttpExchange x) throws IOException {
        try (InputStream in = x.getRequestBody()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static void json(HttpExchange x, int code, Object body) throws IOException {
        send(x, code, "application/json", JsonText.of(body));
    }

    static void send(HttpExchange x, int code, String contentType, String body) throws IOException {
        send(x, code, contentType, body.getBytes(StandardCharsets.UTF_8));
    }

    static void send(HttpExchange x, int code, String contentType, byte[] bytes)
            throws IOException {
        x.getResponseHeaders().set("Content-Type", contentType);
        x.getResponseHeaders().set("Cache-Control", "no-store");
        x.sendResponseHeaders(code, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            try (OutputStream os = x.getResponseBody()) {
                os.write(bytes);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        for (AutoCloseable c : owned) {
            try {
                c.close();
            } catch (Exception e) {
                LOG.debug("Closing {}: {}", c, e.getMessage());
            }
        }
    }
}
