package dev.cdclab.pipeline.infra;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * How the pipeline, and a Connect worker on this machine, reach the source database.
 *
 * @param jdbcUrl JDBC URL of the source database
 * @param host host name or address
 * @param port TCP port
 * @param database database name
 * @param user user capture and the load generator connect as
 * @param password that user's password (never printed by {@link #toString()})
 */
public record SourceEndpoint(
        String jdbcUrl, String host, int port, String database, String user, String password) {

    /**
     * Reads host, port and database from a PostgreSQL JDBC URL.
     *
     * @throws IllegalArgumentException when the URL is not a {@code jdbc:postgresql:} URL with a
     *     host and a database
     */
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
        return new SourceEndpoint(jdbcUrl, host, Integer.parseInt(port), db, user, password);
    }

    /** A new connection as {@link #user()}. */
    public Connection connect() throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", user);
        if (password != null) {
            p.setProperty("password", password);
        }
        p.setProperty("connectTimeout", "10");
        return DriverManager.getConnection(jdbcUrl, p);
    }

    @Override
    public String toString() {
        return "SourceEndpoint[" + jdbcUrl + " as " + user + "]";
    }
}
