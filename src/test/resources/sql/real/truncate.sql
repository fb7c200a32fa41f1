CREATE TABLE tr_a (id int PRIMARY KEY, v text);
CREATE TABLE tr_b (id int PRIMARY KEY, a int REFERENCES tr_a (id));
CREATE TABLE tr_c (id int PRIMARY KEY, v text);
INSERT INTO tr_a SELECT g, 'a' || g FROM generate_series(1, 200) g;
INSERT INTO tr_b SELECT g, g FROM generate_series(1, 100) g;
INSERT INTO tr_c SELECT g, 'c' || g FROM generate_series(1, 50) g;
-- several tables in one statement
TRUNCATE tr_a, tr_b, tr_c;
INSERT INTO tr_a SELECT g, 'again ' || g FROM generate_series(1, 20) g;
INSERT INTO tr_c VALUES (1, 'after');
-- CASCADE, then the same keys again, in one transaction
BEGIN;
INSERT INTO tr_b VALUES (7, 1);
UPDATE tr_a SET v = 'changed before the truncate' WHERE id = 2;
TRUNCATE tr_a CASCADE;
INSERT INTO tr_a SELECT g, 'reloaded ' || g FROM generate_series(1, 10) g;
INSERT INTO tr_b VALUES (8, 2);
UPDATE tr_a SET v = 'changed after the truncate' WHERE id = 3;
COMMIT;
