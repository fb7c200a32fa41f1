-- Changes to a loaded Pagila database, as an application and its operator make them: NULLs into
-- columns with defaults, enums, domains, arrays, tsvector (by its trigger), bytea, rows moving
-- between the partitions of payment, deletes, and DDL while rows change.
UPDATE public.film SET rating = NULL WHERE film_id = 6;
UPDATE public.film SET release_year = NULL, length = NULL WHERE film_id = 7;
UPDATE public.film SET special_features = NULL WHERE film_id = 8;
UPDATE public.film SET special_features = array_append(special_features, 'Director''s Cut') WHERE film_id BETWEEN 10 AND 20;
UPDATE public.film SET special_features = '{}' WHERE film_id = 21;
UPDATE public.film SET description = description || ', remastered' WHERE film_id % 50 = 0;
UPDATE public.film SET rating = 'NC-17', rental_rate = 0.99 WHERE film_id BETWEEN 100 AND 110;
UPDATE public.staff SET picture = NULL WHERE staff_id = 1;
UPDATE public.staff SET picture = decode('00ffdeadbeef00', 'hex'), password = NULL WHERE staff_id = 2;
UPDATE public.customer SET activebool = false, active = NULL, email = NULL WHERE customer_id < 5;
UPDATE public.customer SET create_date = '1999-12-31' WHERE customer_id = 5;
UPDATE public.address SET address2 = NULL, postal_code = NULL WHERE address_id < 10;
UPDATE public.address SET phone = '', address2 = '' WHERE address_id = 11;
UPDATE public.actor SET first_name = 'ZOË', last_name = 'Ünal' WHERE actor_id = 1;
BEGIN;
UPDATE public.payment SET payment_date = payment_date + interval '31 days' WHERE payment_id IN (SELECT payment_id FROM public.payment_p2022_01 ORDER BY payment_id LIMIT 20);
INSERT INTO public.payment (customer_id, staff_id, rental_id, amount, payment_date) VALUES (1, 1, 1, 9.99, '2022-03-15 10:00:00+00'), (2, 2, 2, 0.00, '2022-07-31 23:59:59.999999+00');
DELETE FROM public.payment WHERE payment_id IN (SELECT payment_id FROM public.payment_p2022_06 ORDER BY payment_id LIMIT 10);
COMMIT;
BEGIN;
UPDATE public.inventory SET store_id = 2 WHERE inventory_id BETWEEN 1 AND 30;
ALTER TABLE public.customer ADD COLUMN loyalty integer DEFAULT 0;
UPDATE public.customer SET loyalty = NULL WHERE customer_id = 3;
UPDATE public.customer SET loyalty = 7 WHERE customer_id BETWEEN 10 AND 15;
ALTER TABLE public.language ALTER COLUMN name TYPE varchar(30);
UPDATE public.language SET name = 'Klingon' WHERE language_id = 6;
COMMIT;
DELETE FROM public.film_actor WHERE film_id = 1;
DELETE FROM public.film_category WHERE film_id = 2;
INSERT INTO public.category (name) VALUES ('Noir'), ('Noir');
UPDATE public.film SET fulltext = to_tsvector('english', 'edited by hand') WHERE film_id = 3;
