package dev.cdclab.orchestration.infra;

import dev.cdclab.config.SourceKind;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Properties;

/**
 * How the pipeline, and a Connect worker on this machine, reach the source database.
 *
 * @param kind which database it is
 * @param jdbcUrl JDBC URL of the source database
 * @param host host name or address
 * @param port TCP port
 * @param database database name
 * @param user user capture and the load generator connect as
 * @param password that user's password (never printed by {@link #toString()})
 */
public record SourceEndpoint(
        SourceKind kind,
        String jdbcUrl,
        String host,
        int port,
        String database,
        String user,
        String password) {

    /**
     * Reads the source kind, host, port and database from a JDBC URL: {@code
     * jdbc:postgresql://host:port/db} or {@code jdbc:sqlserver://host:port;databaseName=db}.
     *
     * @throws IllegalArgumentException when the URL is neither, or names no host or database
     */
    public static SourceEndpoint of(String jdbcUrl, String user, String password) {
        if (jdbcUrl.startsWith("jdbc:postgresql:")) {
            return ofPostgresUrl(jdbcUrl, user, password);
        }
        if (jdbcUrl.startsWith("jdbc:sqlserver:")) {
            return ofSqlServerUrl(jdbcUrl, user, password);
        }
        throw new IllegalArgumentException(
                "'"
                        + jdbcUrl
                        + "' is neither a PostgreSQL (jdbc:postgresql://host:port/db) nor a SQL"
                        + " Server (jdbc:sqlserver://host:port;databaseName=db) JDBC URL");
    }

    /** Reads host, port and database from a PostgreSQL JDBC URL. */
    public static SourceEndpoint ofPostgresUrl(String jdbcUrl, String user, String password) {
        Properties p = org.postgresql.Driver.parseURL(jdbcUrl, new Properties());
        if (p == null) {
            throw new IllegalArgumentException(
                    "'"
                            + jdbcUrl
                            + "' is not a PostgreSQL JDBC URL (jdbc:postgresql://host:port/db)");
        }
        String host = p.getProperty("PGHOST", "localhost").split(",")[0];
        String port = p.getProperty("PGPORT", "5432").split(",")[0];
        String db = p.getProperty("PGDBNAME");
        if (db == null || db.isBlank()) {
            throw new IllegalArgumentException("JDBC URL '" + jdbcUrl + "' names no database");
        }
        return new SourceEndpoint(
                SourceKind.POSTGRES, jdbcUrl, host, Integer.parseInt(port), db, user, password);
    }

    /** Reads host, port and database from a SQL Server JDBC URL. */
    public static SourceEndpoint ofSqlServerUrl(String jdbcUrl, String user, String password) {
        String rest = jdbcUrl.substring("jdbc:sqlserver://".length());
        String[] parts = rest.split(";");
        String hostPort = parts[0];
        String host = hostPort;
        int port = 1433;
        int colon = hostPort.lastIndexOf(':');
        if (colon > 0) {
            host = hostPort.substring(0, colon);
            port = Integer.parseInt(hostPort.substring(colon + 1));
        }
        int backslash = host.indexOf('\\');
        if (backslash >= 0) {
            host = host.substring(0, backslash);
        }
        String db = null;
        for (int i = 1; i < parts.length; i++) {
            String[] kv = parts[i].split("=", 2);
            String k = kv[0].trim().toLowerCase(Locale.ROOT);
            if (kv.length == 2 && (k.equals("databasename") || k.equals("database"))) {
                db = kv[1].trim();
            }
        }
        if (host.isBlank()) {
            throw new IllegalArgumentException("JDBC URL '" + jdbcUrl + "' names no host");
        }
        if (db == null || db.isBlank()) {
            throw new IllegalArgumentException(
                    "JDBC URL '" + jdbcUrl + "' names no database (;databaseName=...)");
        }
        return new SourceEndpoint(SourceKind.SQLSERVER, jdbcUrl, host, port, db, user, password);
    }

    /** A new connection as {@link #user()}. */
    public Connection connect() throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", user);
        if (password != null) {
            p.setProperty("password", password);
        }
        p.setProperty(kind == SourceKind.SQLSERVER ? "loginTimeout" : "connectTimeout", "10");
        return DriverManager.getConnection(jdbcUrl, p);
    }

    @Override
    public String toString() {
        return "SourceEndpoint[" + jdbcUrl + " as " + user + "]";
    }
}
