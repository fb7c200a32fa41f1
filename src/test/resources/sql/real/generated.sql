-- Generated columns: stored ones are published (PostgreSQL 18, publish_generated_columns), virtual
-- ones never are.
CREATE TABLE public.gc_orders (id int PRIMARY KEY, qty int, price numeric(8,2),
    total numeric(10,2) GENERATED ALWAYS AS (qty * price) STORED,
    doubled int GENERATED ALWAYS AS (qty * 2) VIRTUAL);
INSERT INTO public.gc_orders (id, qty, price) VALUES (1, 2, 3.50), (2, NULL, 1.00), (3, 4, NULL);
UPDATE public.gc_orders SET qty = 10 WHERE id = 1;
BEGIN;
UPDATE public.gc_orders SET price = 2.25 WHERE id = 3;
INSERT INTO public.gc_orders (id, qty, price) VALUES (4, 1, 9.99);
DELETE FROM public.gc_orders WHERE id = 2;
COMMIT;
