-- bulk-loaded without a key, given one afterwards
CREATE TABLE kc_load (id int NOT NULL, v text);
INSERT INTO kc_load SELECT g, 'v' || g FROM generate_series(1, 1000) g;
ALTER TABLE kc_load ADD PRIMARY KEY (id);
UPDATE kc_load SET v = 'keyed' WHERE id % 10 = 0;
DELETE FROM kc_load WHERE id > 990;
-- a key dropped, then another key on other columns
CREATE TABLE kc_swap (a int PRIMARY KEY, b int NOT NULL, v text);
INSERT INTO kc_swap SELECT g, g % 7, 'v' FROM generate_series(1, 100) g;
ALTER TABLE kc_swap DROP CONSTRAINT kc_swap_pkey;
UPDATE kc_swap SET v = 'no key' WHERE a <= 10;
INSERT INTO kc_swap VALUES (1, 1, 'duplicate of a=1 while there is no key');
DELETE FROM kc_swap WHERE a = 1 AND v = 'no key';
-- await: Debezium reads a table's key from the catalog when it reads the changes, so a key added
-- before capture has read the changes made without one would apply to them too
ALTER TABLE kc_swap ADD PRIMARY KEY (a, b);
UPDATE kc_swap SET v = 'new key' WHERE a > 90;
DELETE FROM kc_swap WHERE a = 100;
