-- tables created while the pipeline runs: capture must pick them up without a restart
CREATE TABLE accounts (
    id integer PRIMARY KEY,
    owner text NOT NULL,
    balance numeric(12, 2) NOT NULL,
    note text,
    opened date,
    updated_at timestamptz
);
CREATE TABLE events (
    id bigint PRIMARY KEY,
    kind varchar(16),
    payload jsonb,
    raw bytea,
    ratio double precision,
    active boolean
);
CREATE TABLE line_items (
    order_id bigint,
    line_no integer,
    sku uuid,
    qty smallint,
    PRIMARY KEY (order_id, line_no)
);
