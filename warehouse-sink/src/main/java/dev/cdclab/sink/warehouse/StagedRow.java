package dev.cdclab.sink.warehouse;

/**
 * One net change in the shape the warehouse stages it: text values in column order.
 *
 * @param delete true for a delete
 * @param absent true when the row did not exist before the change ({@link
 *     BatchFolder#absentBefore}): unless the change is applied again, the warehouse has no row to
 *     replace
 * @param position source log position of the last raw change, sortable form
 * @param commitMs source commit time of the last raw change
 * @param key canonical key JSON
 * @param unchanged {@code |a|b|}-delimited list of columns to keep as they are
 * @param values one text value per staged column (null for SQL NULL)
 */
public record StagedRow(
        boolean delete,
        boolean absent,
        String position,
        long commitMs,
        String key,
        String unchanged,
        String[] values) {}
