-- tables that exist before capture starts: the initial snapshot reads them
CREATE TABLE early_parts (id int, k date, v text, PRIMARY KEY (id, k)) PARTITION BY RANGE (k);
CREATE TABLE early_parts_2024 PARTITION OF early_parts FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE early_parts_2025 PARTITION OF early_parts FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
INSERT INTO early_parts SELECT g, DATE '2024-03-01' + g, 'p' || g FROM generate_series(1, 400) g;
CREATE TABLE early_log (name text, n int);
INSERT INTO early_log SELECT 'r' || (g % 5), g % 3 FROM generate_series(1, 300) g;
