package dev.cdclab.lab.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExperimentReportTest {
    @TempDir Path out;

    private static final String FILE =
            """
            name: report-test
            reproduces: "a table"
            factors: {streams.interval: [250ms, 1s]}
            conclusions:
              - {table: T, claim: shorter is faster, metric: latency_p99_ms, expect: lower,
                 when: {streams.interval: 250ms}, than: {streams.interval: 1s}}
              - {table: T, claim: same throughput, metric: tx_per_s, expect: similar, margin: 5%,
                 when: {streams.interval: 250ms}, than: {streams.interval: 1s}}
              - {table: T, claim: more WAL, metric: wal_written_bytes, expect: higher,
                 when: {streams.interval: 250ms}, than: {streams.interval: 1s}}
              - {table: T, claim: across metrics, metric: tx_per_s, than_metric: latency_p99_ms,
                 expect: lower, when: {streams.interval: 250ms}, than: {streams.interval: 1s}}
            """;

    @Test
    void verdictsTableCsvAndChartsComeFromTheCellsResults() throws Exception {
        ExperimentSpec spec = ExperimentSpec.parse(FILE, "t.yaml", ExperimentSpec.Scale.FILE);
        List<Manifest.Entry> entries = new ArrayList<>();
        double[] p99 = {600, 2000};
        double[] tx = {500, 480};
        int i = 0;
        for (ExperimentCell c : spec.cells()) {
            Manifest.Entry e = new Manifest.Entry(c);
            e.state = Manifest.State.DONE;
            writeCell(c, p99[i], tx[i]);
            entries.add(e);
            i++;
        }
        ExperimentReport report = new ExperimentReport(spec, out, entries);
        report.write();

        String md = Files.readString(out.resolve("summary.md"));
        assertThat(md)
                .contains("| streams.interval | workload tx/s")
                .contains("| 250ms | 500 |")
                .contains(
                        "shorter is faster. Conclusion holds on this stack: **yes**, because"
                                + " latency_p99_ms is 600 at streams.interval=250ms vs 2,000 at"
                                + " streams.interval=1s (-70%")
                .contains("same throughput. Conclusion holds on this stack: **yes**")
                .contains("more WAL. Conclusion holds on this stack: **no**")
                .contains(
                        "across metrics. Conclusion holds on this stack: **yes**, because tx_per_s"
                                + " is 500 at streams.interval=250ms vs latency_p99_ms 2,000 at"
                                + " streams.interval=1s");

        List<String> csv = Files.readAllLines(out.resolve("results.csv"));
        assertThat(csv).hasSize(3);
        assertThat(csv.get(0))
                .startsWith("cell,streams.interval,repetition,state,transactions,tx_per_s");
        assertThat(csv.get(1)).contains(",250ms,1,done,").contains(",600.0,");

        for (String png :
                List.of(
                        "charts/latency-" + spec.cells().get(0).id() + ".png",
                        "charts/streams.interval-latency_p99_ms.png",
                        "charts/workload-overhead.png")) {
            BufferedImage img = ImageIO.read(out.resolve(png).toFile());
            assertThat(img).as(png).isNotNull();
            assertThat(img.getWidth()).isEqualTo(ReportCharts.WIDTH);
        }
        assertThat(Files.readString(out.resolve("report.html")))
                .contains("<img src=\"charts/workload-overhead.png\"")
                .contains("<b>yes</b>");
    }

    @Test
    void aFailedCellMakesItsConclusionsUndecided() throws Exception {
        ExperimentSpec spec = ExperimentSpec.parse(FILE, "t.yaml", ExperimentSpec.Scale.FILE);
        List<Manifest.Entry> entries = new ArrayList<>();
        Manifest.Entry ok = new Manifest.Entry(spec.cells().get(0));
        ok.state = Manifest.State.DONE;
        writeCell(ok.cell, 600, 500);
        Manifest.Entry failed = new Manifest.Entry(spec.cells().get(1));
        failed.state = Manifest.State.FAILED;
        failed.error = "source did not start";
        entries.add(ok);
        entries.add(failed);
        ExperimentReport report = new ExperimentReport(spec, out, entries);
        report.write();
        assertThat(Files.readString(out.resolve("summary.md")))
                .contains("**failed**: source did not start")
                .contains(
                        "Conclusion holds on this stack: cannot tell, because latency_p99_ms is missing for streams.interval=1s");
    }

    private void writeCell(ExperimentCell c, double p99, double tx) throws Exception {
        Path dir = out.resolve("cells").resolve(c.id());
        Files.createDirectories(dir);
        Map<String, Object> metrics = new LinkedHashMap<>();
        for (String k : CellMetrics.NAMES.keySet()) {
            metrics.put(k, 1.0);
        }
        metrics.put("latency_p99_ms", p99);
        metrics.put("tx_per_s", tx);
        metrics.put("wal_written_bytes", 1000);
        metrics.put("verified", true);
        metrics.put("caught_up", true);
        Files.writeString(
                dir.resolve("summary.json"),
                new ObjectMapper().writeValueAsString(Map.of("metrics", metrics)));
        StringBuilder csv = new StringBuilder(SecondSample.CSV_HEADER).append('\n');
        for (int s = 1; s <= 20; s++) {
            csv.append(
                            new SecondSample(
                                            s,
                                            s <= 15 ? "measure" : "drain",
                                            500,
                                            1800,
                                            1790,
                                            s <= 15 ? 2000 : 0,
                                            p99 / 2,
                                            p99,
                                            p99 + 10,
                                            1_000_000,
                                            100,
                                            200)
                                    .csv())
                    .append('\n');
        }
        Files.writeString(dir.resolve("samples.csv"), csv.toString());
    }
}
