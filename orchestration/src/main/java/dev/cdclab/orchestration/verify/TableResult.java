package dev.cdclab.orchestration.verify;

import java.util.List;

/**
 * Comparison of one table.
 *
 * @param table {@code schema.table}
 * @param sourceRows rows at the source
 * @param warehouseRows rows in the warehouse
 * @param sourceChecksum order-independent content checksum at the source
 * @param warehouseChecksum the same over the warehouse
 * @param differences the first differing keys
 * @param skipped why the table was not compared, or null
 * @param comparedAs how rows were matched: {@code "key (a, b)"}, or {@code "rows (no key)"} for a
 *     table without a key, compared as a multiset of rows; null when not compared
 */
public record TableResult(
        String table,
        long sourceRows,
        long warehouseRows,
        String sourceChecksum,
        String warehouseChecksum,
        List<Difference> differences,
        String skipped,
        String comparedAs) {

    /** A table not compared, and why. */
    static TableResult skipped(String table, String why) {
        return new TableResult(table, 0, 0, "", "", List.of(), why, null);
    }

    /** The result as JSON-ready fields. */
    public java.util.Map<String, Object> asMap() {
        java.util.Map<String, Object> r = new java.util.LinkedHashMap<>();
        r.put("table", table);
        r.put("matches", skipped == null ? matches() : null);
        r.put("source_rows", sourceRows);
        r.put("warehouse_rows", warehouseRows);
        r.put("source_checksum", sourceChecksum);
        r.put("warehouse_checksum", warehouseChecksum);
        r.put("differences", differences.stream().map(Difference::toString).toList());
        if (skipped != null) {
            r.put("skipped", skipped);
        }
        if (comparedAs != null) {
            r.put("compared_as", comparedAs);
        }
        return r;
    }

    /** The keys that differ (of the first few found), as {@code (col=value, ...)}. */
    public List<String> differingKeys() {
        return differences.stream().map(Difference::key).filter(k -> k != null).toList();
    }

    public boolean matches() {
        return skipped == null
                && sourceRows == warehouseRows
                && sourceChecksum.equals(warehouseChecksum)
                && differences.isEmpty();
    }
}
