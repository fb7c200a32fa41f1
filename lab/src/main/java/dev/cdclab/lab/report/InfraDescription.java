package dev.cdclab.lab.report;

import dev.cdclab.orchestration.infra.Infrastructure;
import java.util.LinkedHashMap;
import java.util.Map;

/** How reports name the infrastructure a run used: {@code {kind, images}}. */
public final class InfraDescription {
    private InfraDescription() {}

    /** {@code {"kind": "containers", "images": {"source": "postgres:17"}}}. */
    public static Map<String, Object> asMap(Infrastructure infra) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", infra.kind().label());
        m.put("images", new LinkedHashMap<>(infra.images()));
        return m;
    }

    /** {@code containers (source postgres:17, kafka apache/kafka:4.3.1)}. */
    public static String line(Infrastructure infra) {
        StringBuilder b = new StringBuilder(infra.kind().label());
        if (!infra.images().isEmpty()) {
            b.append(" (");
            String sep = "";
            for (var e : infra.images().entrySet()) {
                b.append(sep).append(e.getKey()).append(' ').append(e.getValue());
                sep = ", ";
            }
            b.append(')');
        }
        return b.toString();
    }
}
