--
-- agg_scan: the aggregate scan (src/agg_scan.c) takes the place of a plain
-- Agg whose aggregates are all bloomfilter_agg.  Every query here runs with
-- the scan on and off and must give the same bytes; the plans show where it
-- is used and where the Agg stays.
--
CREATE TABLE scan_items (
	id int,
	g int,
	url text,
	name varchar(40),
	code char(8),
	n bigint,
	u uuid,
	b bytea,
	num numeric,
	doc jsonb
);
INSERT INTO scan_items
SELECT i, i % 3,
	CASE WHEN i % 17 = 0 THEN NULL ELSE 'https://example.org/' || i END,
	'name ' || (i % 500), 'c' || (i % 50), i * 7919,
	md5(i::text)::uuid, decode(md5(i::text), 'hex'), i / 7.0,
	jsonb_build_object('k', i % 100)
FROM generate_series(1, 20000) AS i;
ANALYZE scan_items;

-- md5 of every query result column, with the scan on and then off; 'same'
-- compares the two, 'scan' says whether the plan used it
CREATE FUNCTION scan_compare(query text, OUT same boolean, OUT scan boolean,
	OUT result text)
LANGUAGE plpgsql AS $$
DECLARE
	plan text;
	on_result text;
	off_result text;
	q text := format('SELECT string_agg(coalesce(md5(textin(record_out(r))), ''null''), '','') FROM (%s) AS r', query);
BEGIN
	SET LOCAL bloomfilter.agg_scan = on;
	EXECUTE 'EXPLAIN (COSTS OFF) ' || query INTO plan;
	scan := false;
	FOR plan IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		scan := scan OR plan LIKE '%Custom Scan (bloomfilter agg)%';
	END LOOP;
	EXECUTE q INTO on_result;
	SET LOCAL bloomfilter.agg_scan = off;
	EXECUTE q INTO off_result;
	SET LOCAL bloomfilter.agg_scan = on;
	same := on_result IS NOT DISTINCT FROM off_result;
	result := left(coalesce(on_result, 'no rows'), 12);
END
$$;

-- the plan
EXPLAIN (COSTS OFF)
SELECT bloomfilter_agg(url, 20000, 0.01) FROM scan_items;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT bloomfilter_agg(url, 20000, 0.01) IS NOT NULL AS built FROM scan_items WHERE id > 10;

-- element types: direct columns, a relabelled varchar, expressions, types
-- hashed through their send or output function; NULL elements skipped
SELECT q, (scan_compare(q)).*
FROM unnest(ARRAY[
	'SELECT bloomfilter_agg(url, 20000, 0.01) FROM scan_items',
	'SELECT bloomfilter_agg(name, 1000, 0.01) FROM scan_items',
	'SELECT bloomfilter_agg(code, 100, 0.01) FROM scan_items',
	'SELECT bloomfilter_agg(id, 20000, 0.001) FROM scan_items',
	'SELECT bloomfilter_agg(n, 20000, 0.01) FROM scan_items',
	'SELECT bloomfilter_agg(u, 20000, 0.01) FROM scan_items',
	'SELECT bloomfilter_agg(b, 20000, 0.01) FROM scan_items',
	'SELECT bloomfilter_agg(num, 20000, 0.01) FROM scan_items',
	'SELECT bloomfilter_agg(doc, 100, 0.01) FROM scan_items',
	'SELECT bloomfilter_agg(lower(url), 20000, 0.01) FROM scan_items',
	'SELECT bloomfilter_agg(id::smallint, 20000, 0.01) FROM scan_items WHERE id < 30000',
	'SELECT bloomfilter_agg(''constant''::text, 10, 0.01) FROM scan_items'
]) AS q;

-- every variant and every form of the aggregate
SELECT q, (scan_compare(q)).*
FROM unnest(ARRAY[
	'SELECT bloomfilter_agg(url) FROM scan_items',
	'SELECT bloomfilter_agg(url, 0.001) FROM scan_items',
	'SELECT bloomfilter_agg(url, 20000, 0.01, ''classic'') FROM scan_items',
	'SELECT bloomfilter_agg(url, 20000, 0.01, ''counting'') FROM scan_items',
	'SELECT bloomfilter_agg(url, 20000, 0.01, ''cuckoo'') FROM scan_items',
	'SELECT bloomfilter_agg(url, 1000, 0.01, ''scalable'') FROM scan_items',
	'SELECT bloomfilter_agg(url, 20000, 0.01, ''blocked'') FROM scan_items'
]) AS q;

