package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cdclab.cli.CdcLab;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Watching a running {@code up} as a user would: {@code /metrics} histograms whose counts grow as
 * rows are written, a Grafana dashboard whose queries name metrics that exist, {@code cdc-lab sql}
 * answering (and refusing a write) while the warehouse is written, and the live page rendered by a
 * real headless Chromium, whose charts show data and whose counts match the warehouse.
 */
@Timeout(600)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LivePageIT {
    private static final Pattern METRIC_NAME =
            Pattern.compile("\\b((?:cdclab|kafka|jvm|process)_[a-z0-9_]+)");

    @TempDir static Path dir;
    private Path endpoints;
    private TestHelper.RunningUp up;
    private String admin;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    void startUp() throws Exception {
        up = TestHelper.up(dir);
        endpoints = up.endpointsFile();
        admin = up.adminUrl();
    }

    @AfterAll
    void stopUp() throws Exception {
        CdcLab.stopRunning();
        if (up != null) {
            assertThat(up.exit().get(60, TimeUnit.SECONDS)).isZero();
        }
    }

    @Test
    void metricsHistogramsGrowAsRowsAreWritten() throws Exception {
        String table = createTable("metered");
        insert(table, 1, 50);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> sample(get("/metrics"), "cdclab_changes_applied_total", table) >= 50);
        String first = get("/metrics");
        double count = sample(first, "cdclab_commit_to_warehouse_seconds_count", null);
        assertThat(first)
                .contains("# TYPE cdclab_commit_to_warehouse_seconds histogram")
                .contains("cdclab_commit_to_warehouse_seconds_bucket{le=\"0.001\"}")
                .contains("cdclab_commit_to_warehouse_seconds_bucket{le=\"60.0\"}")
                .contains("cdclab_stage_latency_seconds_bucket{stage=\"net_change\"")
                .contains("cdclab_warehouse_transaction_seconds_bucket")
                .contains("cdclab_capture_slot_lag_bytes")
                .contains("kafka_consumer_")
                .contains("kafka_stream_");
        assertThat(count).isGreaterThanOrEqualTo(50);

        insert(table, 51, 80);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> sample(get("/metrics"), "cdclab_changes_applied_total", table) >= 80);
        String second = get("/metrics");
        assertThat(sample(second, "cdclab_commit_to_warehouse_seconds_count", null))
                .isGreaterThanOrEqualTo(count + 30);
        assertThat(sample(second, "cdclab_changes_captured_total", table)).isEqualTo(80);
    }

    @Test
    void everyMetricTheDashboardQueriesExists() throws Exception {
        String table = createTable("dashboard");
        insert(table, 1, 10);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> sample(get("/metrics"), "cdclab_changes_applied_total", table) >= 10);
        JsonNode dashboard =
                new ObjectMapper()
                        .readTree(
                                Path.of("..", "docs", "monitoring", "grafana-dashboard.json")
                                        .toFile());
        Set<String> queried = new TreeSet<>();
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                Matcher m = METRIC_NAME.matcher(target.path("expr").asText());
                while (m.find()) {
                    queried.add(m.group(1));
                }
            }
        }
        assertThat(queried).hasSizeGreaterThan(10);
        // the Kafka clients' metrics appear once their clients have connected
        await().atMost(Duration.ofSeconds(90))
                .untilAsserted(
                        () -> {
                            Set<String> exposed = exposedNames(get("/metrics"));
                            assertThat(exposed).containsAll(queried);
                        });
    }

    @Test
    void sqlAnswersWhileUpRunsAndRefusesAWrite() throws Exception {
        String table = createTable("queried");
        insert(table, 1, 25);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> sample(get("/metrics"), "cdclab_changes_applied_total", table) >= 25);
        TestHelper.CliRun count =
                TestHelper.cdcLab(
                        "sql",
                        "--endpoints-file",
                        endpoints.toString(),
                        "--format",
                        "csv",
                        "SELECT count(*) AS n, sum(id) AS s FROM " + table);
        assertThat(count.code()).as(count.out()).isZero();
        assertThat(count.out()).contains("n,s\n25,325\n");
        TestHelper.CliRun delete =
                TestHelper.cdcLab(
                        "sql", "--endpoints-file", endpoints.toString(), "DELETE FROM " + table);
        assertThat(delete.code()).isNotZero();
        assertThat(warehouseRows(table)).isEqualTo(25);
    }

    @Test
    @Order(Integer.MAX_VALUE) // last: the page then shows every table the class wrote
    void theLivePageInChromiumShowsChartsWithDataAndTheWarehouseCounts() throws Exception {
        Path chromium = chromium();
        Assumptions.assumeTrue(
                chromium != null,
                "no headless Chromium here (Debian's chromium package; CI installs it)");
        String table = createTable("paged");
        // batch after batch, each once the last is in the warehouse: seconds of points to chart
        for (int batch = 0; batch < 10; batch++) {
            int to = (batch + 1) * 30;
            insert(table, batch * 30 + 1, to);
            await().atMost(Duration.ofSeconds(60))
                    .until(
                            () ->
                                    sample(get("/metrics"), "cdclab_changes_applied_total", table)
                                            >= to);
        }
        long rows = warehouseRows(table);
        assertThat(rows).isEqualTo(300);

        String dom = chromium(chromium, "--dump-dom");
        assertThat(attribute(dom, "body", "data-refreshes")).isGreaterThan(0);
        for (String chart : List.of("chart-latency", "chart-stages", "chart-rate")) {
            assertThat(chartPoints(dom, chart)).as(chart).isGreaterThan(0);
        }
        assertThat(dom).contains("<canvas");
        assertThat(cell(dom, table, "applied")).isEqualTo(rows);
        assertThat(cell(dom, table, "captured")).isEqualTo(rows);

        Path png = Path.of("target", "live-page.png").toAbsolutePath();
        Files.deleteIfExists(png);
        chromium(chromium, "--screenshot=" + png, "--window-size=1280,1500");
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(1280);
        Set<Integer> colors = new HashSet<>();
        for (int y = 0; y < image.getHeight(); y += 3) {
            for (int x = 0; x < image.getWidth(); x += 3) {
                colors.add(image.getRGB(x, y));
            }
        }
        // text, grid lines and the series' colours: a blank or unstyled page has a handful
        assertThat(colors).as("distinct colours in the screenshot").hasSizeGreaterThan(50);
        System.out.println("LivePageIT: screenshot of the live page in " + png);
    }

    private String createTable(String prefix) throws Exception {
        String table = "public." + prefix + "_" + Long.toHexString(System.nanoTime());
        try (Connection c = source();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (id int PRIMARY KEY, name text)");
        }
        return table;
    }

    private void insert(String table, int from, int to) throws Exception {
        try (Connection c = source();
                Statement s = c.createStatement()) {
            s.execute(
                    "INSERT INTO "
                            + table
                            + " SELECT g, 'row ' || g FROM generate_series("
                            + from
                            + ", "
                            + to
                            + ") g");
        }
    }

    private Connection source() throws Exception {
        return up.source();
    }

    private long warehouseRows(String table) throws Exception {
        HttpResponse<String> r =
                http.send(
                        HttpRequest.newBuilder(URI.create(admin + "/query"))
                                .header("Authorization", "Bearer " + up.adminToken())
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                "SELECT count(*) FROM " + table))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return new ObjectMapper().readTree(r.body()).path("rows").get(0).get(0).asLong();
    }

    private String get(String path) throws IOException, InterruptedException {
        HttpResponse<String> r =
                http.send(
                        HttpRequest.newBuilder(URI.create(admin + path))
                                .header("Authorization", "Bearer " + up.adminToken())
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }

    /** The value of one sample line of {@code name} (with {@code table} as its label, if any). */
    private static double sample(String scrape, String name, String table) {
        for (String line : scrape.split("\n")) {
            if (line.startsWith(name + " ")
                    || (line.startsWith(name + "{")
                            && (table == null || line.contains("table=\"" + table + "\"")))) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return -1;
    }

    private static Set<String> exposedNames(String scrape) {
        Set<String> names = new HashSet<>();
        for (String line : scrape.split("\n")) {
            if (!line.startsWith("#") && !line.isBlank()) {
                int end = line.indexOf('{');
                names.add(line.substring(0, end > 0 ? end : line.indexOf(' ')));
            }
        }
        return names;
    }

    private static Path chromium() {
        for (String candidate :
                List.of(
                        "/usr/bin/chromium",
                        "/usr/bin/chromium-browser",
                        "/usr/bin/google-chrome")) {
            Path p = Path.of(candidate);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /**
     * Loads the page in headless Chromium with {@code extra} (dump the DOM, or take a screenshot),
     * after letting its scripts poll for five seconds of virtual time; returns its stdout.
     */
    private String chromium(Path chromium, String... extra) throws Exception {
        List<String> cmd =
                new ArrayList<>(
                        List.of(
                                chromium.toString(),
                                "--headless",
                                "--no-sandbox",
                                "--disable-gpu",
                                "--disable-quic",
                                "--no-first-run",
                                "--disable-background-networking",
                                "--disable-component-update",
                                "--disable-sync",
                                "--user-data-dir=" + Files.createTempDirectory(dir, "chromium"),
                                "--virtual-time-budget=5000"));
        cmd.addAll(List.of(extra));
        // the address up printed: the page takes its token from it
        String page = up.printedPageUrl();
        assertThat(page).startsWith(admin + "/#token=");
        cmd.add(page);
        Process p =
                new ProcessBuilder(cmd).redirectError(dir.resolve("chromium.err").toFile()).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("chromium finished").isTrue();
        assertThat(p.exitValue())
                .as("chromium: " + Files.readString(dir.resolve("chromium.err")))
                .isZero();
        return new String(out, StandardCharsets.UTF_8);
    }

    private static long attribute(String dom, String element, String attribute) {
        Matcher m =
                Pattern.compile("<" + element + "[^>]*\\s" + attribute + "=\"(\\d+)\"")
                        .matcher(dom);
        assertThat(m.find()).as(element + " " + attribute).isTrue();
        return Long.parseLong(m.group(1));
    }

    private static long chartPoints(String dom, String id) {
        Matcher m = Pattern.compile("id=\"" + id + "\"[^>]*data-points=\"(\\d+)\"").matcher(dom);
        assertThat(m.find()).as(id).isTrue();
        return Long.parseLong(m.group(1));
    }

    /** A number the page's table shows for {@code table}, as rendered (1,234 is 1234). */
    private static long cell(String dom, String table, String column) {
        Matcher row =
                Pattern.compile("<tr data-table=\"" + Pattern.quote(table) + "\">(.*?)</tr>")
                        .matcher(dom);
        assertThat(row.find()).as("the page's row of " + table).isTrue();
        Matcher cell =
                Pattern.compile("data-column=\"" + column + "\">([0-9,]+)<").matcher(row.group(1));
        assertThat(cell.find()).as(column + " of " + table).isTrue();
        return Long.parseLong(cell.group(1).replace(",", ""));
    }
}
