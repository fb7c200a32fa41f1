package dev.cdclab.load.dialect;

import java.sql.SQLException;

class SqlServerDialectTest extends SqlDialectContract {
    @Override
    SqlDialect dialect() {
        return new SqlServerDialect();
    }

    @Override
    SQLException deadlock() {
        return new SQLException("was deadlocked on lock resources", "40001", 1205);
    }

    @Override
    SQLException syntaxError() {
        return new SQLException("Incorrect syntax near", "S0001", 102);
    }

    @Override
    int maxParameters() {
        return 2_100;
    }

    @Override
    char[] quotes() {
        return new char[] {'[', ']'};
    }
}
