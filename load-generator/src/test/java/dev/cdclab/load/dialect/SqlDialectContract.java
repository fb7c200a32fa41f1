package dev.cdclab.load.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * What every source dialect must do, checked without a server: quoting that survives its own quote
 * character, retrying a deadlock however the driver wraps it, multi-row inserts within the server's
 * limits, and a fill-on-insert trigger on the table and column it is given.
 */
abstract class SqlDialectContract {

    abstract SqlDialect dialect();

    /** The error the server raises for a deadlock victim. */
    abstract SQLException deadlock();

    /** An error that retrying cannot help (a syntax error). */
    abstract SQLException syntaxError();

    /** The most parameters one statement may carry. */
    abstract int maxParameters();

    /** What opens and closes a quoted identifier. */
    abstract char[] quotes();

    @Test
    void aQuotedNameKeepsItsOwnQuoteCharacter() {
        char open = quotes()[0];
        char close = quotes()[1];
        assertThat(dialect().quote("a" + close + "b"))
                .isEqualTo("" + open + "a" + close + close + "b" + close);
    }

    @Test
    void aDeadlockIsRetriedHoweverItIsWrapped() {
        assertThat(dialect().isRetryable(deadlock())).isTrue();
        SQLException wrapped = new SQLException("batch failed", "08000", 0, deadlock());
        assertThat(dialect().isRetryable(wrapped)).as("as the cause of another").isTrue();
        assertThat(dialect().isRetryable(syntaxError())).isFalse();
    }

    @Test
    void multiRowInsertsStayWithinTheServersLimits() {
        for (int columns = 1; columns <= 200; columns++) {
            int rows = dialect().maxRowsPerInsert(columns);
            assertThat(rows).as("%d columns", columns).isBetween(1, 1000);
            assertThat((long) rows * columns)
                    .as("parameters of %d rows of %d columns", rows, columns)
                    .isLessThanOrEqualTo(maxParameters());
        }
    }

    @Test
    void theFillTriggerIsOnTheTableAndColumnItIsGiven() {
        String ddl =
                String.join("\n", dialect().updateOnInsertTrigger("s.orders", "id", "note", "'x'"));
        assertThat(ddl).contains("s.orders").contains("note").contains("'x'");
    }
}
