package dev.cdclab.cli;

import dev.cdclab.change.NetChangeMode;
import dev.cdclab.config.ConfigOption;
import dev.cdclab.config.Durations;
import dev.cdclab.config.SourceKind;
import dev.cdclab.orchestration.Pipeline;
import dev.cdclab.orchestration.StageConfigs;
import dev.cdclab.orchestration.StageSettings;
import dev.cdclab.orchestration.infra.InfraConfig;
import dev.cdclab.orchestration.infra.InfraKind;
import dev.cdclab.orchestration.infra.InfraSpec;
import dev.cdclab.sink.SinkConfig;
import dev.cdclab.streams.NetChangeConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * Options of the pipeline shared by {@code run}, {@code up}, {@code bench} and {@code overhead}:
 * where its services come from, and how its stages are set.
 */
final class PipelineOptions {
    /** The warehouses a pipeline can start for itself. */
    enum Warehouse {
        duckdb,
        postgresql
    }

    @Option(
            names = "--source",
            paramLabel = "DB",
            defaultValue = "postgres",
            converter = SourceKindConverter.class,
            description =
                    "Source database: postgres (default) or sqlserver (with --infra containers or"
                            + " --infra external: SQL Server cannot run embedded).")
    SourceKind source;

    @Option(
            names = "--infra",
            paramLabel = "KIND",
            description =
                    "embedded (default): every service in this JVM; containers: the source (and"
                            + " Kafka with --kafka-container) in Docker containers started by"
                            + " Testcontainers; external: services you give (--source-jdbc-url,"
                            + " --bootstrap-servers, --connect-url).")
    String infra;

    @Option(
            names = "--postgres-image",
            paramLabel = "IMAGE",
            description =
                    "containers: source PostgreSQL image (default: $CDCLAB_POSTGRES_IMAGE, else"
                            + " postgres:17); a local image stands in for the official one.")
    String postgresImage;

    @Option(
            names = "--sqlserver-image",
            paramLabel = "IMAGE",
            description =
                    "containers: source SQL Server image (default: $CDCLAB_SQLSERVER_IMAGE, else"
                            + " mcr.microsoft.com/mssql/server:2022-latest).")
    String sqlserverImage;

    @Option(
            names = "--accept-sqlserver-eula",
            description =
                    "containers: you accept the SQL Server image's licence"
                            + " (https://go.microsoft.com/fwlink/?linkid=857698); it will not run"
                            + " otherwise.")
    Boolean acceptSqlServerEula;

    @Option(
            names = "--kafka-container",
            description = "containers: run Kafka in a container too (default: embedded broker).")
    Boolean kafkaContainer;

    @Option(
            names = "--kafka-brokers",
            paramLabel = "N",
            description =
                    "Kafka nodes (default 1), embedded or with --infra containers (containers with"
                            + " --kafka-container); 3 gives a replicated cluster (replication"
                            + " factor 3, min.insync.replicas 2).")
    Integer kafkaBrokers;

    @Option(
            names = "--kafka-image",
            paramLabel = "IMAGE",
            description =
                    "containers: Kafka image (default: $CDCLAB_KAFKA_IMAGE, else apache/kafka:4.3.1).")
    String kafkaImage;

    @Option(
            names = "--source-jdbc-url",
            paramLabel = "URL",
            description =
                    "external: source JDBC URL (jdbc:postgresql://host:port/db); password from"
                            + " CDCLAB_SOURCE_PASSWORD or --source-password-file.")
    String sourceJdbcUrl;

    @Option(names = "--source-user", paramLabel = "USER", description = "external: source user.")
    String sourceUser;

    @Option(
            names = "--source-password-file",
            paramLabel = "FILE",
            description = "external: file holding the source password.")
    Path sourcePasswordFile;

    @Option(
            names = "--bootstrap-servers",
            paramLabel = "HOSTS",
            description = "external: Kafka bootstrap servers.")
    String bootstrapServers;

    @Option(
            names = "--connect-url",
            paramLabel = "URL",
            description =
                    "external: Kafka Connect REST URL, or in-process (default) to start a worker"
                            + " here.")
    String connectUrl;

    @Option(
            names = "--warehouse-url",
            paramLabel = "URL",
            description =
                    "Warehouse JDBC URL (jdbc:duckdb:FILE or jdbc:postgresql://...; password from"
                            + " CDCLAB_WAREHOUSE_PASSWORD); default a DuckDB file in the work"
                            + " directory.")
    String warehouseUrl;

    @Option(
            names = "--warehouse",
            paramLabel = "KIND",
            defaultValue = "duckdb",
            description =
                    "Warehouse the pipeline starts in the work directory: duckdb (default), a"
                            + " DuckDB file; postgresql, a PostgreSQL server of its own, durable"
                            + " as the source and stopped with the pipeline. --warehouse-url names"
                            + " one that runs elsewhere instead.")
    Warehouse warehouse;

