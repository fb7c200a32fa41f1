-- A column of every type real schemas use, and an array of each that Debezium sends, written while
-- the pipeline runs (streamed, not snapshotted); docs/types.md says where each lands.
CREATE EXTENSION IF NOT EXISTS citext;
CREATE EXTENSION IF NOT EXISTS hstore;
CREATE TYPE public.mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN public.posint AS int CHECK (VALUE > 0);
CREATE DOMAIN public.email AS text;
CREATE DOMAIN public.price AS numeric(10,2);
CREATE TYPE public.address AS (street text, zip int);
CREATE TABLE public.all_types (
    id int PRIMARY KEY,
    i2 smallint, i4 int, i8 bigint, f4 real, f8 double precision, num numeric(12,3), numu numeric,
    b bool, t text, vc varchar(10), ch char(5), ct citext,
    d date, ts timestamp, tstz timestamptz, tm time, ttz timetz, iv interval,
    u uuid, j json, jb jsonb, x xml, tsv tsvector,
    bt bit(1), b3 bit(3), vb varbit(8),
    ip inet, cidr_ cidr, mac macaddr, mac8 macaddr8,
    bin bytea, mo money, hs hstore,
    ir int4range, i8r int8range, nr numrange, dr daterange, tsr tsrange, tstzr tstzrange,
    pt point,
    mood public.mood, dom_i public.posint, dom_t public.email, dom_n public.price,
    addr public.address,
    a_i2 smallint[], a_i4 int[], a_i8 bigint[], a_f4 real[], a_f8 float8[],
    a_num numeric(12,3)[], a_numu numeric[],
    a_b bool[], a_t text[], a_vc varchar(10)[], a_ch char(3)[], a_ct citext[],
    a_d date[], a_ts timestamp[], a_tstz timestamptz[], a_tm time[], a_ttz timetz[],
    a_u uuid[], a_j json[], a_jb jsonb[], a_tsv tsvector[],
    a_ip inet[], a_cidr cidr[], a_mac macaddr[], a_mac8 macaddr8[],
    a_bin bytea[], a_hs hstore[],
    a_ir int4range[], a_nr numrange[], a_dr daterange[], a_tsr tsrange[], a_tstzr tstzrange[],
    a_mood public.mood[], a_dom_i public.posint[], a_dom_t public.email[],
    a_addr public.address[]
);
INSERT INTO public.all_types VALUES (1,
    1, 2, 3, 1.5, 2.25, 123.456, 1e-20,
    true, 'tëxt', 'vc', 'ab', 'CiText',
    '2016-11-04', '2016-11-04 10:00:00.123456', '2016-11-04 10:00:00.123456+02',
    '23:59:59.999999', '10:00:00+02', '1 year 2 mons 3 days 04:05:06.789',
    '3f2504e0-4f89-11d3-9a0c-0305e82c3301', '{"a": [1, 2.50], "a": 3}', '{"b": {"c": null}}',
    '<a>x</a>', 'a fat cat',
    B'1', B'101', B'0011',
    '192.168.0.1/24', '10.0.0.0/8', '08:00:2b:01:02:03', '08:00:2b:01:02:03:04:05',
    '\xdeadbeef', '$1,234.56', 'a=>1, b=>NULL, "c d"=>"e,f"',
    '[1,10)', '(,100)', '(1.5,2.5]', '[2016-01-01,2016-02-01)',
    '["2016-01-01 10:00","2016-01-01 11:00")', '[2016-01-01 10:00+02,)',
    '(1.5,-2.5)',
    'happy', 5, 'a@b.c', 12.34, ROW('Main "St", 1', 12345),
    '{1,2}', '{1,NULL,3}', '{9000000000}', '{1.5,NaN}', '{2.25,Infinity,-0}',
    '{1.5,NULL}', '{1e-20,1.5}',
    '{t,f,NULL}', '{"a","b c","","NULL",NULL,"q\"uote","back\\slash","com,ma"}', '{x}',
    '{ab,c}', '{CiText,x}',
    '{2016-11-04,2016-11-05,infinity,-infinity,NULL}', '{"2016-11-04 10:00:00.5",infinity}',
    '{"2016-11-04 10:00:00.5+02",infinity,-infinity}', '{10:00:00.5,00:00}', '{10:00+02}',
    '{3f2504e0-4f89-11d3-9a0c-0305e82c3301}', ARRAY['{"a":1}'::json],
    ARRAY['{"b": 2}'::jsonb, NULL], ARRAY['a b'::tsvector],
    '{192.168.0.1,::1/128}', '{10.0.0.0/8}', '{08:00:2b:01:02:03}', '{08:00:2b:01:02:03:04:05}',
    ARRAY['\xdead'::bytea, NULL], ARRAY['a=>1'::hstore],
    '{"[1,2)",empty}', '{"[1.5,2)"}', '{"[2016-01-01,2016-01-02)"}',
    '{"[\"2016-01-01 10:00\",\"2016-01-01 11:00\")"}', '{"[2016-01-01 10:00+00,)"}',
    '{happy,sad}', '{1,2}', '{a@b,c@d}',
    ARRAY[ROW('x', 1)::public.address, ROW('y "z"', NULL)::public.address]
);
-- the edges: PostgreSQL's first and last days, the last microsecond DuckDB's timestamps hold
INSERT INTO public.all_types (id, i2, i8, f8, numu, d, ts, tstz, iv, mo, ir, vb, a_d, a_tstz)
VALUES
    (2, -32768, 9223372036854775807, 1e308, 123456789012345678901234567890.123,
        '5874897-12-31', '294247-01-01 23:59:59.999999', '294247-01-01 23:59:59.999999+00',
        '178000000 years', '92233720368547758.07', 'empty', B'', '{}', '{}'),
    (3, 32767, -9223372036854775808, -1e-307, 'NaN',
        '4714-11-24 BC', '4714-11-24 00:00:00 BC', '4714-11-24 00:00:00+00 BC',
        '-1 years -2 mons +3 days -04:05:06.789', '-$0.50', '[-5,5]', B'00000000', NULL, NULL),
    (4, 0, 0, 0, 0, '2000-01-01', '2000-01-01 00:00:00', '2000-01-01 00:00:00+00', '0',
        '$0.00', NULL, NULL, '{NULL}', '{NULL}');
