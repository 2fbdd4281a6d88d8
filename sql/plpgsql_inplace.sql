--
-- plpgsql_inplace: adding to and removing from a PL/pgSQL variable.  On
-- PostgreSQL 18 the first add of a loop copies the filter into an expanded
-- object and the later ones change it in place (inplace.c); before 18 every
-- add copies.  Everything a user can see is the same on every version: the
-- bytes, what other variables, rows, records and arrays hold, what an
-- exception handler sees.  Only the count of copies differs, and the test
-- asserts it where in-place updates exist.
--
CREATE TABLE ip_variants (v text);
INSERT INTO ip_variants VALUES ('blocked'), ('classic'), ('counting'), ('scalable'), ('cuckoo');

-- whole-filter copies made by add and remove so far in this session
CREATE FUNCTION ip_copies() RETURNS bigint
LANGUAGE sql AS $$ SELECT current_setting('bloomfilter.debug_filter_copies')::bigint $$;
-- does the server let PL/pgSQL hand a variable over (PostgreSQL 18)?
CREATE FUNCTION ip_in_place() RETURNS boolean
LANGUAGE sql AS $$ SELECT current_setting('server_version_num')::int >= 180000 $$;

-- every way of adding in a loop, against the same adds done in SQL (where
-- no variable is involved and every add copies)
CREATE FUNCTION ip_loop(variant text, how text, n int) RETURNS bloomfilter
LANGUAGE plpgsql AS $$
DECLARE
	f bloomfilter := bloomfilter_create(n / 4, 0.01, variant);
BEGIN
	FOR i IN 1 .. n LOOP
		CASE how
		WHEN 'text ||' THEN f := f || ('item ' || i);
		WHEN 'text add' THEN f := bloomfilter_add(f, 'item ' || i);
		WHEN 'int add' THEN f := bloomfilter_add(f, i);
		WHEN 'bigint add' THEN f := bloomfilter_add(f, i::bigint);
		WHEN 'smallint add' THEN f := bloomfilter_add(f, i::smallint);
		WHEN 'bytea add' THEN f := bloomfilter_add(f, ('item ' || i)::bytea);
		WHEN 'uuid add' THEN f := bloomfilter_add(f, md5(i::text)::uuid);
		WHEN 'numeric ||' THEN f := f || (i / 7.0);
		END CASE;
	END LOOP;
	RETURN f;
END $$;

CREATE FUNCTION ip_sql(variant text, how text, n int) RETURNS bloomfilter
LANGUAGE sql AS $$
	WITH RECURSIVE r(i, f) AS (
		SELECT 0, bloomfilter_create(n / 4, 0.01, variant)
		UNION ALL
		SELECT i + 1, CASE how
			WHEN 'text ||' THEN f || ('item ' || (i + 1))
			WHEN 'text add' THEN bloomfilter_add(f, 'item ' || (i + 1))
			WHEN 'int add' THEN bloomfilter_add(f, i + 1)
			WHEN 'bigint add' THEN bloomfilter_add(f, (i + 1)::bigint)
			WHEN 'smallint add' THEN bloomfilter_add(f, (i + 1)::smallint)
			WHEN 'bytea add' THEN bloomfilter_add(f, ('item ' || (i + 1))::bytea)
			WHEN 'uuid add' THEN bloomfilter_add(f, md5((i + 1)::text)::uuid)
			WHEN 'numeric ||' THEN f || ((i + 1) / 7.0)
			END
		FROM r WHERE i < n)
	SELECT f FROM r WHERE i = n
$$;

-- 1. the same bytes, every variant and overload (the scalable and cuckoo
--    filters are sized for a quarter of what is added, so they grow)
SELECT how, count(*) AS variants,
       bool_and(ip_loop(v, how, 400)::bytea = ip_sql(v, how, 400)::bytea) AS same_bytes
