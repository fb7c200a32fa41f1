package dev.cdclab.load.dialect;

import java.sql.SQLException;

class PostgresDialectTest extends SqlDialectContract {
    @Override
    SqlDialect dialect() {
        return new PostgresDialect();
    }

    @Override
    SQLException deadlock() {
        return new SQLException("deadlock detected", "40P01");
    }

    @Override
    SQLException syntaxError() {
        return new SQLException("syntax error at or near", "42601");
    }

    @Override
    int maxParameters() {
        // the wire protocol counts bind parameters in 16 bits
        return 65_535;
    }

    @Override
    char[] quotes() {
        return new char[] {'"', '"'};
    }
}
