-- Keys changed in the transaction that changes the rows around them, decoded after the change
-- committed: each change is keyed as the table was when it was made.
CREATE TABLE public.kt_dropped (id int PRIMARY KEY, v text);
INSERT INTO public.kt_dropped VALUES (1, 'a'), (2, 'b'), (3, 'c');
CREATE TABLE public.kt_added (id int, v text);
INSERT INTO public.kt_added VALUES (1, 'a'), (1, 'a'), (2, 'b'), (3, 'c');
CREATE TABLE public.kt_swapped (a int NOT NULL, b int NOT NULL, v text, PRIMARY KEY (a));
INSERT INTO public.kt_swapped VALUES (1, 1, 'x'), (2, 1, 'y');
-- await
-- updated under its key, then duplicated once it has none
BEGIN;
UPDATE public.kt_dropped SET v = 'x' WHERE id = 1;
ALTER TABLE public.kt_dropped DROP CONSTRAINT kt_dropped_pkey;
INSERT INTO public.kt_dropped VALUES (1, 'x');
UPDATE public.kt_dropped SET v = 'y' WHERE id = 3;
COMMIT;
DELETE FROM public.kt_dropped WHERE ctid = (SELECT min(ctid) FROM public.kt_dropped WHERE id = 1);
INSERT INTO public.kt_dropped VALUES (2, 'b');
-- one of two equal rows deleted without a key, then a key added
BEGIN;
DELETE FROM public.kt_added WHERE ctid = (SELECT min(ctid) FROM public.kt_added WHERE id = 1);
UPDATE public.kt_added SET v = 'c2' WHERE id = 3;
ALTER TABLE public.kt_added ADD PRIMARY KEY (id);
UPDATE public.kt_added SET v = 'd' WHERE id = 1;
COMMIT;
UPDATE public.kt_added SET v = 'e' WHERE id = 2;
-- a key column changed under the old key, then the key replaced
BEGIN;
UPDATE public.kt_swapped SET b = 2 WHERE a = 1;
ALTER TABLE public.kt_swapped DROP CONSTRAINT kt_swapped_pkey, ADD PRIMARY KEY (a, b);
INSERT INTO public.kt_swapped VALUES (1, 3, 'z');
COMMIT;
UPDATE public.kt_swapped SET v = 'w' WHERE a = 2;
