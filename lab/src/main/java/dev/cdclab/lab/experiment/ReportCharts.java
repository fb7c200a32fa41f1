package dev.cdclab.lab.experiment;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.LineAndShapeRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.renderer.xy.XYStepAreaRenderer;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** The PNG charts of an experiment's report, drawn with JFreeChart. */
final class ReportCharts {
    static final int WIDTH = 900;
    static final int HEIGHT = 420;
    private static final Color P99 = new Color(0xC0392B);
    private static final Color P50 = new Color(0x2E86C1);
    private static final Color BACKLOG = new Color(0xB2BABB);

    static {
        System.setProperty("java.awt.headless", "true");
    }

    private ReportCharts() {}

    /**
     * Latency building up over time, as the white paper's figures 2-4: p50 and p99 of each second
     * on the left axis, the backlog on the right, a line where the load ended.
     */
    static void latencyBuildup(Path png, String title, List<SecondSample> samples)
            throws IOException {
        XYSeries p99 = new XYSeries("p99 latency (s)");
        XYSeries p50 = new XYSeries("p50 latency (s)");
        XYSeries backlog = new XYSeries("backlog (changes)");
        double loadEnd = Double.NaN;
        for (SecondSample s : samples) {
            if (!Double.isNaN(s.p99Ms())) {
                p99.add(s.second(), s.p99Ms() / 1000.0);
                p50.add(s.second(), s.p50Ms() / 1000.0);
            }
            backlog.add(s.second(), s.backlog());
            if (Double.isNaN(loadEnd) && s.phase().equals("drain")) {
                loadEnd = s.second();
            }
        }
        XYSeriesCollection latency = new XYSeriesCollection();
        latency.addSeries(p99);
        latency.addSeries(p50);
        NumberAxis time = new NumberAxis("seconds since the measured load began");
        NumberAxis latencyAxis = new NumberAxis("latency, source commit -> warehouse commit (s)");
        XYLineAndShapeRenderer lines = new XYLineAndShapeRenderer(true, false);
        lines.setSeriesPaint(0, P99);
        lines.setSeriesPaint(1, P50);
        lines.setSeriesStroke(0, new BasicStroke(2f));
        lines.setSeriesStroke(1, new BasicStroke(1.5f));
        XYPlot plot = new XYPlot(latency, time, latencyAxis, lines);
        NumberAxis backlogAxis = new NumberAxis("backlog (changes not yet in the warehouse)");
        plot.setRangeAxis(1, backlogAxis);
        plot.setDataset(1, new XYSeriesCollection(backlog));
        plot.mapDatasetToRangeAxis(1, 1);
        XYStepAreaRenderer area = new XYStepAreaRenderer();
        area.setSeriesPaint(
                0, new Color(BACKLOG.getRed(), BACKLOG.getGreen(), BACKLOG.getBlue(), 120));
        plot.setRenderer(1, area);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        if (!Double.isNaN(loadEnd)) {
            ValueMarker m = new ValueMarker(loadEnd);
            m.setPaint(Color.DARK_GRAY);
            m.setStroke(
                    new BasicStroke(
                            1f,
                            BasicStroke.CAP_BUTT,
                            BasicStroke.JOIN_MITER,
                            1f,
                            new float[] {4f},
                            0f));
            m.setLabel("load ends");
            plot.addDomainMarker(m);
        }
        JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(png.toFile(), chart, WIDTH, HEIGHT);
    }

    /**
     * A metric against one factor's levels: one line per combination of the other factors' levels
     * (mean over repetitions).
     *
     * @param series series name → level → value
     */
    static void againstFactor(
            Path png,
            String title,
            String factor,
            String metric,
            Map<String, Map<String, Double>> series)
            throws IOException {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        series.forEach(
                (name, byLevel) -> byLevel.forEach((level, v) -> data.addValue(v, name, level)));
        CategoryAxis x = new CategoryAxis(factor);
        NumberAxis y = new NumberAxis(metric);
        LineAndShapeRenderer r = new LineAndShapeRenderer(true, true);
        for (int i = 0; i < series.size(); i++) {
            r.setSeriesStroke(i, new BasicStroke(2f));
        }
        CategoryPlot plot = new CategoryPlot(data, x, y, r);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        JFreeChart chart =
                new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, series.size() > 1);
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(png.toFile(), chart, WIDTH, HEIGHT);
    }

    /**
     * The workload's transactions per second in each cell: what capture and the settings cost the
     * application.
     */
    static void workloadOverhead(Path png, String title, LinkedHashMap<String, Double> txPerCell)
            throws IOException {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        txPerCell.forEach((cell, v) -> data.addValue(v, "workload tx/s", cell));
        CategoryAxis x = new CategoryAxis("cell");
        x.setCategoryLabelPositions(CategoryLabelPositions.UP_45);
        x.setMaximumCategoryLabelLines(2);
        NumberAxis y = new NumberAxis("workload transactions per second");
        BarRenderer r = new BarRenderer();
        r.setSeriesPaint(0, P50);
        r.setShadowVisible(false);
        r.setBarPainter(new org.jfree.chart.renderer.category.StandardBarPainter());
        CategoryPlot plot = new CategoryPlot(data, x, y, r);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, false);
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(png.toFile(), chart, WIDTH, HEIGHT + 80);
    }
}
