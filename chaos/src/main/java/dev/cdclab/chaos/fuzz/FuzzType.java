package dev.cdclab.chaos.fuzz;

import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * A source column type the fuzzer generates, with the values it writes (NULL and edge values among
 * them) and the types a column of it may change to with PostgreSQL's own cast, where the
 * warehouse's cast of the values already there gives the same result.
 */
enum FuzzType {
    INT2("smallint"),
    INT4("integer"),
    INT8("bigint"),
    NUMERIC_12_3("numeric(12,3)"),
    NUMERIC("numeric"),
    FLOAT4("real"),
    FLOAT8("double precision"),
    BOOL("boolean"),
    TEXT("text"),
    VARCHAR("varchar(40)"),
    CHAR5("char(5)"),
    DATE("date"),
    TIMESTAMP("timestamp"),
    TIMESTAMPTZ("timestamptz"),
    TIME("time"),
    INTERVAL("interval"),
    UUID("uuid"),
    JSONB("jsonb"),
    BYTEA("bytea"),
    INT4_ARRAY("integer[]"),
    TEXT_ARRAY("text[]"),
    ENUM("fuzz_mood"),
    INET("inet");

    /** The enum type every fuzzed database has. */
    static final String ENUM_DDL =
            "DO $$ BEGIN CREATE TYPE fuzz_mood AS ENUM ('sad', 'ok', 'happy', 'it''s \"odd\"');"
                    + " EXCEPTION WHEN duplicate_object THEN NULL; END $$";

    private final String sql;

    FuzzType(String sql) {
        this.sql = sql;
    }

    /** The type as the DDL writes it. */
    String sql() {
        return sql;
    }

    /** Whether a column of this type can be part of a primary key here. */
    boolean keyable() {
        return switch (this) {
            case INT2, INT4, INT8, TEXT, VARCHAR, UUID, DATE, NUMERIC_12_3 -> true;
            default -> false;
        };
    }

    /**
     * The types a column of this type may change to: PostgreSQL's cast and the warehouse's cast of
     * the values the column holds agree on the result.
     */
    List<FuzzType> changesTo() {
        return switch (this) {
            case INT2 -> List.of(INT4, INT8, NUMERIC_12_3, TEXT);
            case INT4 -> List.of(INT8, NUMERIC_12_3, NUMERIC, TEXT);
            case INT8 -> List.of(NUMERIC, TEXT);
            case FLOAT4 -> List.of(FLOAT8);
            case VARCHAR -> List.of(TEXT);
            case BOOL -> List.of(TEXT);
            case DATE -> List.of(TIMESTAMP, TEXT);
            // the cast drops char(n)'s padding
            case CHAR5 -> List.of(TEXT, VARCHAR);
            default -> List.of();
        };
    }