FROM ip_variants,
     unnest(ARRAY['text ||', 'text add', 'int add', 'bigint add', 'smallint add',
                  'bytea add', 'uuid add', 'numeric ||']) AS how
GROUP BY how ORDER BY how;

-- 2. the copies: at most one per loop where the variable can be handed over
SELECT ip_copies() AS before \gset
SELECT ip_loop('blocked', 'text ||', 1000) IS NOT NULL AS built;
SELECT ip_copies() - :before AS copies \gset
SELECT CASE WHEN ip_in_place() THEN :copies = 1 ELSE :copies = 1000 END AS copies_as_expected;

-- 3. removing in a loop: counting and cuckoo, the same bytes as in SQL
CREATE FUNCTION ip_remove_loop(variant text) RETURNS bloomfilter
LANGUAGE plpgsql AS $$
DECLARE
	f bloomfilter := bloomfilter_create(500, 0.01, variant);
BEGIN
	FOR i IN 1 .. 200 LOOP
		f := f || i;
	END LOOP;
	FOR i IN 1 .. 200 BY 2 LOOP
		f := bloomfilter_remove(f, i);
	END LOOP;
	RETURN f;
END $$;
CREATE FUNCTION ip_remove_sql(variant text) RETURNS bloomfilter
LANGUAGE sql AS $$
	WITH RECURSIVE a(i, f) AS (
		SELECT 0, bloomfilter_create(500, 0.01, variant)
		UNION ALL
		SELECT i + 1, f || (i + 1) FROM a WHERE i < 200),
	r(i, f) AS (
		SELECT -1, f FROM a WHERE i = 200
		UNION ALL
		SELECT i + 2, bloomfilter_remove(f, i + 2) FROM r WHERE i < 199)
	SELECT f FROM r WHERE i = 199
$$;
SELECT v, ip_remove_loop(v)::bytea = ip_remove_sql(v)::bytea AS same_bytes,
       (SELECT count(*) FROM generate_series(2, 200, 2) i WHERE ip_remove_loop(v) @> i) AS kept_found
FROM ip_variants WHERE v IN ('counting', 'cuckoo') ORDER BY v;

-- 4. aliasing: a copy taken before the adds does not see them; the element
--    may be the variable itself; a filter read from a row is not changed
CREATE TABLE ip_rows (id int PRIMARY KEY, f bloomfilter);
INSERT INTO ip_rows VALUES (1, bloomfilter_create(100, 0.01) || 'stored'::text);
CREATE FUNCTION ip_alias() RETURNS TABLE (what text, ok boolean)
LANGUAGE plpgsql AS $$
DECLARE
	f bloomfilter := bloomfilter_create(100, 0.01);
	g bloomfilter;
	h bloomfilter;
	before bytea;
BEGIN
	f := f || 'a'::text;
	g := f;
	f := f || 'b'::text;
	f := f || 'c'::text;
	RETURN QUERY SELECT 'an earlier copy misses the later adds', g @> 'a'::text AND NOT g @> 'b'::text AND NOT g @> 'c'::text;
	RETURN QUERY SELECT 'the variable has them', f @> 'a'::text AND f @> 'b'::text AND f @> 'c'::text;
	-- the element is the variable's own text form, taken before the add
	before := f::bytea;
	f := bloomfilter_add(f, f::text);
	RETURN QUERY SELECT 'element made from the variable', f @> before::bloomfilter::text AND f::bytea <> before;
	-- a filter read from a table, then added to twice
	SELECT r.f INTO h FROM ip_rows r WHERE id = 1;
	h := h || 'x'::text;
	h := h || 'y'::text;
	RETURN QUERY SELECT 'the row keeps its filter', (SELECT NOT r.f @> 'x'::text AND r.f @> 'stored'::text FROM ip_rows r WHERE id = 1);
	RETURN QUERY SELECT 'the variable read from it has both', h @> 'x'::text AND h @> 'y'::text AND h @> 'stored'::text;
	-- written back, then added to again: the row holds what was written
	UPDATE ip_rows SET f = h WHERE id = 1;
	h := h || 'z'::text;
	RETURN QUERY SELECT 'the row holds what was written', (SELECT r.f @> 'y'::text AND NOT r.f @> 'z'::text FROM ip_rows r WHERE id = 1);
