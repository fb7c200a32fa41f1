package dev.cdclab.orchestration.infra;

import dev.cdclab.config.SourceKind;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The container images {@code --infra containers} runs. Each defaults to the official image and can
 * be replaced by a compatible local one (a flag, a config key or an environment variable).
 *
 * @param postgres image of the source PostgreSQL, run with {@code -c wal_level=logical}
 * @param sqlserver image of the source SQL Server, run with its Agent enabled
 * @param kafka image of the Kafka broker, when Kafka runs in a container
 */
public record ContainerImages(String postgres, String sqlserver, String kafka) {
    /** The official PostgreSQL image. */
    public static final String DEFAULT_POSTGRES = "postgres:17";

    /** Microsoft's SQL Server image. */
    public static final String DEFAULT_SQLSERVER = "mcr.microsoft.com/mssql/server:2022-latest";

    /** The official Apache Kafka image, at the version of the Kafka clients the pipeline uses. */
    public static final String DEFAULT_KAFKA = "apache/kafka:4.3.1";

    /** Environment variable that replaces {@link #DEFAULT_POSTGRES}. */
    public static final String POSTGRES_ENV = "CDCLAB_POSTGRES_IMAGE";

    /** Environment variable that replaces {@link #DEFAULT_SQLSERVER}. */
    public static final String SQLSERVER_ENV = "CDCLAB_SQLSERVER_IMAGE";

    /** Environment variable that replaces {@link #DEFAULT_KAFKA}. */
    public static final String KAFKA_ENV = "CDCLAB_KAFKA_IMAGE";

    /** The images named by the environment, else the official ones. */
    public static ContainerImages fromEnvironment() {
        return new ContainerImages(
                env(POSTGRES_ENV, DEFAULT_POSTGRES),
                env(SQLSERVER_ENV, DEFAULT_SQLSERVER),
                env(KAFKA_ENV, DEFAULT_KAFKA));
    }

    /** A copy with another PostgreSQL image; null keeps this one. */
    public ContainerImages withPostgres(String image) {
        return image == null || image.isBlank()
                ? this
                : new ContainerImages(image.trim(), sqlserver, kafka);
    }

    /** A copy with another SQL Server image; null keeps this one. */
    public ContainerImages withSqlServer(String image) {
        return image == null || image.isBlank()
                ? this
                : new ContainerImages(postgres, image.trim(), kafka);
    }

    /** A copy with another Kafka image; null keeps this one. */
    public ContainerImages withKafka(String image) {
        return image == null || image.isBlank()
                ? this
                : new ContainerImages(postgres, sqlserver, image.trim());
    }

    /** The source image for a kind of source. */
    public String source(SourceKind kind) {
        return kind == SourceKind.SQLSERVER ? sqlserver : postgres;
    }

    /** The images as reports list them, by role. */
    public Map<String, String> byRole(SourceKind source, boolean kafkaInContainer) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("source", source(source));
        if (kafkaInContainer) {
            m.put("kafka", kafka);
        }
        return m;
    }

    private static String env(String name, String dflt) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? dflt : v.trim();
    }
}
