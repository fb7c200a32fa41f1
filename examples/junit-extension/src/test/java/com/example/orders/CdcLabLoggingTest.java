package com.example.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdclab.junit.CdcLabExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** cdc-lab logs through this project's own SLF4J binding and configuration, and adds neither. */
class CdcLabLoggingTest {
    @RegisterExtension static CdcLabExtension lab = CdcLabExtension.embedded();

    @Test
    void cdcLabLinesGoWhereThisProjectSendsThem() throws Exception {
        lab.awaitCaughtUp(Duration.ofSeconds(30));

        ClassLoader cl = getClass().getClassLoader();
        assertThat(cl.getResources("logback.xml").hasMoreElements())
                .as("a logging configuration from a dependency")
                .isFalse();
        assertThat(cl.getResource("logback-test.xml")).hasProtocol("file");
        for (String c :
                List.of(
                        "picocli.CommandLine",
                        "org.jfree.chart.JFreeChart",
                        "com.fasterxml.jackson.dataformat.yaml.YAMLFactory",
                        "org.yaml.snakeyaml.Yaml")) {
            assertThatThrownBy(() -> Class.forName(c)).as(c).isInstanceOf(ClassNotFoundException.class);
        }
        assertThat(Files.readString(Path.of("target/orders-tests.log")))
                .as("cdc-lab's lines in this project's log")
                .contains(" dev.cdclab.");
    }
}
