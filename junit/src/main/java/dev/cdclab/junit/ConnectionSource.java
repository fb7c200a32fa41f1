package dev.cdclab.junit;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/** A {@link DataSource} over a connection factory of the running pipeline. */
final class ConnectionSource implements DataSource {
    /** Opens a connection. */
    @FunctionalInterface
    interface Opener {
        Connection open() throws SQLException;
    }

    private final Opener opener;
    private final String url;
    private PrintWriter logWriter;
    private int loginTimeout;

    ConnectionSource(Opener opener, String url) {
        this.opener = opener;
        this.url = url;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return opener.open();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException(
                "connections to " + url + " use the pipeline's own credentials");
    }

    @Override
    public PrintWriter getLogWriter() {
        return logWriter;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        this.logWriter = out;
    }

    @Override
    public void setLoginTimeout(int seconds) {
        this.loginTimeout = seconds;
    }

    @Override
    public int getLoginTimeout() {
        return loginTimeout;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("no java.util.logging here");
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        throw new SQLException("not a wrapper of " + iface.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }

    @Override
    public String toString() {
        return "DataSource[" + url + "]";
    }
}
