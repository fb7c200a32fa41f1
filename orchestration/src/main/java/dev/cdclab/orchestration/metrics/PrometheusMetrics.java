package dev.cdclab.orchestration.metrics;

import dev.cdclab.config.SourceKind;
import dev.cdclab.orchestration.Pipeline;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.List;

/**
 * One process's meters in a Prometheus registry: the JVM's, and whatever stages run here (bound by
 * {@link #bind}); {@link #scrape} gives Prometheus' text format.
 */
public final class PrometheusMetrics implements AutoCloseable {
    private final PrometheusMeterRegistry registry =
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final List<AutoCloseable> closeables = new ArrayList<>();

    public PrometheusMetrics() {
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        JvmGcMetrics gc = new JvmGcMetrics();
        gc.bindTo(registry);
        closeables.add(gc);
    }

    /**
     * The meters of a running pipeline: its Streams app and sink when they run in this process, and
     * the replication slot's lag for a PostgreSQL source.
     */
    public static PrometheusMetrics of(Pipeline pipeline) {
        PrometheusMetrics m = new PrometheusMetrics();
        if (pipeline.streams() != null) {
            pipeline.streams().bindTo(m.registry);
        }
        if (pipeline.sink() != null) {
            pipeline.sink().bindTo(m.registry);
        }
        if (pipeline.source().kind() == SourceKind.POSTGRES) {
            m.bind(new SlotLag(pipeline::sourceConnection, pipeline.names().slot()));
        }
        return m;
    }

    /** Binds {@code binder}; closes it with this registry when it is {@link AutoCloseable}. */
    public PrometheusMetrics bind(MeterBinder binder) {
        binder.bindTo(registry);
        if (binder instanceof AutoCloseable c) {
            closeables.add(c);
        }
        return this;
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** Every meter in Prometheus' text exposition format (version 0.0.4). */
    public String scrape() {
        return registry.scrape();
    }

    @Override
    public void close() {
        for (AutoCloseable c : closeables) {
            try {
                c.close();
            } catch (Exception e) {
                // a binder that cannot close holds nothing the process needs
            }
        }
        registry.close();
    }
}
