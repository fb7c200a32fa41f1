package dev.cdclab.orchestration.verify;

import java.util.List;

/**
 * Comparison of every captured table.
 *
 * @param notLanding columns the source cannot send (a generated column its logical decoding does
 *     not publish), as {@code schema.table.column: why}: left out of the comparison, and named
 *     before any table
 */
public record VerificationResult(List<TableResult> tables, List<String> notLanding) {

    /** A comparison where every column can land. */
    public VerificationResult(List<TableResult> tables) {
        this(tables, List.of());
    }

    /** True when every compared table matches and at least one was compared. */
    public boolean matches() {
        return tables.stream().anyMatch(t -> t.skipped() == null)
                && tables.stream().filter(t -> t.skipped() == null).allMatch(TableResult::matches);
    }

    /** Tables that were compared and differ. */
    public List<String> differingTables() {
        return tables.stream()
                .filter(t -> t.skipped() == null && !t.matches())
                .map(TableResult::table)
                .toList();
    }

    /** One line: {@code warehouse matches source} or the first difference. */
    public String summary() {
        if (matches()) {
            return "warehouse matches source";
        }
        for (TableResult t : tables) {
            if (t.skipped() == null && !t.matches()) {
                String first =
                        t.differences().isEmpty()
                                ? "checksum " + t.sourceChecksum() + " vs " + t.warehouseChecksum()
                                : t.differences().get(0).toString();
                return "warehouse differs from source: "
                        + t.table()
                        + " ("
                        + t.sourceRows()
                        + " vs "
                        + t.warehouseRows()
                        + " rows): "
                        + first;
            }
        }
        return "no table compared";
    }
}
