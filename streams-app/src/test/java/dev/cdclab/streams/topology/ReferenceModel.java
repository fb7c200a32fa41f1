package dev.cdclab.streams.topology;

import dev.cdclab.change.NetOperation;
import java.util.List;

/**
 * SQL Server's net-change semantics ({@code fn_cdc_get_net_changes}, row filter {@code all}) as a
 * few lines: the operation follows from whether the row existed before the interval and exists
 * after it; the image is the last one written.
 */
final class ReferenceModel {
    private ReferenceModel() {}

    /** The net operation of a sequence ({@code I}, {@code U}, {@code D}); null for none. */
    static NetOperation netOperation(boolean existedBefore, List<Character> ops) {
        boolean exists = existedBefore;
        for (char op : ops) {
            if (op == 'I' && exists || op != 'I' && !exists) {
                throw new IllegalArgumentException("invalid sequence " + ops);
            }
            exists = op != 'D';
        }
        if (!existedBefore && !exists) {
            return null;
        }
        if (!exists) {
            return NetOperation.DELETE;
        }
        return existedBefore ? NetOperation.UPDATE : NetOperation.INSERT;
    }

    /** Index of the last insert or update, -1 when the row does not exist at the end. */
    static int lastImage(List<Character> ops) {
        if (ops.get(ops.size() - 1) == 'D') {
            return -1;
        }
        return ops.size() - 1;
    }
}
