-- The event trigger function that logs DDL the warehouse follows, in the DDL's own transaction:
-- renames of tables; renames, additions and type changes of columns (a column keeps its number
-- when renamed or retyped; a number not known before is an added column); changes of a table's
-- primary key. ${...} are filled in by PostgresCapture.

-- A table's primary key columns, quoted, in key order; NULL for none.
CREATE OR REPLACE FUNCTION ${lab}.key_columns(rel oid) RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp AS $$
  SELECT string_agg(quote_ident(a.attname), ',' ORDER BY k.ord)
  FROM pg_index i
  CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
  JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
  WHERE i.indrelid = rel AND i.indisprimary
$$;

CREATE OR REPLACE FUNCTION ${lab}.capture_ddl() RETURNS event_trigger LANGUAGE plpgsql
SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  r record;
  col record;
  old text;
  nm text;
  dflt text;
  missing boolean;
  missingval text;
  leaves bigint;
  styles text[];
  keycols text;
  oldkey text;
  labfull boolean;
BEGIN
  FOR r IN SELECT DISTINCT d.objid, c.relname, c.relreplident, c.relispartition, c.relkind,
        n.nspname
      FROM pg_event_trigger_ddl_commands() d
      JOIN pg_class c ON c.oid = d.objid
      JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE d.classid = 'pg_class'::regclass AND c.relkind IN ('r', 'p') AND n.nspname IN (${schemas})
  LOOP
    nm := r.nspname || '.' || r.relname;
    keycols := ${lab}.key_columns(r.objid);
    SELECT name, key_columns, full_by_lab INTO old, oldkey, labfull
      FROM ${table_names} WHERE relid = r.objid;
    IF old IS NULL THEN
      INSERT INTO ${table_names} (relid, name, key_columns) VALUES (r.objid, nm, keycols);
    ELSE
      IF old <> nm THEN
        INSERT INTO ${ddl} (kind, name, new_name) VALUES ('rename', old, nm);
        UPDATE ${table_names} SET name = nm WHERE relid = r.objid;
      END IF;
      IF oldkey IS DISTINCT FROM keycols THEN
        -- logged before the identity below changes: that ALTER runs this function again
        UPDATE ${table_names} SET key_columns = keycols WHERE relid = r.objid;
        IF NOT r.relispartition THEN
          INSERT INTO ${ddl} (kind, name, new_name, type_text)
            VALUES ('key_change', nm, nm, keycols);
        END IF;
      END IF;
    END IF;
    ${keyless}
    IF NOT r.relispartition AND EXISTS (SELECT 1 FROM ${column_names} WHERE relid = r.objid) THEN
      FOR col IN SELECT a.attname, format_type(a.atttypid, a.atttypmod) AS type, t.typname,
            a.atttypmod, a.atthasmissing, a.attmissingval::text AS attmissingval,
            ad.adbin IS NOT NULL AS has_default,
            k.name AS was, k.type AS was_type
          FROM pg_attribute a
          JOIN pg_type t ON t.oid = a.atttypid
          LEFT JOIN ${column_names} k ON k.relid = a.attrelid AND k.attnum = a.attnum
          LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
          WHERE a.attrelid = r.objid AND a.attnum > 0 AND NOT a.attisdropped
          ORDER BY a.attnum
      LOOP
        IF col.was IS NULL THEN
          -- the value the rows there were hold: a constant default is kept as the column's
          -- missing value; a volatile one rewrote the table, each row with a value of its own
          -- a partitioned table keeps it in its partitions, which have the storage
          missing := col.atthasmissing;
          missingval := col.attmissingval;
          leaves := 0;
          IF r.relkind = 'p' THEN
            SELECT count(*) INTO leaves FROM pg_partition_tree(r.objid) p WHERE p.isleaf;
            SELECT a.atthasmissing, a.attmissingval::text INTO missing, missingval
              FROM pg_partition_tree(r.objid) p
              JOIN pg_attribute a ON a.attrelid = p.relid AND a.attname = col.attname
              WHERE p.isleaf LIMIT 1;
          END IF;
          dflt := NULL;
          IF missing THEN
            -- in the forms the sink reads, whatever the session's styles
            styles := ARRAY[current_setting('DateStyle'), current_setting('IntervalStyle')];
            PERFORM set_config('DateStyle', 'ISO, YMD', true);
            PERFORM set_config('IntervalStyle', 'iso_8601', true);
            -- the type's output, as the events carry it (a cast to text drops char(n)'s padding)
            EXECUTE format('SELECT CASE WHEN ($1::%1$s[])[1] IS NULL THEN NULL'
                || ' ELSE format(''%%s'', ($1::%1$s[])[1]) END', col.type) INTO dflt
              USING missingval;
            PERFORM set_config('DateStyle', styles[1], true);
            PERFORM set_config('IntervalStyle', styles[2], true);
          END IF;
          INSERT INTO ${ddl} (kind, name, new_name, new_column, type_name, type_mod, type_text,
              default_text, volatile_default)
            VALUES ('add_column', nm, nm, col.attname, col.typname, col.atttypmod, col.type, dflt,
              col.has_default AND NOT COALESCE(missing, false)
                AND (r.relkind <> 'p' OR leaves > 0));
        ELSE
          IF col.attname <> col.was THEN
            INSERT INTO ${ddl} (kind, name, new_name, old_column, new_column)
              VALUES ('rename_column', nm, nm, col.was, col.attname);
          END IF;
          IF col.was_type IS NOT NULL AND col.type <> col.was_type THEN
            INSERT INTO ${ddl} (kind, name, new_name, new_column, type_name, type_mod, type_text,
                old_type_text)
              VALUES ('alter_type', nm, nm, col.attname, col.typname, col.atttypmod, col.type,
                col.was_type);
          END IF;
        END IF;
      END LOOP;
    END IF;
    DELETE FROM ${column_names} WHERE relid = r.objid;
    INSERT INTO ${column_names}
      SELECT a.attrelid, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod)
      FROM pg_attribute a WHERE a.attrelid = r.objid AND a.attnum > 0 AND NOT a.attisdropped;
  END LOOP;
END $$