-- query shapes: several aggregates, the same one twice, HAVING, WHERE, a
-- join below, an empty input, sizing from a subquery or from the first row,
-- a correlated subquery (rescans), UNION ALL, the scan in a subquery
SELECT q, (scan_compare(q)).*
FROM unnest(ARRAY[
	'SELECT bloomfilter_agg(url, 20000, 0.01), bloomfilter_agg(id, 20000, 0.01, ''classic'') FROM scan_items',
	'SELECT bloomfilter_agg(url, 20000, 0.01), bloomfilter_agg(url, 20000, 0.01) FROM scan_items',
	'SELECT bloomfilter_agg(url, 20000, 0.01) @> ''https://example.org/5''::text AS has5 FROM scan_items',
	'SELECT bloomfilter_agg(url, 20000, 0.01) FROM scan_items HAVING bloomfilter_agg(url, 20000, 0.01) @> ''https://example.org/5''::text',
	'SELECT bloomfilter_agg(url, 20000, 0.01) FROM scan_items HAVING bloomfilter_agg(url, 20000, 0.01) @> ''nowhere''::text',
	'SELECT bloomfilter_agg(url, 20000, 0.01) FROM scan_items WHERE g = 1 AND id % 5 <> 0',
	'SELECT bloomfilter_agg(a.url, 20000, 0.01) FROM scan_items a JOIN scan_items b ON a.id = b.id + 1 WHERE b.g = 2',
	'SELECT bloomfilter_agg(url, 20000, 0.01) FROM scan_items WHERE false',
	'SELECT bloomfilter_agg(url, 20000, 0.01) FROM scan_items WHERE url IS NULL',
	'SELECT bloomfilter_agg(url, (SELECT count(*) FROM scan_items), 0.01) FROM scan_items',
	'SELECT bloomfilter_agg(url, 20000 + 0 * length(url), 0.01) FROM scan_items',
	'SELECT g, (SELECT bloomfilter_agg(url, 1000, 0.01) FROM scan_items s WHERE s.g = o.g AND s.id < 3000) FROM (VALUES (0), (1), (2), (7)) AS o(g)',
	'SELECT bloomfilter_agg(url, 100, 0.01) FROM scan_items WHERE g = 0 UNION ALL SELECT bloomfilter_agg(url, 100, 0.01) FROM scan_items WHERE g = 1',
	'SELECT f @> ''https://example.org/5''::text FROM (SELECT bloomfilter_agg(url, 20000, 0.01) AS f FROM scan_items) AS s',
	'SELECT bloomfilter_agg(''solo''::text, 10, 0.01)'
]) AS q;

-- left to the Agg: other aggregates beside it, GROUP BY, FILTER, ORDER BY,
-- DISTINCT, volatile arguments, a filter of filters
SELECT q, (scan_compare(q)).*
FROM unnest(ARRAY[
	'SELECT bloomfilter_agg(url, 20000, 0.01), count(*) FROM scan_items',
	'SELECT g, bloomfilter_agg(url, 20000, 0.01) FROM scan_items GROUP BY g ORDER BY g',
	'SELECT bloomfilter_agg(url, 20000, 0.01) FILTER (WHERE g = 1) FROM scan_items',
	'SELECT bloomfilter_agg(url, 20000, 0.01 ORDER BY id) FROM scan_items',
	'SELECT bloomfilter_agg(DISTINCT url, 20000, 0.01) FROM scan_items',
	'SELECT bloomfilter_agg(url || (random() * 0)::int, 20000, 0.01) FROM scan_items',
	'SELECT bloomfilter_agg(url, 20000, 0.01) FROM scan_items HAVING count(*) > 0'
]) AS q;

-- errors are those of the Agg, and come only when a row has an element
SET bloomfilter.agg_scan = on;
SELECT bloomfilter_agg(url, NULL, 0.01) FROM scan_items;
SELECT bloomfilter_agg(url, 20000, NULL) FROM scan_items;
SELECT bloomfilter_agg(url, 20000, 0.01, 'bogus') FROM scan_items;
SELECT bloomfilter_agg(url, 0, 0.01) FROM scan_items;
SELECT bloomfilter_agg(url, NULL, 0.01) IS NULL AS no_rows_no_error FROM scan_items WHERE false;
SELECT bloomfilter_agg(f, 10, 0.01) FROM (SELECT bloomfilter_create(10, 0.01) AS f) AS s;
-- an aggregate of one's own over the same transition function, with an
-- initial value, is not bloomfilter_agg: the Agg computes it
DO $$
BEGIN
	EXECUTE format('CREATE AGGREGATE scan_seeded(text, bigint, float8) (
		SFUNC = bloomfilter_agg_trans, STYPE = bloomfilter, INITCOND = %L)',
		bloomfilter_add(bloomfilter_create(20000, 0.01), 'seed'::text)::text);
END
$$;
EXPLAIN (COSTS OFF) SELECT scan_seeded(url, 10, 0.01) FROM scan_items;
SELECT scan_seeded(url, 10, 0.01) @> 'seed'::text AS has_seed,
	scan_seeded(url, 10, 0.01) @> 'https://example.org/5'::text AS has_row
