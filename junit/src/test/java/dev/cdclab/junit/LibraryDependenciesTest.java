package dev.cdclab.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a test depending on cdc-lab-junit gets on its class path: no logging configuration and none
 * of the command line, the lab, the fault harness or their libraries (this module's tests add only
 * logback, as a user would).
 */
class LibraryDependenciesTest {

    @Test
    void noLoggingConfigurationComesWithTheLibrary() {
        ClassLoader cl = getClass().getClassLoader();
        assertThat(cl.getResource("logback.xml")).isNull();
        assertThat(cl.getResource("logback-test.xml"))
                .as("this module's own test configuration")
                .isNotNull()
                .hasProtocol("file");
    }

    @Test
    void theCommandLineTheLabAndTheirLibrariesStayOut() {
        for (String c :
                List.of(
                        "picocli.CommandLine",
                        "org.jfree.chart.JFreeChart",
                        "com.fasterxml.jackson.dataformat.yaml.YAMLFactory",
                        "org.yaml.snakeyaml.Yaml",
                        "dev.cdclab.cli.CdcLab",
                        "dev.cdclab.lab.bench.RateLadder",
                        "dev.cdclab.chaos.ChaosRunner")) {
            assertThatThrownBy(() -> Class.forName(c))
                    .as(c)
                    .isInstanceOf(ClassNotFoundException.class);
        }
    }
}