    @Option(
            names = "--work-dir",
            paramLabel = "DIR",
            description =
                    "Directory for data, logs and the warehouse (default: cdc-lab-runs/<time>-<id>).")
    Path workDir;

    @Option(
            names = "--interval",
            paramLabel = "DURATION",
            defaultValue = "0",
            converter = Commands.DurationConverter.class,
            description =
                    "0 (default): a net-change window per source transaction, closed at the next"
                            + " one, the sink folding every window waiting into one warehouse"
                            + " transaction; a duration: fixed windows of source commit time"
                            + " (default: ${DEFAULT-VALUE}).")
    Duration interval;

    @Option(
            names = "--grace",
            paramLabel = "DURATION",
            defaultValue = "100ms",
            converter = Commands.DurationConverter.class,
            description =
                    "Fixed intervals: how far past an interval's end the source must be before it"
                            + " closes (default: ${DEFAULT-VALUE}).")
    Duration grace;

    @Option(
            names = "--net-changes",
            paramLabel = "MODE",
            defaultValue = "all",
            converter = ModeConverter.class,
            description =
                    "all | all-with-merge | off (apply every raw change) (default: ${DEFAULT-VALUE}).")
    NetChangeMode mode;

    @Option(
            names = "--partitions",
            defaultValue = "1",
            description =
                    "Partitions of the change, watermark and net-change topics (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(
            names = "--processing-guarantee",
            paramLabel = "G",
            defaultValue = "at_least_once",
            description =
                    "Kafka Streams guarantee: at_least_once | exactly_once_v2 (default: ${DEFAULT-VALUE}).")
    NetChangeConfig.Guarantee guarantee;

    @Option(
            names = "--durable",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description =
                    "Source with fsync=on and synchronous_commit=on (default). --no-durable turns both off.")
    boolean durable;

    @Option(
            names = "--min-free-disk",
            paramLabel = "SIZE",
            defaultValue = "2G",
            converter = SizeConverter.class,
            description =
                    "Stop with an error when the work directory's disk has less free space (default: ${DEFAULT-VALUE}).")
    long minFreeDisk;

    @Option(
            names = {"-D", "--set"},
            paramLabel = "KEY=VALUE",
            description =
                    "Any setting: streams.<key>, sink.<key>, capture.<key> or infra.<key> (see 'cdc-lab config').")
    Map<String, String> overrides = new LinkedHashMap<>();

    private InfraConfig infraConfig;

    /** The infrastructure settings: -D infra.* keys, then the flags over them. */
    InfraConfig infraConfig() {
        if (infraConfig == null) {
            infraConfig = new InfraConfig(InfraConfig.builder().setAll(infraSettings()).build());
        }
        return infraConfig;
    }

    /** The infrastructure settings as keys: -D infra.* first, the flags over them. */
    private Map<String, String> infraSettings() {
        Map<String, String> m = new LinkedHashMap<>(StageSettings.of(overrides).infra());
        putIf(m, InfraConfig.KIND, infra);
        putIf(m, InfraConfig.POSTGRES_IMAGE, postgresImage);
        putIf(m, InfraConfig.SQLSERVER_IMAGE, sqlserverImage);
        putIf(m, InfraConfig.ACCEPT_SQLSERVER_EULA, acceptSqlServerEula);
        putIf(m, InfraConfig.KAFKA_CONTAINER, kafkaContainer);
        putIf(m, InfraConfig.KAFKA_IMAGE, kafkaImage);
        putIf(m, InfraConfig.KAFKA_BROKERS, kafkaBrokers);
        putIf(m, InfraConfig.SOURCE_JDBC_URL, sourceJdbcUrl);
        putIf(m, InfraConfig.SOURCE_USER, sourceUser);
        putIf(m, InfraConfig.SOURCE_PASSWORD_FILE, sourcePasswordFile);
        putIf(m, InfraConfig.BOOTSTRAP_SERVERS, bootstrapServers);
        putIf(m, InfraConfig.CONNECT_URL, connectUrl);
        return m;
    }

    private static void putIf(Map<String, String> m, ConfigOption<?> option, Object v) {
        if (v != null) {
            m.put(option.key(), v.toString());
        }
    }

