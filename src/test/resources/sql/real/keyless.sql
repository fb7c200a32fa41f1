CREATE TABLE kl_log (name text, n int, at timestamptz DEFAULT '2026-01-01 00:00:00+00');
INSERT INTO kl_log (name, n) VALUES ('a', 1), ('a', 1), ('a', 1), ('b', 2), ('b', 2), ('c', NULL);
-- two identical rows, one deleted: one left
DELETE FROM kl_log WHERE ctid = (SELECT min(ctid) FROM kl_log WHERE name = 'a');
UPDATE kl_log SET n = 3 WHERE ctid = (SELECT min(ctid) FROM kl_log WHERE name = 'b');
UPDATE kl_log SET name = 'c2' WHERE n IS NULL;
-- a unique index named as replica identity is a key
CREATE TABLE kl_ri (code text NOT NULL, v int);
CREATE UNIQUE INDEX kl_ri_code ON kl_ri (code);
ALTER TABLE kl_ri REPLICA IDENTITY USING INDEX kl_ri_code;
INSERT INTO kl_ri SELECT 'k' || g, g FROM generate_series(1, 50) g;
UPDATE kl_ri SET v = -v WHERE v % 4 = 0;
DELETE FROM kl_ri WHERE v % 5 = 0;
