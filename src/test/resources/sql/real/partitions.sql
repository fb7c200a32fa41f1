CREATE TABLE pa_events (id int, day date, v text, PRIMARY KEY (id, day)) PARTITION BY RANGE (day);
CREATE TABLE pa_events_2024 PARTITION OF pa_events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE pa_events_2025 PARTITION OF pa_events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
INSERT INTO pa_events SELECT g, DATE '2024-06-01' + (g % 300), 'e' || g FROM generate_series(1, 500) g;
-- rows move between partitions
UPDATE pa_events SET day = day + 365 WHERE id % 3 = 0 AND day + 365 < DATE '2026-01-01';
-- a partition attached later, and one created later
CREATE TABLE pa_events_2026 (id int NOT NULL, day date NOT NULL, v text);
ALTER TABLE pa_events ATTACH PARTITION pa_events_2026 FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
CREATE TABLE pa_events_2027 PARTITION OF pa_events FOR VALUES FROM ('2027-01-01') TO ('2028-01-01');
INSERT INTO pa_events VALUES (9001, '2026-03-03', 'late'), (9002, '2027-03-03', 'later');
DELETE FROM pa_events WHERE id % 7 = 0;
-- partitioned without a key, by list
CREATE TABLE pa_log (k int, v text) PARTITION BY LIST (k);
CREATE TABLE pa_log_1 PARTITION OF pa_log FOR VALUES IN (1);
CREATE TABLE pa_log_2 PARTITION OF pa_log FOR VALUES IN (2);
INSERT INTO pa_log VALUES (1, 'a'), (1, 'a'), (2, 'b');
UPDATE pa_log SET k = 2 WHERE v = 'b';
UPDATE pa_log SET k = 2 WHERE ctid = (SELECT min(ctid) FROM pa_log_1);
