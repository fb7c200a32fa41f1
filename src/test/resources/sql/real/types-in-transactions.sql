-- Column types changed in the transaction that wrote the rows before them: the values written
-- before the change keep what they were, under the new type.
CREATE TABLE public.tt_types (id int PRIMARY KEY, b boolean, d date, n smallint, f real, s varchar(10));
INSERT INTO public.tt_types VALUES (1, true, '2024-01-02', 1, 1.5, 'a'), (2, false, '2024-03-04', 2, -2.25, 'b');
-- await
BEGIN;
UPDATE public.tt_types SET b = true, d = '2025-05-05', n = 7, f = 3.75, s = 'c' WHERE id = 2;
ALTER TABLE public.tt_types ALTER COLUMN b TYPE text;
ALTER TABLE public.tt_types ALTER COLUMN d TYPE timestamp;
ALTER TABLE public.tt_types ALTER COLUMN n TYPE bigint;
ALTER TABLE public.tt_types ALTER COLUMN f TYPE double precision;
ALTER TABLE public.tt_types ALTER COLUMN s TYPE text;
INSERT INTO public.tt_types VALUES (3, 'maybe', '2026-06-06 06:06:06', 9000000000, 1e300, 'long text');
COMMIT;
UPDATE public.tt_types SET n = n + 1 WHERE id = 1;
