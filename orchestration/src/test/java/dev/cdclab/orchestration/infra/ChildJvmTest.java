package dev.cdclab.orchestration.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Child JVMs share a class-data archive: one that ends normally writes it, one that is killed
 * leaves none, and a class path with a directory of classes (which HotSpot cannot archive) gets
 * none.
 */
@Timeout(120)
class ChildJvmTest {

    /** The child: exits at once, or sleeps until killed. */
    public static final class Child {
        public static void main(String[] args) throws Exception {
            if (args.length > 0 && args[0].equals("sleep")) {
                Thread.sleep(120_000);
            }
        }
    }

    @Test
    void aChildThatEndsNormallyLeavesAnArchiveAndAKilledOneNone(@TempDir Path work)
            throws IOException {
        String jar = childJar(work).toString();
        String run = "archive-test-" + System.nanoTime() + "-child";
        ChildJvm exits = child(run, List.of(), work, jar);
        Path archive = exits.classDataArchive();
        assertThat(archive).isNotNull().doesNotExist();
        exits.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.isRegularFile(archive));
        assertThat(archive.toFile().length()).isPositive();
        // the second instance of the role maps it, and runs as before
        ChildJvm again = child(run + "-2", List.of(), work, jar);
        assertThat(again.classDataArchive()).isEqualTo(archive);
        again.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> !again.alive());
        assertThat(again.exitCode()).isZero();

        ChildJvm killed = child(run + "-killed", List.of("sleep"), work, jar);
        Path none = killed.classDataArchive();
        assertThat(none).isNotEqualTo(archive);
        killed.start();
        killed.kill();
        assertThat(killed.exitCode()).isEqualTo(137);
        await().atMost(Duration.ofSeconds(10))
                .until(
                        () -> {
                            try (var files = Files.list(none.getParent())) {
                                return files.noneMatch(
                                        f ->
                                                f.getFileName()
                                                        .toString()
                                                        .startsWith(none.getFileName().toString()));
                            }
                        });
    }

    @Test
    void aClassPathWithADirectoryOfClassesGetsNoArchive(@TempDir Path work) {
        ChildJvm child =
                child(
                        "dir",
                        List.of("x"),
                        work,
                        System.getProperty("java.class.path") + java.io.File.pathSeparator + work);
        assertThat(child.classDataArchive()).isNull();
    }

    private static ChildJvm child(String name, List<String> args, Path work, String classPath) {
        return new ChildJvm(
                name, Child.class.getName(), args, work, Map.of(), List.of(), classPath);
    }

    /** A jar of the child class alone: class paths of jars are what HotSpot archives. */
    private static Path childJar(Path dir) throws IOException {
        Path jar = dir.resolve("child.jar");
        String entry = Child.class.getName().replace('.', '/') + ".class";
        try (OutputStream out = Files.newOutputStream(jar);
                JarOutputStream j = new JarOutputStream(out);
                InputStream in = Child.class.getClassLoader().getResourceAsStream(entry)) {
            j.putNextEntry(new JarEntry(entry));
            in.transferTo(j);
            j.closeEntry();
        }
        return jar;
    }
}
