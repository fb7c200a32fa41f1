package dev.cdclab.load.workload;

import java.util.List;

/**
 * The statements of one transaction, decided before it runs.
 *
 * @param type a short label for reports, e.g. {@code insert}
 * @param statements in execution order
 */
public record TxPlan(String type, List<PlannedStatement> statements) {}