END $$;
SELECT * FROM ip_alias();

-- 5. records, arrays, INOUT: the variable is a field or an element
CREATE TYPE ip_pair AS (name text, f bloomfilter);
CREATE FUNCTION ip_containers() RETURNS TABLE (what text, ok boolean)
LANGUAGE plpgsql AS $$
DECLARE
	r ip_pair := ROW('r', bloomfilter_create(100, 0.01));
	r2 ip_pair;
	a bloomfilter[] := ARRAY[bloomfilter_create(100, 0.01), bloomfilter_create(100, 0.01)];
	a2 bloomfilter[];
BEGIN
	FOR i IN 1 .. 50 LOOP
		r.f := r.f || i;
		a[2] := a[2] || i;
	END LOOP;
	r2 := r;
	a2 := a;
	r.f := r.f || 1000;
	a[2] := a[2] || 1000;
	RETURN QUERY SELECT 'record field', r.f @> 25 AND r.f @> 1000 AND NOT r2.f @> 1000 AND r2.f @> 50;
	RETURN QUERY SELECT 'array element', a[2] @> 25 AND a[2] @> 1000 AND NOT a2[2] @> 1000 AND NOT a[1] @> 25;
END $$;
SELECT * FROM ip_containers();

CREATE FUNCTION ip_inout(INOUT f bloomfilter, n int) LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1 .. n LOOP
		f := f || i;
	END LOOP;
END $$;
SELECT ip_inout(f, 100)::bytea = bloomfilter_add_all(f, ARRAY(SELECT generate_series(1, 100)))::bytea AS inout_same,
       f::bytea = (SELECT r.f::bytea FROM ip_rows r WHERE id = 1) AS argument_unchanged
FROM ip_rows WHERE id = 1;

-- 6. errors: a failed add or remove leaves the variable as it was.  A
--    cuckoo filter refuses a 9th copy of an element; a blocked filter
--    cannot remove.
CREATE FUNCTION ip_errors() RETURNS TABLE (what text, sqlstate text, unchanged boolean)
LANGUAGE plpgsql AS $$
DECLARE
	f bloomfilter;
	before bytea;
BEGIN
	f := bloomfilter_create(100, 0.01, 'cuckoo');
	FOR i IN 1 .. 8 LOOP
		f := f || 'again'::text;
	END LOOP;
	before := f::bytea;
	BEGIN
		f := f || 'again'::text;
	EXCEPTION WHEN OTHERS THEN
		RETURN QUERY SELECT 'cuckoo 9th copy', SQLSTATE, f::bytea = before;
	END;
	f := bloomfilter_create(10, 0.01, 'blocked');
	f := f || 'a'::text;
	before := f::bytea;
	BEGIN
		f := bloomfilter_remove(f, 'a'::text);
	EXCEPTION WHEN OTHERS THEN
		RETURN QUERY SELECT 'remove from blocked', SQLSTATE, f::bytea = before;
	END;
	-- a handler that saw the error: the adds before it in the block are kept
	-- or not as PL/pgSQL defines (the variable is not rolled back)
	f := bloomfilter_create(100, 0.01);
	BEGIN
		f := f || 'kept'::text;
		PERFORM 1 / 0;
	EXCEPTION WHEN division_by_zero THEN
		RETURN QUERY SELECT 'add before an error in the block', SQLSTATE, f @> 'kept'::text;
	END;
END $$;
SELECT * FROM ip_errors();

-- 7. a trigger that adds to NEW's filter, a cursor row's filter
CREATE TABLE ip_trig (id int, tag text, f bloomfilter);
CREATE FUNCTION ip_trig_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.f := NEW.f || NEW.tag;
	NEW.f := NEW.f || ('also ' || NEW.tag);
	RETURN NEW;
