package dev.cdclab.sink.warehouse;

import dev.cdclab.change.NetOperation;

/**
 * One change of a table without a key, staged as text: an insert adds {@code after}, a delete
 * removes one row equal to {@code before}, an update replaces one.
 *
 * @param op insert, update or delete
 * @param position source log position, sortable form
 * @param commitMs source commit time
 * @param before one text value per column of the old row (null for SQL NULL); null for an insert
 * @param after one text value per column of the new row; null for a delete
 */
public record KeylessRow(
        NetOperation op, String position, long commitMs, String[] before, String[] after) {}
