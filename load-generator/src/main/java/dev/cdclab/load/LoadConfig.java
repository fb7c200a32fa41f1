package dev.cdclab.load;

import static dev.cdclab.config.ConfigOption.doubleOption;
import static dev.cdclab.config.ConfigOption.durationOption;
import static dev.cdclab.config.ConfigOption.intOption;
import static dev.cdclab.config.ConfigOption.longOption;
import static dev.cdclab.config.ConfigOption.stringOption;

import dev.cdclab.config.ConfigOption;
import dev.cdclab.config.Configuration;
import dev.cdclab.load.workload.WorkloadOptions;
import java.time.Duration;
import java.util.List;

/** Options of the load generator. */
public final class LoadConfig {
    public static final ConfigOption<String> JDBC_URL =
            stringOption("jdbc.url")
                    .required()
                    .check(s -> s.startsWith("jdbc:"), "must be a JDBC URL")
                    .description("Source database, e.g. jdbc:postgresql://localhost:5432/app.")
                    .build();
    public static final ConfigOption<String> USER =
            stringOption("user").defaultValue("postgres").description("Database user.").build();
    public static final ConfigOption<String> PASSWORD =
            stringOption("password")
                    .secret()
                    .description(
                            "Database password; prefer the CDCLAB_SOURCE_PASSWORD environment"
                                    + " variable.")
                    .build();
    public static final ConfigOption<String> WORKLOAD =
            stringOption("workload")
                    .defaultValue("mix")
                    .description("Workload name (see the README's workload table).")
                    .build();
    public static final ConfigOption<Integer> THREADS =
            intOption("threads")
                    .defaultValue(16)
                    .check(n -> n >= 1 && n <= 1000, "must be 1..1000")
                    .description("Client threads, one connection each (the white paper used 100).")
                    .build();
    public static final ConfigOption<Duration> DURATION =
            durationOption("duration")
                    .defaultValue(Duration.ofSeconds(30))
                    .check(d -> d.toMillis() > 0, "must be > 0")
                    .description("How long transactions are issued.")
                    .build();
    public static final ConfigOption<Double> RATE =
            doubleOption("rate")
                    .defaultValue(1000.0)
                    .check(r -> r >= 0, "must be >= 0")
                    .description(
                            "Target transactions per second, open loop; 0 runs closed loop as fast"
                                    + " as the threads go.")
                    .build();
    public static final ConfigOption<Long> PREFILL =
            longOption("prefill")
                    .defaultValue(-1L)
                    .check(n -> n >= -1, "must be >= 0 (or -1 for the workload's default)")
                    .description(
                            "Rows loaded before the run (per table); -1 takes the workload's"
                                    + " default (the papers' sizes).")
                    .build();
    public static final ConfigOption<Long> SEED =
            longOption("seed")
                    .defaultValue(42L)
                    .description("Random seed: the same seed issues the same statements.")
                    .build();
    public static final ConfigOption<Integer> TX_SIZE =
            intOption("tx.size")
                    .defaultValue(-1)
                    .check(n -> n == -1 || n >= 1, "must be >= 1 (or -1 for the default)")
                    .description("Rows per transaction for W6, W7 and T1; -1 takes the default.")
                    .build();
    public static final ConfigOption<Integer> FILLED_COLUMNS =
            intOption("filled.columns")
                    .defaultValue(-1)
                    .check(n -> n == -1 || n >= 1, "must be >= 1 (or -1 for the default)")
                    .description(
                            "Data columns inserts fill in W1/W2/W7; -1 takes the paper's (8 and"
                                    + " 10).")
                    .build();
    public static final ConfigOption<Integer> HOT_KEYS =
            intOption("hot.keys")
                    .defaultValue(100)
                    .check(n -> n >= 1, "must be >= 1")
                    .description("Keys the update-heavy workload (hot) updates over and over.")
                    .build();

    public static final List<ConfigOption<?>> OPTIONS =
            List.of(
                    JDBC_URL,
                    USER,
                    PASSWORD,
                    WORKLOAD,
                    THREADS,
                    DURATION,
                    RATE,
                    PREFILL,
                    SEED,
                    TX_SIZE,
                    FILLED_COLUMNS,
                    HOT_KEYS);

    private final Configuration config;

    public LoadConfig(Configuration config) {
        this.config = config;
    }

    public static Configuration.Builder builder() {
        return Configuration.builder(OPTIONS);
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

    /** Workload knobs; -1 values are resolved by each workload. */
    public WorkloadOptions workloadOptions() {
        return new WorkloadOptions(
                get(SEED), get(PREFILL), get(TX_SIZE), get(FILLED_COLUMNS), get(HOT_KEYS));
    }
}
