package dev.cdclab.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Java examples of the README and the extension's page are the example project's test classes,
 * so both stay true.
 */
class ReadmeExamplesTest {
    private static final Path ROOT = Path.of("..");

    @Test
    void readmeShowsTheExampleProjectsClassesWordForWord() throws Exception {
        List<String> readme = javaBlocks(Files.readString(ROOT.resolve("README.md")));
        List<String> blocks = javaBlocks(Files.readString(ROOT.resolve("docs/junit.md")));
        assertThat(readme).as("README.md shows a class of the example project").isNotEmpty();
        assertThat(blocks)
                .as("every Java block of README.md is on docs/junit.md")
                .containsAll(readme);
        for (String name : List.of("OrdersEmbeddedTest", "OrdersContainerTest")) {
            String file =
                    Files.readString(
                            ROOT.resolve(
                                    "examples/junit-extension/src/test/java/com/example/orders/"
                                            + name
                                            + ".java"));
            String body =
                    file.substring(
                            file.indexOf(
                                    name.equals("OrdersContainerTest")
                                            ? "@Testcontainers"
                                            : "class "));
            assertThat(blocks).as(name + " in docs/junit.md").contains(body.strip());
        }
    }

    private static List<String> javaBlocks(String markdown) {
        List<String> out = new ArrayList<>();
        int at = 0;
        while ((at = markdown.indexOf("```java\n", at)) >= 0) {
            int end = markdown.indexOf("\n```", at + 8);
            out.add(markdown.substring(at + 8, end).strip());
            at = end;
        }
        return out;
    }
}