    /**
     * These options as an experiment's settings ({@code source.}, {@code streams.}, {@code sink.},
     * {@code infra.} keys and every -D override), so a command can run its cells through the
     * experiment engine with what the user chose.
     */
    Map<String, String> asExperimentSettings() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("source.kind", source.label());
        m.put("source.durable", String.valueOf(durable));
        m.put("streams.interval", Durations.format(interval));
        m.put("streams.grace", Durations.format(grace));
        m.put("streams.mode", mode.name().toLowerCase(Locale.ROOT));
        m.put("streams.partitions", String.valueOf(partitions));
        m.put("streams.processing.guarantee", guarantee.name().toLowerCase(Locale.ROOT));
        if (warehouseUrl != null) {
            m.put("sink." + SinkConfig.WAREHOUSE_URL.key(), warehouseUrl);
        }
        if (startsPostgresWarehouse()) {
            m.put("warehouse", Warehouse.postgresql.name());
        }
        infraSettings().forEach((k, v) -> m.put("infra." + k, v));
        overrides.forEach(
                (k, v) -> {
                    if (!k.startsWith("infra.")) {
                        m.put(k, v);
                    }
                });
        return m;
    }

    /**
     * Whether the pipeline starts a PostgreSQL warehouse of its own.
     *
     * @throws IllegalArgumentException when {@code --warehouse-url} names another one too
     */
    boolean startsPostgresWarehouse() {
        if (warehouse == Warehouse.postgresql && warehouseUrl != null) {
            throw new IllegalArgumentException(
                    "--warehouse postgresql starts a warehouse of its own; leave out"
                            + " --warehouse-url, or --warehouse");
        }
        return warehouse == Warehouse.postgresql;
    }

    /** Where the services come from. */
    InfraSpec infraSpec() {
        return infraConfig().spec(source);
    }

    InfraKind infraKind() {
        return infraConfig().kind();
    }

    Pipeline.Builder apply(Pipeline.Builder b) {
        if (partitions < 1) {
            throw new IllegalArgumentException("--partitions must be >= 1");
        }
        if (interval.isNegative()) {
            throw new IllegalArgumentException("--interval must be >= 0");
        }
        if (grace.isNegative()) {
            throw new IllegalArgumentException("--grace must be >= 0");
        }
        b.infrastructure(infraSpec())
                .warehouseUrl(warehouseUrl)
                .postgresWarehouse(startsPostgresWarehouse())
                .interval(interval)
                .grace(grace)
                .mode(mode)
                .partitions(partitions)
                .guarantee(guarantee)
                .durable(durable)
                .minFreeDisk(minFreeDisk);
        return StageSettings.of(overrides).applyTo(b);
    }

    /** The pipeline settings a report states: what these options set, and every -D override. */
    Map<String, Object> settings() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("source", source.label());
        // a zero interval is a window per source transaction, where grace plays no part
        m.put("interval", interval.isZero() ? "transaction" : Durations.format(interval));
        if (!interval.isZero()) {
            m.put("grace", Durations.format(grace));
        }
        m.put("net_changes", mode.name().toLowerCase(Locale.ROOT));
        m.put("partitions", partitions);
        m.put("processing_guarantee", guarantee.name().toLowerCase(Locale.ROOT));
        m.put("durable_source", durable);
        m.put(
                "warehouse",
                startsPostgresWarehouse()
                                || warehouseUrl != null && !warehouseUrl.startsWith("jdbc:duckdb:")
                        ? "postgresql"
                        : "duckdb");
        // what capture and the net-change app write to Kafka with, unless a -D says otherwise
        if (overrides.keySet().stream().noneMatch(k -> k.endsWith("compression.type"))) {
            m.put("kafka_compression", StageConfigs.KAFKA_COMPRESSION);
        }
        overrides.forEach((k, v) -> m.put(k, k.contains("password") ? "********" : v));
        return m;
    }

    /** The settings as one {@code key=value ...} line. */
    static String line(Map<String, ?> settings) {
        StringBuilder b = new StringBuilder();
        settings.forEach(
                (k, v) -> b.append(b.length() == 0 ? "" : " ").append(k).append('=').append(v));
        return b.toString();
    }

    /** {@code 500M}, {@code 2G}, {@code 1T} or plain bytes. */
    static final class SizeConverter implements CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            java.util.regex.Matcher m =
                    java.util.regex.Pattern.compile("(\\d+)\\s*([kKmMgGtT]?)[bB]?")
                            .matcher(value.trim());
            if (!m.matches()) {
                throw new CommandLine.TypeConversionException(
                        "'" + value + "' is not a size (use e.g. 500M, 2G)");
            }
            long n = Long.parseLong(m.group(1));
            int shift =
                    switch (m.group(2).toUpperCase(Locale.ROOT)) {
                        case "K" -> 10;
                        case "M" -> 20;
                        case "G" -> 30;
                        case "T" -> 40;
                        default -> 0;
                    };
            return n << shift;
        }
    }

    /** {@code postgres} or {@code sqlserver}. */
    static final class SourceKindConverter implements CommandLine.ITypeConverter<SourceKind> {
        @Override
        public SourceKind convert(String value) {
            try {
                return SourceKind.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** {@code all-with-merge} and {@code all_with_merge} both work. */
    static final class ModeConverter implements CommandLine.ITypeConverter<NetChangeMode> {
        @Override
        public NetChangeMode convert(String value) {
            try {
                return NetChangeMode.valueOf(
                        value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(
                        "'" + value + "' is not one of all, all-with-merge, off");
            }
        }
    }
}
