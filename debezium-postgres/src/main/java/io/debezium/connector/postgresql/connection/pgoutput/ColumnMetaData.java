/*
 * Copyright Debezium Authors.
 *
 * Licensed under the Apache Software License version 2.0, available at http://www.apache.org/licenses/LICENSE-2.0
 *
 * Modified by cdc-lab from Debezium 3.7.0.Final: the changes are marked "cdc-lab" (see the module's
 * README.md).
 */
package io.debezium.connector.postgresql.connection.pgoutput;

import io.debezium.annotation.Immutable;
import io.debezium.connector.postgresql.PostgresType;
import io.debezium.connector.postgresql.TypeRegistry;
import io.debezium.relational.Column;

/**
 * Defines the relational column mapping for a table.
 *
 * @author Gunnar Morling
 * @author Chris Cranford
 */
@Immutable
public class ColumnMetaData {
    private final String columnName;
    private final PostgresType postgresType;
    private final boolean key;
    private final boolean optional;
    private final boolean hasDefaultValue;
    private final String defaultValueExpression;
    private final int length;
    private final int scale;
    private final String typeName;
    private final String driverTypeName;

    /**
     * Create a metadata structure representing a column.
     *
     * @param columnName name of the column; must not be null
     * @param postgresType postgres database type; must not be null
     * @param key {@code true} if column is part of the primary key, {@code false} otherwise
     * @param optional {@code true} if the column is considered optional, {@code false} otherwise
     * @param hasDefaultValue {@code true} if the column has a default value specified, {@code false} otherwise
     * @param defaultValueExpression the parsed default value literal for the column
     * @param typeModifier the attribute type modifier
     * @param driverTypeName the type name the JDBC driver reports for the column, {@code null} when unavailable
     */
    ColumnMetaData(String columnName, PostgresType postgresType, boolean key, boolean optional, boolean hasDefaultValue, String defaultValueExpression,
                   int typeModifier, String driverTypeName) {
        this.columnName = columnName;
        this.postgresType = postgresType;
        this.key = key;
        this.optional = optional;
        this.hasDefaultValue = hasDefaultValue;
        this.defaultValueExpression = defaultValueExpression;

        // todo: investigate whether this can be removed and PostgresType updated to always delegate
        // Currently PostgresType only delegates calls to length and scale with an attribute modifier
        // for specific types and ideally for PgOutput, we should always delegate if a modifier
        // is provided. For now, I've allowed PostgresType to expose the TypeInfo object where
        // I will use it here for now until further research can be done.
        if (postgresType.isVector()) {
            // Take the dimension straight from atttypmod: getPrecision() would yield MAX_VALUE (see
            // PostgresType#isVector). A bare vector without a declared dimension has none.
            length = TypeRegistry.NO_TYPE_MODIFIER != typeModifier ? typeModifier : Column.UNSET_INT_VALUE;
            scale = 0;
        }
        else if (TypeRegistry.NO_TYPE_MODIFIER != typeModifier && postgresType.getTypeInfo() != null) {
            length = postgresType.getTypeInfo().getPrecision(postgresType.getOid(), typeModifier);
            scale = postgresType.getTypeInfo().getScale(postgresType.getOid(), typeModifier);
        }
        else {
            length = postgresType.getDefaultLength();
            scale = postgresType.getDefaultScale();
        }

        // A serial column carries the OID of its underlying int2/int4/int8 type, so a name taken from the
        // OID loses the serial nature that the driver reports during snapshot (debezium/dbz#2232).
        // cdc-lab: the driver's name is the column's type now, read from the catalog; the relation
        // message's type is the one its values were written with. Where they differ (a type changed
        // since: a date decoded as a timestamp fails, a boolean decoded as text is wrong) the
        // message's type wins; the driver's name only adds what the OID cannot say (serial)
        this.driverTypeName = driverTypeName != null && sameType(driverTypeName, postgresType.getName()) ? driverTypeName : postgresType.getName();

        // Constructs a fully qualified type name, including dimensions if applicable
        String type = this.driverTypeName;
        if (postgresType.isVector()) {
            // pgvector uses a single dimension modifier, e.g. vector(3) rather than vector(3,0)
            if (length != Column.UNSET_INT_VALUE) {
                type += "(" + length + ")";
            }
        }
        else if (!(length == postgresType.getDefaultLength() && scale == 0)) {
            type += "(" + length + "," + scale + ")";
        }
        this.typeName = type;
    }

    /** cdc-lab: whether the driver's type name names the OID's type (serial is int4 with a default). */
    private static boolean sameType(String driverTypeName, String oidTypeName) {
        switch (driverTypeName) {
            case "serial":
                return oidTypeName.equals("int4");
            case "bigserial":
                return oidTypeName.equals("int8");
            case "smallserial":
                return oidTypeName.equals("int2");
            default:
                return driverTypeName.equals(oidTypeName);
        }
    }

    public String getColumnName() {
        return columnName;
    }

    public PostgresType getPostgresType() {
        return postgresType;
    }

    public boolean isKey() {
        return key;
    }

    public boolean isOptional() {
        return optional;
    }

    public boolean hasDefaultValue() {
        return hasDefaultValue;
    }

    public String getDefaultValueExpression() {
        return defaultValueExpression;
    }

    public int getLength() {
        return length;
    }

    public int getScale() {
        return scale;
    }

    public String getTypeName() {
        return typeName;
    }

    public String getDriverTypeName() {
        return driverTypeName;
    }
}