FROM scan_items;
DROP AGGREGATE scan_seeded(text, bigint, float8);

-- a parallel plan: the scan below Gather in each worker, Finalize Aggregate
-- merging with the combine function; the same bytes as the serial Agg
CALL force_parallel_plans();
EXPLAIN (COSTS OFF)
SELECT bloomfilter_agg(url, 20000, 0.01) FROM scan_items;
SELECT q, (scan_compare(q)).*
FROM unnest(ARRAY[
	'SELECT bloomfilter_agg(url, 20000, 0.01) FROM scan_items',
	'SELECT bloomfilter_agg(url, 20000, 0.01, ''classic''), bloomfilter_agg(u, 20000, 0.01) FROM scan_items',
	'SELECT bloomfilter_agg(url, 20000, 0.01) FROM scan_items HAVING bloomfilter_agg(url, 20000, 0.01) @> ''https://example.org/5''::text'
]) AS q;
-- the workers hand their filters to the leader through segments of their
-- own (the Gather carries one filter); with the leader not taking part,
-- every worker returns its filter through the Gather instead
SET parallel_leader_participation = off;
SELECT q, (scan_compare(q)).*
FROM unnest(ARRAY[
	'SELECT bloomfilter_agg(url, 20000, 0.01) FROM scan_items',
	'SELECT bloomfilter_agg(url, 20000, 0.01, ''counting''), bloomfilter_agg(u, 20000, 0.01) FROM scan_items'
]) AS q;
RESET parallel_leader_participation;
-- workers with few or no rows (a selective qual)
SELECT q, (scan_compare(q)).*
FROM unnest(ARRAY[
	'SELECT bloomfilter_agg(url, 20000, 0.01) FROM scan_items WHERE id < 40',
	'SELECT bloomfilter_agg(url, 20000, 0.01) FROM scan_items WHERE id < 0'
]) AS q;
-- an error in whichever process meets the bad row ends the query, whether
-- the leader is waiting for the workers or not (terse: which process it was
-- varies)
\set VERBOSITY terse
SELECT bloomfilter_agg(url || (1 / (id - 15000)), 20000, 0.01) FROM scan_items;
SELECT bloomfilter_agg(url || (1 / (id - 2)), 20000, 0.01) FROM scan_items;
\set VERBOSITY default
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;

-- a scroll cursor: the planner puts a Material above the scan
BEGIN;
DECLARE scan_cursor SCROLL CURSOR FOR
	SELECT bloomfilter_agg(url, 20000, 0.01) IS NOT NULL AS built FROM scan_items;
FETCH NEXT FROM scan_cursor;
FETCH PRIOR FROM scan_cursor;
FETCH NEXT FROM scan_cursor;
COMMIT;

-- the first query of a new session already gets the scan: costing the
-- aggregate calls the transition function's planner support function,
-- which loads the library and its hook
\c
EXPLAIN (COSTS OFF)
SELECT bloomfilter_agg(url, 20000, 0.01) FROM scan_items;

DROP FUNCTION scan_compare(text);
DROP TABLE scan_items;

--
-- Sizing arguments that are not fixed for the query (a column in them):
-- the Agg evaluates them on every row, NULL elements included, so the scan
-- is not used and their errors are the Agg's
--
CREATE TABLE scan_sizing AS SELECT g AS x FROM generate_series(1, 200) g;
INSERT INTO scan_sizing VALUES (NULL);
EXPLAIN (COSTS OFF)
SELECT bloomfilter_agg(x, 100 + 0 / (x - 150), 0.01) FROM scan_sizing;
-- ERROR:  division by zero
SELECT bloomfilter_agg(x, 100 + 0 / (x - 150), 0.01) IS NULL FROM scan_sizing;
-- ERROR:  division by zero
SELECT bloomfilter_agg(x, 100 + 0 / coalesce(x, 0), 0.01) IS NULL FROM scan_sizing;
-- constants and parameters still take the scan
PREPARE scan_sized(bigint) AS SELECT bloomfilter_agg(x, $1, 0.01) FROM scan_sizing;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE scan_sized(1000);
RESET plan_cache_mode;
DEALLOCATE scan_sized;
DROP TABLE scan_sizing;

-- the element's hasher is set up on the first non-NULL element, as the
-- Agg does: a type that is refused fails only when there is one
CREATE TABLE scan_reg (c regclass);
SELECT bloomfilter_agg(c, 100, 0.01) IS NULL AS empty_is_null FROM scan_reg;
INSERT INTO scan_reg VALUES (NULL);
SELECT bloomfilter_agg(c, 100, 0.01) IS NULL AS nulls_are_null FROM scan_reg;
INSERT INTO scan_reg VALUES ('pg_class');
-- ERROR:  type regclass cannot be an element
SELECT bloomfilter_agg(c, 100, 0.01) FROM scan_reg;
DROP TABLE scan_reg;
