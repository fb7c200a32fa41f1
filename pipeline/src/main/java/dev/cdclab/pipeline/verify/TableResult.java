package dev.cdclab.pipeline.verify;

import java.util.List;

/**
 * Comparison of one table.
 *
 * @param table {@code schema.table}
 * @param sourceRows rows at the source
 * @param warehouseRows rows in the warehouse
 * @param sourceChecksum order-independent content checksum at the source
 * @param warehouseChecksum the same over the warehouse
 * @param differences the first differing keys, described
 * @param skipped why the table was not compared, or null
 */
public record TableResult(
        String table,
        long sourceRows,
        long warehouseRows,
        String sourceChecksum,
        String warehouseChecksum,
        List<String> differences,
        String skipped) {

    /** The result as JSON-ready fields. */
    public java.util.Map<String, Object> asMap() {
        java.util.Map<String, Object> r = new java.util.LinkedHashMap<>();
        r.put("table", table);
        r.put("matches", matches());
        r.put("source_rows", sourceRows);
        r.put("warehouse_rows", warehouseRows);
        r.put("source_checksum", sourceChecksum);
        r.put("warehouse_checksum", warehouseChecksum);
        r.put("differences", differences);
        if (skipped != null) {
            r.put("skipped", skipped);
        }
        return r;
    }

    public boolean matches() {
        return skipped == null
                && sourceRows == warehouseRows
                && sourceChecksum.equals(warehouseChecksum)
                && differences.isEmpty();
    }
}