END $$;
CREATE TRIGGER ip_trig_add BEFORE INSERT OR UPDATE ON ip_trig
FOR EACH ROW EXECUTE FUNCTION ip_trig_add();
INSERT INTO ip_trig SELECT i, 't' || i, bloomfilter_create(10, 0.01) FROM generate_series(1, 3) i;
UPDATE ip_trig SET tag = 'u' || id;
SELECT id, f @> ('t' || id) AS has_t, f @> ('u' || id) AS has_u, f @> ('also u' || id) AS has_also_u
FROM ip_trig ORDER BY id;

CREATE FUNCTION ip_cursor() RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	c CURSOR FOR SELECT f FROM ip_trig ORDER BY id;
	g bloomfilter;
	ok boolean := true;
BEGIN
	FOR row IN c LOOP
		g := row.f;
		g := g || 'extra'::text;
		ok := ok AND g @> 'extra'::text AND NOT row.f @> 'extra'::text;
	END LOOP;
	RETURN ok AND NOT EXISTS (SELECT 1 FROM ip_trig WHERE f @> 'extra'::text);
END $$;
SELECT ip_cursor() AS cursor_rows_unchanged;

-- 8. a user aggregate whose state function is bloomfilter_add; a generic
--    plan whose parameter is the filter; an SQL function inlined in a loop
DO $$
BEGIN
	EXECUTE format('CREATE AGGREGATE ip_agg(text) (SFUNC = bloomfilter_add, STYPE = bloomfilter, INITCOND = %L)',
				   bloomfilter_create(1000, 0.01)::text);
END $$;
SELECT ip_agg('item ' || i ORDER BY i)::bytea =
       bloomfilter_add_all(bloomfilter_create(1000, 0.01), array_agg('item ' || i ORDER BY i))::bytea AS user_agg_same
FROM generate_series(1, 1000) i;

PREPARE ip_prep(bloomfilter, text) AS SELECT bloomfilter_add($1, $2) AS f;
SET plan_cache_mode = force_generic_plan;
SELECT f AS stored FROM ip_rows WHERE id = 1 \gset
CREATE TEMP TABLE ip_prep_out AS EXECUTE ip_prep(:'stored', 'generic');
SELECT (SELECT f @> 'generic'::text FROM ip_prep_out) AS generic_has_it,
       (SELECT NOT f @> 'generic'::text FROM ip_rows WHERE id = 1) AS row_unchanged,
       ip_loop('scalable', 'text ||', 400)::bytea = ip_sql('scalable', 'text ||', 400)::bytea AS generic_loop_same;
RESET plan_cache_mode;
DEALLOCATE ip_prep;

CREATE FUNCTION ip_add_sql(f bloomfilter, x text) RETURNS bloomfilter
LANGUAGE sql IMMUTABLE AS 'SELECT f || x';
CREATE FUNCTION ip_loop_sqlfn(n int) RETURNS bloomfilter LANGUAGE plpgsql AS $$
DECLARE
	f bloomfilter := bloomfilter_create(n / 4, 0.01, 'cuckoo');
BEGIN
	FOR i IN 1 .. n LOOP
		f := ip_add_sql(f, 'item ' || i);
	END LOOP;
	RETURN f;
END $$;
SELECT ip_loop_sqlfn(400)::bytea = ip_sql('cuckoo', 'text ||', 400)::bytea AS sql_function_same;

-- 9. what a loop may change in place is only its own variable: an aggregate's
--    result referenced twice (one transition state), per group, in a window,
--    a union aggregate; nested calls; a called function's parameter
CREATE TABLE ip_elems AS SELECT 'x' || g AS x, g % 3 AS grp FROM generate_series(1, 1000) g;
SELECT bloomfilter_add(bloomfilter_agg(x, 100000, 0.001), 'y'::text) @> 'y'::text AS added,
       bloomfilter_agg(x, 100000, 0.001) @> 'y'::text AS other_reference_has_it
