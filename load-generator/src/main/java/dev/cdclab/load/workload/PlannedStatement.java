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
 * @param timestampStride for multi-row statements, the number of parameters per row: every
 *     parameter at {@code timestampParam + k * stride} is a timestamp; 0 for one row
 */
public record PlannedStatement(
        Op op,
        String sql,
        Object[] params,
        int timestampParam,
        int triggeredChanges,
        int timestampStride) {

    public PlannedStatement(Op op, String sql, Object[] params, int timestampParam) {
        this(op, sql, params, timestampParam, 0, 0);
    }

    /** True when parameter {@code p} (0-based) is filled with the generator timestamp. */
    public boolean isTimestamp(int p) {
        if (timestampParam < 0) {
            return false;
        }
        return timestampStride > 0 ? p % timestampStride == timestampParam : p == timestampParam;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PlannedStatement s
                && s.op == op
                && s.sql.equals(sql)
                && Arrays.deepEquals(s.params, params)
                && s.timestampParam == timestampParam
                && s.triggeredChanges == triggeredChanges
                && s.timestampStride == timestampStride;
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                op,
                sql,
                Arrays.deepHashCode(params),
                timestampParam,
                triggeredChanges,
                timestampStride);
    }

    @Override
    public String toString() {
        return op + " " + sql + " " + Arrays.deepToString(params);
    }
}
