package dev.cdclab.load.workload;

import java.util.Arrays;
import java.util.Objects;

/**
 * One statement of a planned transaction.
 *
 * @param op what it does
 * @param sql parameterised SQL text
 * @param params parameter values; the slot at {@code timestampParam} is filled at execution time
 * @param timestampParam index of the generator-timestamp parameter, or -1
 * @param triggeredChanges row changes a trigger adds per row this statement changes
 */
public record PlannedStatement(
        Op op, String sql, Object[] params, int timestampParam, int triggeredChanges) {

    public PlannedStatement(Op op, String sql, Object[] params, int timestampParam) {
        this(op, sql, params, timestampParam, 0);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PlannedStatement s
                && s.op == op
                && s.sql.equals(sql)
                && Arrays.deepEquals(s.params, params)
                && s.timestampParam == timestampParam
                && s.triggeredChanges == triggeredChanges;
    }

    @Override
    public int hashCode() {
        return Objects.hash(op, sql, Arrays.deepHashCode(params), timestampParam, triggeredChanges);
    }

    @Override
    public String toString() {
        return op + " " + sql + " " + Arrays.deepToString(params);
    }
}
