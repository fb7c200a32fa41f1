-- types.sql's rows changed once the warehouse holds them: updates of arrays and values, a delete
-- and a re-insert
UPDATE public.all_types SET a_mood = '{ok,happy}', iv = '1 mon', hs = '"k"=>"v"', mo = '$2.00'
    WHERE id = 1;
UPDATE public.all_types SET a_d = '{2020-02-29}', a_i4 = '{7,8,9}', jb = '[1, "two", null]',
    pt = '(0,0)' WHERE id = 4;
DELETE FROM public.all_types WHERE id = 3;
INSERT INTO public.all_types (id, d, iv, tstz, a_d, a_i4, a_mood, pt)
VALUES (3, '4714-11-24 BC', '-1 years -2 mons +3 days -04:05:06.789', '4714-11-24 00:00:00+00 BC',
    '{1999-12-31}', '{}', '{sad,sad}', '(-1.25,1e-5)');
