package dev.cdclab.orchestration.admin;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.Properties;

/**
 * The live page: {@code GET /} and its scripts and styles under {@code /assets/}, all served from
 * the jar (uPlot from its webjar), and {@code GET /live.json}, the data it polls every second.
 */
final class LivePage {
    private static final String PAGE = "/dev/cdclab/orchestration/admin/page/";
    private static final String UPLOT = "/META-INF/resources/webjars/uplot/";
    private static final Map<String, String> TYPES =
            Map.of(
                    "html", "text/html; charset=utf-8",
                    "js", "text/javascript; charset=utf-8",
                    "css", "text/css; charset=utf-8");

    private final LiveHistory history;
    private final String uplotDist;

    LivePage(LiveHistory history) {
        this.history = history;
        this.uplotDist = UPLOT + webjarVersion() + "/dist/";
    }

    void register(AdminServer server) {
        server.route("/live.json", x -> AdminServer.json(x, 200, history.snapshot()));
        // the page and its files hold no data: the page takes the token from its own address
        server.openRoute("/assets/", this::asset);
        server.openRoute("/", this::page);
    }

    private void page(HttpExchange x) throws IOException {
        String path = x.getRequestURI().getPath();
        if (!path.equals("/") && !path.equals("/index.html")) {
            AdminServer.json(x, 404, Map.of("error", "no such page: " + path));
            return;
        }
        serve(x, PAGE + "index.html");
    }

    private void asset(HttpExchange x) throws IOException {
        String name = x.getRequestURI().getPath().substring("/assets/".length());
        switch (name) {
            case "uPlot.iife.min.js", "uPlot.min.css" -> serve(x, uplotDist + name);
            case "live.js", "live.css" -> serve(x, PAGE + name);
            default -> AdminServer.json(x, 404, Map.of("error", "no such asset: " + name));
        }
    }

    private static void serve(HttpExchange x, String resource) throws IOException {
        try (InputStream in = LivePage.class.getResourceAsStream(resource)) {
            if (in == null) {
                AdminServer.json(x, 404, Map.of("error", "missing from the jar: " + resource));
                return;
            }
            String ext = resource.substring(resource.lastIndexOf('.') + 1);
            AdminServer.send(x, 200, TYPES.get(ext), in.readAllBytes());
        }
    }

    /** The version of the uPlot webjar on the class path (its directory name). */
    private static String webjarVersion() {
        try (InputStream in =
                LivePage.class.getResourceAsStream(
                        "/META-INF/maven/org.webjars.npm/uplot/pom.properties")) {
            if (in == null) {
                throw new IllegalStateException("the uPlot webjar is not on the class path");
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the uPlot webjar's version", e);
        }
    }
}
