package dev.cdclab.plugins;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.HexFormat;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import java.util.zip.CRC32;

/**
 * The Kafka Connect plugins this module carries, each as a {@code plugin.path} entry of its own so
 * a worker loads only the ones it needs. Each plugin runs in its own class loader, so its Debezium
 * version never meets the PostgreSQL connector's on one flat class path.
 */
public final class ConnectPlugins {
    private static final String ROOT = "cdc-lab-plugins";

    /** A plugin, by the {@code plugin.path} entry that holds its directory. */
    public enum Plugin {
        /** Debezium's SQL Server source connector (3.6.1). */
        SQLSERVER("sqlserver", "debezium-connector-sqlserver"),
        /** Debezium's JDBC sink connector (3.5.0), the standard pipeline's warehouse writer. */
        JDBC_SINK("jdbc-sink", "debezium-connector-jdbc");

        private final String entry;
        private final String directory;

        Plugin(String entry, String directory) {
            this.entry = entry;
            this.directory = directory;
        }

        /** The plugin directory's name (the jars' directory). */
        public String directoryName() {
            return directory;
        }
    }

    /** The SQL Server connector's plugin directory name. */
    public static final String SQLSERVER = Plugin.SQLSERVER.directoryName();

    private static Path cached;

    private ConnectPlugins() {}

    /**
     * The {@code plugin.path} entry for one plugin: a directory holding the plugin's directory.
     *
     * @throws UncheckedIOException when it cannot be found or copied
     */
    public static Path pathEntry(Plugin plugin) {
        return directory().resolve(plugin.entry);
    }

    /** The directory of a plugin's jars. */
    public static Path pluginDirectory(Plugin plugin) {
        return pathEntry(plugin).resolve(plugin.directory);
    }

    /**
     * The directory holding every plugin's {@code plugin.path} entry. Inside a jar the plugins are
     * copied out once, to {@code ~/.cache/cdc-lab/plugins/<digest>} (or the temporary directory).
     *
     * @throws UncheckedIOException when they cannot be found or copied
     */
    public static synchronized Path directory() {
        if (cached != null) {
            return cached;
        }
        URL url = ConnectPlugins.class.getClassLoader().getResource(ROOT);
        if (url == null) {
            throw new UncheckedIOException(
                    new IOException("no " + ROOT + " on the class path (cdc-lab-connect-plugins)"));
        }
        try {
            cached =
                    switch (url.getProtocol()) {
                        case "file" -> Path.of(url.toURI());
                        case "jar" -> extract((JarURLConnection) url.openConnection());
                        default -> throw new IOException("cannot read plugins from " + url);
                    };
        } catch (IOException e) {
            throw new UncheckedIOException("cannot provide Connect plugins: " + e.getMessage(), e);
        } catch (URISyntaxException e) {
            throw new UncheckedIOException(new IOException(e));
        }
        return cached;
    }

    /** The plugins this module carries, by directory name. */
    public static List<String> names() {
        List<String> names = new java.util.ArrayList<>();
        for (Plugin p : Plugin.values()) {
            if (Files.isDirectory(pluginDirectory(p))) {
                names.add(p.directoryName());
            }
        }
        return names;
    }

    private static Path extract(JarURLConnection conn) throws IOException {
        conn.setUseCaches(false);
        try (JarFile jar = conn.getJarFile()) {
            String digest = digest(jar);
            Path base = cacheBase();
            Path target = base.resolve(digest);
            if (Files.isDirectory(target)) {
                return target;
            }
            Files.createDirectories(base);
            Path tmp = Files.createTempDirectory(base, digest + ".tmp");
            Enumeration<JarEntry> entries = jar.entries();
            while (entries.hasMoreElements()) {
                JarEntry e = entries.nextElement();
                if (!e.getName().startsWith(ROOT + "/") || e.isDirectory()) {
                    continue;
                }
                Path out = tmp.resolve(e.getName().substring(ROOT.length() + 1)).normalize();
                if (!out.startsWith(tmp)) {
                    throw new IOException("entry outside the plugin directory: " + e.getName());
                }
                Files.createDirectories(out.getParent());
                try (InputStream in = jar.getInputStream(e)) {
                    Files.copy(in, out);
                }
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException e) {
                // another process got there first
                deleteRecursively(tmp);
            } catch (IOException e) {
                if (!Files.isDirectory(target)) {
                    throw e;
                }
                deleteRecursively(tmp);
            }
            return target;
        }
    }

    /** Names, sizes and CRCs of the plugin entries: a new build gets a new directory. */
    private static String digest(JarFile jar) {
        CRC32 crc = new CRC32();
        long count = 0;
        Enumeration<JarEntry> entries = jar.entries();
        while (entries.hasMoreElements()) {
            JarEntry e = entries.nextElement();
            if (e.getName().startsWith(ROOT + "/")) {
                crc.update(e.getName().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                crc.update(
                        Long.toString(e.getSize())
                                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
                crc.update(
                        Long.toString(e.getCrc())
                                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
                count++;
            }
        }
        return HexFormat.of().toHexDigits(crc.getValue()).substring(8) + "-" + count;
    }

    private static Path cacheBase() {
        String home = System.getProperty("user.home");
        if (home != null && Files.isWritable(Path.of(home))) {
            String xdg = System.getenv("XDG_CACHE_HOME");
            Path cache = xdg != null ? Path.of(xdg) : Path.of(home, ".cache");
            return cache.resolve("cdc-lab").resolve("plugins");
        }
        return Path.of(System.getProperty("java.io.tmpdir"), "cdc-lab-plugins");
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a leftover temporary directory costs only disk
        }
    }
}
