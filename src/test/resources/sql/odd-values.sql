-- PostgreSQL's less common values, written while the pipeline runs (streamed, not snapshotted),
-- into a table whose name needs quoting: a quote, a space and a dot.
CREATE TABLE public."odd ""q"" .values" (
    id int PRIMARY KEY,
    "price ""$""" numeric(5,2),
    n numeric,
    d date,
    ts timestamp,
    tstz timestamptz,
    t time,
    ttz timetz,
    ints int[],
    words text[],
    m money
);
INSERT INTO public."odd ""q"" .values" VALUES
    (1, 'NaN', 'Infinity', 'infinity', 'infinity', 'infinity', '24:00:00', '13:51:30.123789+02',
        '{1,2,3}', '{"a","b c"}', '$1,234.11'),
    (2, 12.30, '-Infinity', '-infinity', '-infinity', '-infinity', '00:00:00', '00:00:00+00',
        '{}', '{}', '-$0.50'),
    (3, NULL, 'NaN', '21016-11-04', '21016-11-04 10:00:00', '21016-11-04 10:00:00+00',
        '23:59:59.999999', NULL, '{1,NULL,3}', NULL, NULL),
    (4, -999.99, 123456789012345678901234567890.123, '2026-11-22', '2026-11-22 01:02:03.456789',
        '2026-11-22 01:02:03.456789+05', '12:00:00', '23:59:59-07', NULL, '{""}', '$0.00');
UPDATE public."odd ""q"" .values" SET t = '24:00:00', n = 'NaN' WHERE id = 4;
-- before Christ (PostgreSQL's first day is 4714-11-24 BC), and timetz at 24:00 off UTC
INSERT INTO public."odd ""q"" .values" (id, d, ts, tstz, ttz) VALUES
    (5, '0044-03-15 BC', '0044-03-15 12:34:56.789012 BC', '0044-03-15 12:34:56.789012+02 BC',
        '24:00:00+02'),
    (6, '4714-11-24 BC', '4713-01-01 00:00:00 BC', '0001-01-01 00:00:00+00 BC', '24:00:00-05'),
    (7, '0001-12-31 BC', '0001-12-31 23:59:59.999999 BC', '4714-11-24 12:00:00+00 BC',
        '24:00:00+00');
UPDATE public."odd ""q"" .values" SET d = '4713-01-01 BC', ttz = '24:00:00+05:30' WHERE id = 6;

-- a name written to break out of its quotes: if any SQL path pastes it unquoted, the victim goes
CREATE TABLE public.victim (id int PRIMARY KEY);
INSERT INTO public.victim VALUES (1);
CREATE TABLE public."evil""; DROP TABLE public.victim; --" ("x""); DROP TABLE public.victim; --" int PRIMARY KEY, v text);
INSERT INTO public."evil""; DROP TABLE public.victim; --" VALUES (1, 'a'), (2, 'b');
UPDATE public."evil""; DROP TABLE public.victim; --" SET v = 'c' WHERE "x""); DROP TABLE public.victim; --" = 2;
DELETE FROM public."evil""; DROP TABLE public.victim; --" WHERE "x""); DROP TABLE public.victim; --" = 1;