FROM ip_elems;
SELECT grp, bloomfilter_add(bloomfilter_agg(x, 100000, 0.001), 'y'::text) @> 'y'::text AS added,
       bloomfilter_agg(x, 100000, 0.001) @> 'y'::text AS other_reference_has_it
FROM ip_elems GROUP BY grp ORDER BY grp;
SELECT count(*) FILTER (WHERE a @> 'y'::text) AS added,
       count(*) FILTER (WHERE w @> 'y'::text) AS other_reference_has_it
FROM (SELECT bloomfilter_add(bloomfilter_agg(x, 100000, 0.001) OVER w, 'y'::text) AS a,
             bloomfilter_agg(x, 100000, 0.001) OVER w AS w
      FROM ip_elems WINDOW w AS (ORDER BY x ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)) s;
SELECT bloomfilter_add(bloomfilter_union_agg(f), 'z'::text) @> 'z'::text AS added,
       bloomfilter_union_agg(f) @> 'z'::text AS other_reference_has_it
FROM (SELECT bloomfilter_agg(x, 100000, 0.001) AS f FROM ip_elems GROUP BY grp) s;

CREATE FUNCTION ip_param_loop(f bloomfilter) RETURNS bloomfilter LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1 .. 10 LOOP
		f := f || ('p' || i);
	END LOOP;
	RETURN f;
END $$;
CREATE FUNCTION ip_nested() RETURNS TABLE (what text, ok boolean) LANGUAGE plpgsql AS $$
DECLARE
	g bloomfilter := bloomfilter_create(100, 0.01);
	h bloomfilter;
BEGIN
	g := g || 'a'::text;
	g := g || 'b'::text;
	h := ip_param_loop(g);
	RETURN QUERY SELECT 'a called function adds to its parameter, not to the caller''s variable',
		h @> 'p1'::text AND NOT g @> 'p1'::text;
	g := bloomfilter_add(bloomfilter_add(g, 'c'::text), 'd'::text);
	RETURN QUERY SELECT 'nested adds', g @> 'c'::text AND g @> 'd'::text AND g @> 'a'::text;
	g := NULL;
	g := g || 'x'::text;
	RETURN QUERY SELECT 'a NULL filter stays NULL', g IS NULL;
	-- a call site whose result is stored, not assigned back (after the
	-- first row it returns plain values, inplace.c)
	CREATE TEMP TABLE ip_stored (i int, f bloomfilter);
	g := bloomfilter_create(100, 0.01);
	FOR i IN 1 .. 5 LOOP
		INSERT INTO ip_stored VALUES (i, g || ('s' || i));
	END LOOP;
	RETURN QUERY SELECT 'each stored row has its element and no other',
		(SELECT bool_and(f @> ('s' || i)) AND count(*) = 5 FROM ip_stored) AND
		NOT EXISTS (SELECT 1 FROM ip_stored a, ip_stored b WHERE a.i <> b.i AND a.f @> ('s' || b.i)) AND
		NOT g @> 's1'::text;
	DROP TABLE ip_stored;
END $$;
SELECT * FROM ip_nested();

DROP TABLE ip_variants, ip_rows, ip_trig, ip_prep_out, ip_elems;
DROP AGGREGATE ip_agg(text);
DROP FUNCTION ip_copies(), ip_in_place(), ip_loop(text, text, int), ip_sql(text, text, int),
	ip_remove_loop(text), ip_remove_sql(text), ip_alias(), ip_containers(), ip_inout(bloomfilter, int), ip_errors(),
	ip_trig_add(), ip_cursor(), ip_add_sql(bloomfilter, text), ip_loop_sqlfn(int),
	ip_param_loop(bloomfilter), ip_nested();
DROP TYPE ip_pair;
