package dev.cdclab.config;

import static dev.cdclab.config.ConfigOption.durationOption;
import static dev.cdclab.config.ConfigOption.intOption;
import static dev.cdclab.config.ConfigOption.stringOption;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Typed options: defaults, validation naming the key, unknown keys, secrets, pass-through. */
class ConfigurationTest {
    static final ConfigOption<Integer> PARTITIONS =
            intOption("partitions")
                    .defaultValue(1)
                    .check(n -> n >= 1, "must be >= 1")
                    .description("p")
                    .build();
    static final ConfigOption<Duration> INTERVAL =
            durationOption("interval").defaultValue(Duration.ofSeconds(1)).description("i").build();
    static final ConfigOption<String> URL =
            stringOption("url").required().description("where").build();
    static final ConfigOption<String> PASSWORD =
            stringOption("password").secret().description("pw").build();
    static final List<ConfigOption<?>> ALL = List.of(PARTITIONS, INTERVAL, URL, PASSWORD);

    @Test
    void toPropertiesRebuildsTheSameConfigurationWithoutItsSecrets() {
        Configuration c =
                Configuration.builder(ALL)
                        .allowPrefix("kafka.")
                        .set("url", "x")
                        .set("interval", "250ms")
                        .set("password", "s3cret")
                        .set("kafka.linger.ms", "5")
                        .build();
        Map<String, String> props = c.toProperties();
        assertThat(props)
                .containsExactly(
                        Map.entry("interval", "250ms"),
                        Map.entry("url", "x"),
                        Map.entry("kafka.linger.ms", "5"));
        Configuration again =
                Configuration.builder(ALL).allowPrefix("kafka.").setAll(props).build();
        assertThat(again.get(INTERVAL)).isEqualTo(Duration.ofMillis(250));
        assertThat(again.passthrough("kafka.")).containsEntry("linger.ms", "5");
    }

    @Test
    void defaultsApplyAndValuesParse() {
        Configuration c =
                Configuration.builder(ALL).set("url", "x").set("interval", "250ms").build();
        assertThat(c.get(PARTITIONS)).isEqualTo(1);
        assertThat(c.get(INTERVAL)).isEqualTo(Duration.ofMillis(250));
        assertThat(c.get(URL)).isEqualTo("x");
    }

    @Test
    void unknownKeyIsRejectedWithASuggestion() {
        assertThatThrownBy(() -> Configuration.builder(ALL).set("partitons", "2"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("config 'partitons': unknown key (did you mean 'partitions'?)");
    }

    @Test
    void badValueNamesTheKeyAndWhy() {
        assertThatThrownBy(
                        () ->
                                Configuration.builder(ALL)
                                        .set("url", "x")
                                        .set("partitions", "0")
                                        .build())
                .isInstanceOf(ConfigException.class)
                .hasMessage("config 'partitions': 0 must be >= 1");
        assertThatThrownBy(
                        () ->
                                Configuration.builder(ALL)
                                        .set("url", "x")
                                        .set("partitions", "two")
                                        .build())
                .hasMessageStartingWith("config 'partitions': 'two' is not a valid int");
        assertThatThrownBy(
                        () ->
                                Configuration.builder(ALL)
                                        .set("url", "x")
                                        .set("interval", "soon")
                                        .build())
                .hasMessageContaining("config 'interval'")
                .hasMessageContaining("not a duration");
    }

    @Test
    void missingRequiredKeyFails() {
        assertThatThrownBy(() -> Configuration.builder(ALL).build())
                .isInstanceOf(ConfigException.class)
                .hasMessage("config 'url': is required: where");
    }

    @Test
    void secretsAreNeverPrinted() {
        Configuration c =
                Configuration.builder(ALL).set("url", "x").set("password", "hunter2").build();
        assertThat(c.describe().get("password")).isEqualTo("******");
        assertThat(c.describe().toString()).doesNotContain("hunter2");
        assertThat(c.get(PASSWORD)).isEqualTo("hunter2");
    }

    @Test
    void passThroughKeysAreKeptApartUnderTheirPrefix() {
        Configuration c =
                Configuration.builder(ALL)
                        .allowPrefix("kafka.")
                        .setAll(Map.of("url", "x", "kafka.linger.ms", "3"))
                        .build();
        assertThat(c.passthrough("kafka.")).containsExactly(Map.entry("linger.ms", "3"));
    }

    @Test
    void propertiesFileIsReadAndItsUnknownKeysNamed(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("a.properties");
        Files.writeString(f, "url=y\npartitions=3\n");
        assertThat(Configuration.builder(ALL).load(f).build().get(PARTITIONS)).isEqualTo(3);
        Files.writeString(f, "url=y\nbogus=1\n");
        assertThatThrownBy(() -> Configuration.builder(ALL).load(f))
                .hasMessageContaining("'bogus'")
                .hasMessageContaining(f.toString());
    }

    @Test
    void durationsParseAndPrint() {
        assertThat(Durations.parse("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Durations.parse("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(Durations.parse("150")).isEqualTo(Duration.ofMillis(150));
        assertThat(Durations.parse("PT1.5S")).isEqualTo(Duration.ofMillis(1500));
        assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
        assertThat(Durations.format(Duration.ofSeconds(120))).isEqualTo("2m");
    }
}
