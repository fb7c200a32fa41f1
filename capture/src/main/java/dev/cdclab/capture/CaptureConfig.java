package dev.cdclab.capture;

import static dev.cdclab.config.ConfigOption.durationOption;
import static dev.cdclab.config.ConfigOption.intOption;
import static dev.cdclab.config.ConfigOption.stringOption;

import dev.cdclab.config.ConfigOption;
import dev.cdclab.config.Configuration;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Options of the capture stage: where the source is, how the Debezium connector is named and tuned.
 * Keys under {@code debezium.} are copied into the connector config as-is.
 */
public final class CaptureConfig {
    /** Prefix of keys passed unchanged into the connector configuration. */
    public static final String DEBEZIUM_PREFIX = "debezium.";

    /** Schema of the pipeline's own source tables (the heartbeat). */
    public static final String LAB_SCHEMA = "cdc_lab";

    public static final ConfigOption<String> HOST =
            stringOption("source.host")
                    .defaultValue("127.0.0.1")
                    .description("Source PostgreSQL host, as the Connect worker reaches it.")
                    .build();
    public static final ConfigOption<Integer> PORT =
            intOption("source.port")
                    .defaultValue(5432)
                    .check(p -> p > 0 && p < 65536, "must be a TCP port")
                    .description("Source PostgreSQL port.")
                    .build();
    public static final ConfigOption<String> DATABASE =
            stringOption("source.database")
                    .defaultValue("cdclab")
                    .description("Source database.")
                    .build();
    public static final ConfigOption<String> USER =
            stringOption("source.user")
                    .defaultValue("postgres")
                    .description(
                            "Source user; needs REPLICATION and, for FOR ALL TABLES publications,"
                                    + " superuser.")
                    .build();
    public static final ConfigOption<String> PASSWORD =
            stringOption("source.password")
                    .secret()
                    .description(
                            "Source password; prefer the CDCLAB_SOURCE_PASSWORD environment"
                                    + " variable.")
                    .build();
    public static final ConfigOption<String> CONNECTOR_NAME =
            stringOption("connector.name")
                    .defaultValue("cdclab-source")
                    .check(s -> s.matches("[A-Za-z0-9._-]+"), "must be [A-Za-z0-9._-]+")
                    .description("Name of the connector on the Connect cluster.")
                    .build();
    public static final ConfigOption<String> TOPIC_PREFIX =
            stringOption("topic.prefix")
                    .defaultValue("cdclab")
                    .check(s -> s.matches("[A-Za-z0-9_-]+"), "must be [A-Za-z0-9_-]+")
                    .description("Debezium topic.prefix: topics are <prefix>.<schema>.<table>.")
                    .build();
    public static final ConfigOption<String> SLOT =
            stringOption("slot.name")
                    .defaultValue("cdclab")
                    .check(
                            s -> s.matches("[a-z0-9_]{1,63}"),
                            "must be lower-case letters, digits or _ (at most 63)")
                    .description("Logical replication slot.")
                    .build();
    public static final ConfigOption<String> PUBLICATION =
            stringOption("publication.name")
                    .defaultValue("cdclab")
                    .check(
                            s -> s.matches("[a-z0-9_]{1,63}"),
                            "must be lower-case letters, digits or _")
                    .description(
                            "Publication, created FOR ALL TABLES so tables created later are"
                                    + " captured too.")
                    .build();
    public static final ConfigOption<String> SCHEMAS =
            stringOption("schemas")
                    .defaultValue("public")
                    .description("Comma-separated source schemas to capture.")
                    .build();
    public static final ConfigOption<Integer> PARTITIONS =
            intOption("partitions")
                    .defaultValue(1)
                    .check(n -> n >= 1, "must be >= 1")
                    .description("Partitions of the change topics Connect creates.")
                    .build();
    public static final ConfigOption<Integer> REPLICATION_FACTOR =
            intOption("replication.factor")
                    .defaultValue(-1)
                    .check(n -> n == -1 || n >= 1, "must be -1 (broker default) or >= 1")
                    .description("Replication factor of the change topics Connect creates.")
                    .build();
    public static final ConfigOption<Duration> HEARTBEAT =
            durationOption("heartbeat.interval")
                    .defaultValue(Duration.ofSeconds(1))
                    .check(d -> d.toMillis() >= 100, "must be >= 100ms")
                    .description(
                            "How often Debezium writes a heartbeat transaction to the source; it"
                                    + " closes net-change intervals while the source is idle.")
                    .build();
    public static final ConfigOption<String> SNAPSHOT_MODE =
            stringOption("snapshot.mode")
                    .defaultValue("initial")
                    .description("Debezium snapshot.mode (initial, no_data, ...).")
                    .build();

    /** Every option, in documentation order. */
    public static final List<ConfigOption<?>> OPTIONS =
            List.of(
                    HOST,
                    PORT,
                    DATABASE,
                    USER,
                    PASSWORD,
                    CONNECTOR_NAME,
                    TOPIC_PREFIX,
                    SLOT,
                    PUBLICATION,
                    SCHEMAS,
                    PARTITIONS,
                    REPLICATION_FACTOR,
                    HEARTBEAT,
                    SNAPSHOT_MODE);

    private final Configuration config;

    public CaptureConfig(Configuration config) {
        this.config = config;
    }

    public static CaptureConfig of(Map<String, String> raw) {
        return new CaptureConfig(builder().setAll(raw).build());
    }

    /** A builder over the capture options (accepting {@code debezium.*} pass-through keys). */
    public static Configuration.Builder builder() {
        return Configuration.builder(OPTIONS).allowPrefix(DEBEZIUM_PREFIX);
    }

    public <T> T get(ConfigOption<T> option) {
        return config.get(option);
    }

    public Configuration raw() {
        return config;
    }

    /** The password from config, else from {@code CDCLAB_SOURCE_PASSWORD}; may be null. */
    public String password() {
        String p = config.get(PASSWORD);
        return p != null ? p : System.getenv("CDCLAB_SOURCE_PASSWORD");
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://" + get(HOST) + ":" + get(PORT) + "/" + get(DATABASE);
    }

    public Map<String, String> debeziumOverrides() {
        return config.passthrough(DEBEZIUM_PREFIX);
    }
}
