package dev.cdclab.change;

/** The operation of a net change, coded like Debezium's {@code op} field. */
public enum NetOperation {
    /** The row did not exist before the interval and exists after it. */
    INSERT("c"),
    /** The row existed before the interval and exists after it. */
    UPDATE("u"),
    /** The row existed before the interval and does not exist after it. */
    DELETE("d"),
    /** Insert or update, not told apart ({@code all with merge}). */
    UPSERT("m");

    private final String code;

    NetOperation(String code) {
        this.code = code;
    }

    public String code() {
        return code;
    }

    /** True when the row exists after the change. */
    public boolean rowExistsAfter() {
        return this != DELETE;
    }

    public static NetOperation ofCode(String code) {
        for (NetOperation op : values()) {
            if (op.code.equals(code)) {
                return op;
            }
        }
        throw new IllegalArgumentException("unknown net operation code '" + code + "'");
    }
}
