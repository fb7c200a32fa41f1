package dev.cdclab.load.workload;

/** Kinds of statement a workload issues. */
public enum Op {
    INSERT,
    UPDATE,
    DELETE,
    SELECT
}