    /** A value of the type as a SQL literal, NULL and edge values included. */
    String value(Random r, boolean nullable) {
        if (nullable && r.nextInt(6) == 0) {
            return "NULL";
        }
        int edge = r.nextInt(8);
        return switch (this) {
            case INT2 ->
                    pick(r, edge, "0", "-32768", "32767", Integer.toString(r.nextInt(2000) - 1000));
            case INT4 ->
                    pick(
                            r,
                            edge,
                            "0",
                            "-2147483648",
                            "2147483647",
                            Integer.toString(r.nextInt(2_000_000) - 1_000_000));
            case INT8 ->
                    pick(
                            r,
                            edge,
                            "0",
                            "-9223372036854775808",
                            "9223372036854775807",
                            Long.toString(r.nextLong() >> r.nextInt(60)));
            case NUMERIC_12_3 ->
                    pick(
                            r,
                            edge,
                            "0",
                            "-999999999.999",
                            "999999999.999",
                            String.format(Locale.ROOT, "%.3f", (r.nextDouble() - 0.5) * 1e6));
            case NUMERIC ->
                    pick(
                            r,
                            edge,
                            "'NaN'",
                            "0.000000000000000000000000000001",
                            "123456789012345678901234567890.123456789",
                            String.format(Locale.ROOT, "%.5f", (r.nextDouble() - 0.5) * 1e4));
            case FLOAT4 ->
                    pick(
                            r,
                            edge,
                            "'NaN'",
                            "'-Infinity'",
                            "-0.0",
                            Float.toString((r.nextFloat() - 0.5f) * 1000f));
            case FLOAT8 ->
                    pick(
                            r,
                            edge,
                            "'Infinity'",
                            "1e-300",
                            "-1.7976931348623157e308",
                            Double.toString((r.nextDouble() - 0.5) * 1e9));
            case BOOL -> r.nextBoolean() ? "true" : "false";
            case TEXT -> text(r, edge, 2000);
            case VARCHAR -> text(r, edge, 40);
            case CHAR5 -> pick(r, edge, "''", "'a'", "'abcde'", quote(word(r, 5)));
            case DATE ->
                    pick(
                            r,
                            edge,
                            "'infinity'",
                            "'0044-03-15 BC'",
                            "'12021-01-01'",
                            "'"
                                    + (1970 + r.nextInt(80))
                                    + "-0"
                                    + (1 + r.nextInt(9))
                                    + "-1"
                                    + r.nextInt(9)
                                    + "'");
            case TIMESTAMP ->
                    pick(
                            r,
                            edge,
                            "'-infinity'",
                            "'1999-12-31 23:59:59.999999'",
                            "'0001-01-01 00:00:00'",
                            "'2024-0"
                                    + (1 + r.nextInt(9))
                                    + "-1"
                                    + r.nextInt(9)
                                    + " 1"
                                    + r.nextInt(9)
                                    + ":3"
                                    + r.nextInt(9)
                                    + ":0"
                                    + r.nextInt(9)
                                    + "."
                                    + r.nextInt(1_000_000)
                                    + "'");
            case TIMESTAMPTZ ->
                    pick(
                            r,
                            edge,
                            "'infinity'",
                            "'2000-01-01 00:00:00+14'",
                            "'1970-01-01 00:00:00.000001+00'",
                            "'2025-0"
                                    + (1 + r.nextInt(9))
                                    + "-2"
                                    + r.nextInt(8)
                                    + " 0"
                                    + r.nextInt(9)
                                    + ":1"
                                    + r.nextInt(9)
                                    + ":5"
                                    + r.nextInt(9)
                                    + "."
                                    + r.nextInt(1000)
                                    + "-0"
                                    + r.nextInt(9)
                                    + ":30'");
            case TIME ->
                    pick(
                            r,
                            edge,
                            "'24:00:00'",
                            "'00:00:00'",
                            "'23:59:59.999999'",
                            "'1" + r.nextInt(9) + ":2" + r.nextInt(9) + ":3" + r.nextInt(9) + "'");
            case INTERVAL ->
                    pick(
                            r,
                            edge,
                            "'1 mon'",
                            "'30 days 10:30:00'",
                            "'-1 year -2 mons +3 days -04:05:06.789'",
                            "'" + r.nextInt(100) + " days " + r.nextInt(24) + " hours'");
            case UUID -> "'" + new java.util.UUID(r.nextLong(), r.nextLong()) + "'";
            case JSONB ->
                    pick(
                            r,
                            edge,
                            "'{}'",
                            "'[1, \"two\", null, {\"a\": [true, false]}]'",
                            "'{\"k\": \"it''s\", \"n\": 1.50, \"u\": \"\\u00e9\"}'",
                            "'{\"id\": "
                                    + r.nextInt(1000)
                                    + ", \"w\": "
                                    + quote(word(r, 8)).replace("'", "\"")
                                    + "}'");
            case BYTEA ->
                    pick(
                            r,
                            edge,
                            "''::bytea",
                            "'\\x00'",
                            "'\\xdeadbeef00ff'",
                            "'\\x" + hex(r, 1 + r.nextInt(40)) + "'");
            case INT4_ARRAY ->
                    pick(
                            r,
                            edge,
                            "'{}'",
                            "'{NULL}'",
                            "'{1,-2,2147483647}'",
                            "ARRAY[" + r.nextInt(100) + "," + r.nextInt(100) + "]");
            case TEXT_ARRAY ->
                    pick(
                            r,
                            edge,
                            "'{}'",
                            "'{\"\",NULL}'",
                            "ARRAY['a,b', 'c\"d', 'e''f']",
                            "ARRAY[" + quote(word(r, 4)) + "]");
            case ENUM -> pick(r, edge, "'sad'", "'ok'", "'happy'", "'it''s \"odd\"'");
            case INET ->
                    pick(
                            r,
                            edge,
                            "'10.0.0.1'",
                            "'192.168.0.0/16'",
                            "'::1'",
                            "'10." + r.nextInt(255) + ".0." + r.nextInt(255) + "'");
        };
    }

    /** A large value of the type, when it has one (text: hundreds of KiB to a few MiB). */
    String largeValue(Random r) {
        return switch (this) {
            case TEXT -> "repeat(" + quote(word(r, 7)) + ", " + (20_000 + r.nextInt(400_000)) + ")";
            case BYTEA -> "decode(repeat('ab', " + (10_000 + r.nextInt(200_000)) + "), 'hex')";
            case JSONB ->
                    "(SELECT jsonb_agg(g) FROM generate_series(1, "
                            + (1000 + r.nextInt(50_000))
                            + ") g)";
            default -> value(r, false);
        };
    }

    private static String pick(Random r, int edge, String a, String b, String c, String usual) {
        return switch (edge) {
            case 0 -> a;
            case 1 -> b;
            case 2 -> c;
            default -> usual;
        };
    }

    private static String text(Random r, int edge, int max) {
        return switch (edge) {
            case 0 -> "''";
            case 1 -> "'it''s \"quoted\" \\ back\\slash'";
            case 2 -> "'Grüße, 日本語, emoji \uD83D\uDE00'";
            default -> quote(word(r, 1 + r.nextInt(Math.min(max, 30))));
        };
    }

    static String word(Random r, int n) {
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            sb.append((char) ('a' + r.nextInt(26)));
        }
        return sb.toString();
    }

    private static String hex(Random r, int bytes) {
        StringBuilder sb = new StringBuilder(bytes * 2);
        for (int i = 0; i < bytes; i++) {
            sb.append(String.format(Locale.ROOT, "%02x", r.nextInt(256)));
        }
        return sb.toString();
    }

    static String quote(String s) {
        return "'" + s.replace("'", "''") + "'";
    }
}
