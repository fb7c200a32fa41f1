package dev.cdclab.embedded;

import dev.cdclab.wait.Poll;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL server started from the embedded binaries on Maven Central, configured for
 * logical decoding and, unless asked otherwise, durable: {@code fsync=on}, {@code
 * synchronous_commit=on}, {@code full_page_writes=on} (the embedded default turns the first two
 * off). Password authentication (SCRAM) is switched on once the password is set.
 */
public final class PostgresServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresServer.class);

    /** The superuser the server is initialised with. */
    public static final String USER = "postgres";

    private final EmbeddedPostgres pg;
    private final String database;
    private final String password;
    private final Map<String, String> settings;

    private PostgresServer(
            EmbeddedPostgres pg, String database, String password, Map<String, String> settings) {
        this.pg = pg;
        this.database = database;
        this.password = password;
        this.settings = settings;
    }

    public static Builder builder() {
        return new Builder();
    }

    public String host() {
        return "127.0.0.1";
    }

    public int port() {
        return pg.getPort();
    }

    public String database() {
        return database;
    }

    public String user() {
        return USER;
    }

    public String password() {
        return password;
    }

    public String jdbcUrl() {
        return jdbcUrl(database);
    }

    /** URL of another database on this server. */
    public String jdbcUrl(String db) {
        return "jdbc:postgresql://" + host() + ":" + port() + "/" + db;
    }

    /** Server settings the builder applied. */
    public Map<String, String> settings() {
        return settings;
    }

    /** A new connection to the main database, as the superuser. */
    public Connection connect() throws SQLException {
        return connect(database);
    }

    /** A new connection to a database of this server, as the superuser. */
    public Connection connect(String db) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", USER);
        p.setProperty("password", password);
        return DriverManager.getConnection(jdbcUrl(db), p);
    }

    /**
     * Restarts the server with a fast shutdown (SIGINT to the postmaster): open sessions and
     * walsenders are terminated, committed data stays; then starts it again with the same command
     * line and waits until it takes connections. For fault injection. ({@code pg_ctl} refuses to
     * run as root, which the embedded server itself accepts.)
     *
     * @throws IllegalStateException when the server does not come back
     */
    public void restartFast() {
        try {
            String dataDir;
            try (Connection c = connect();
                    Statement s = c.createStatement();
                    var rs = s.executeQuery("SHOW data_directory")) {
                rs.next();
                dataDir = rs.getString(1);
            }
            long pid =
                    Long.parseLong(
                            Files.readAllLines(Path.of(dataDir, "postmaster.pid")).get(0).trim());
            ProcessHandle postmaster =
                    ProcessHandle.of(pid)
                            .orElseThrow(() -> new IllegalStateException("no postmaster " + pid));
            java.util.List<String> command = new java.util.ArrayList<>();
            if ("root".equals(System.getProperty("user.name"))) {
                // as zonky does: PostgreSQL refuses to run as root, but runs in a user namespace
                command.addAll(java.util.List.of("unshare", "-U"));
            }
            command.add(postmaster.info().command().orElseThrow());
            command.addAll(java.util.List.of(postmaster.info().arguments().orElseThrow()));
            new ProcessBuilder("kill", "-INT", Long.toString(pid)).start().waitFor();
            postmaster.onExit().get(60, java.util.concurrent.TimeUnit.SECONDS);
            new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(
                            Redirect.appendTo(
                                    Path.of(dataDir)
                                            .resolveSibling("postgres-restart.log")
                                            .toFile()))
                    .start();
            Poll poll = Poll.within(Duration.ofSeconds(60)).every(Duration.ofMillis(100));
            while (true) {
                try (Connection c = connect()) {
                    break;
                } catch (SQLException e) {
                    if (poll.expired()) {
                        throw new IllegalStateException(
                                "PostgreSQL did not come back: " + e.getMessage(), e);
                    }
                    poll.pause();
                }
            }
            LOG.info("PostgreSQL restarted (fast) on port {}", port());
        } catch (IOException | SQLException | java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("PostgreSQL restart failed: " + e.getMessage(), e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("PostgreSQL did not stop within 60 s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while restarting PostgreSQL", e);
        }
    }

    /** Creates a database (for tests that need one of their own). */
    public void createDatabase(String name) throws SQLException {
        try (Connection c = connect("postgres");
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE \"" + name.replace("\"", "\"\"") + "\"");
        }
    }

    @Override
    public void close() {
        try {
            pg.close();
        } catch (IOException e) {
            LOG.warn("Stopping PostgreSQL: {}", e.getMessage());
        }
    }

    /** Fluent builder. */
    public static final class Builder {
        private Path dataDirectory;
        private int port;
        private boolean durable = true;
        private String database = "cdclab";
        private String password;
        private Path logFile;
        private boolean shutdownHook = true;
        private final Map<String, String> extra = new LinkedHashMap<>();

        /** Where the cluster lives; removed on close. Default: a temporary directory. */
        public Builder dataDirectory(Path dir) {
            this.dataDirectory = dir;
            return this;
        }

        /** TCP port; 0 (default) picks a free one. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /**
         * With false, runs with {@code fsync=off} and {@code synchronous_commit=off}: faster, and a
         * crash can lose committed transactions.
         */
        public Builder durable(boolean durable) {
            this.durable = durable;
            return this;
        }

        /** Name of the database created for the lab (default {@code cdclab}). */
        public Builder database(String database) {
            this.database = database;
            return this;
        }

        /** Superuser password; default a random one. */
        public Builder password(String password) {
            this.password = password;
            return this;
        }

        /** File the server's own output goes to. */
        public Builder logFile(Path file) {
            this.logFile = file;
            return this;
        }

        /**
         * Whether a JVM shutdown hook stops the server (default true); turn off when the caller
         * stops it in order itself.
         */
        public Builder shutdownHook(boolean register) {
            this.shutdownHook = register;
            return this;
        }

        /** Any other server setting, e.g. {@code max_wal_size}. */
        public Builder setting(String name, String value) {
            extra.put(name, value);
            return this;
        }

        /**
         * Starts the server.
         *
         * @throws IllegalStateException when the port is taken or the server does not start
         */
        public PostgresServer start() {
            if (port != 0) {
                requireFree(port);
            }
            String pw = password != null ? password : randomPassword();
            Map<String, String> settings = new LinkedHashMap<>();
            settings.put("wal_level", "logical");
            settings.put("fsync", durable ? "on" : "off");
            settings.put("synchronous_commit", durable ? "on" : "off");
            settings.put("full_page_writes", durable ? "on" : "off");
            settings.put("max_wal_senders", "10");
            settings.put("max_replication_slots", "10");
            settings.put("max_connections", "300");
            settings.put("listen_addresses", "127.0.0.1");
            settings.putAll(extra);
            EmbeddedPostgres.Builder b = EmbeddedPostgres.builder();
            settings.forEach(b::setServerConfig);
            b.setLocaleConfig("locale", "C");
            b.setLocaleConfig("encoding", "UTF8");
            b.setRegisterShutdownHook(shutdownHook);
            if (port != 0) {
                b.setPort(port);
            }
            try {
                if (dataDirectory != null) {
                    Files.createDirectories(dataDirectory);
                    b.setDataDirectory(dataDirectory);
                    b.setCleanDataDirectory(true);
                }
                if (logFile != null) {
                    Files.createDirectories(logFile.toAbsolutePath().getParent());
                    b.setOutputRedirector(Redirect.appendTo(logFile.toFile()));
                    b.setErrorRedirector(Redirect.appendTo(logFile.toFile()));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            EmbeddedPostgres pg;
            try {
                pg = b.start();
            } catch (IOException | RuntimeException e) {
                throw new IllegalStateException(
                        "PostgreSQL did not start: "
                                + e.getMessage()
                                + (logFile == null ? "" : " (see " + logFile + ")"),
                        e);
            }
            try {
                secure(pg, pw);
            } catch (SQLException | IOException e) {
                try {
                    pg.close();
                } catch (IOException ignored) {
                    // already failing
                }
                throw new IllegalStateException("PostgreSQL setup failed: " + e.getMessage(), e);
            }
            LOG.info("PostgreSQL listening on 127.0.0.1:{}, settings {}", pg.getPort(), settings);
            return new PostgresServer(pg, database, pw, Map.copyOf(settings));
        }

        private void secure(EmbeddedPostgres pg, String pw) throws SQLException, IOException {
            String dataDir;
            try (Connection c = pg.getPostgresDatabase().getConnection();
                    Statement s = c.createStatement()) {
                s.execute("ALTER USER " + USER + " PASSWORD '" + pw.replace("'", "''") + "'");
                s.execute("CREATE DATABASE \"" + database.replace("\"", "\"\"") + "\"");
                try (var rs = s.executeQuery("SHOW data_directory")) {
                    rs.next();
                    dataDir = rs.getString(1);
                }
                Files.writeString(
                        Path.of(dataDir, "pg_hba.conf"),
                        "# written by cdc-lab: password authentication everywhere\n"
                                + "local all all scram-sha-256\n"
                                + "host all all 127.0.0.1/32 scram-sha-256\n"
                                + "host all all ::1/128 scram-sha-256\n"
                                + "local replication all scram-sha-256\n"
                                + "host replication all 127.0.0.1/32 scram-sha-256\n"
                                + "host replication all ::1/128 scram-sha-256\n");
                s.execute("SELECT pg_reload_conf()");
            }
        }

        private static void requireFree(int port) {
            try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                s.setReuseAddress(true);
            } catch (IOException e) {
                throw new PortInUseException(port);
            }
        }

        private static String randomPassword() {
            byte[] b = new byte[18];
            new SecureRandom().nextBytes(b);
            return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
        }
    }
}
