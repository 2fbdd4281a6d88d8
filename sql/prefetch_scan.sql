--
-- prefetch_scan: the custom scan that tests  WHERE f @> col  a few rows
-- ahead (src/prefetch_scan.c) must return exactly what the sequential scan
-- with the same qual returns, in every shape of query it is planned for:
-- @> and <@, other quals beside it, NULL elements and a NULL filter, every
-- element type, a constant filter, a subquery's filter, a filter that
-- changes per outer row (rescans), LIMIT, cursors, UPDATE and DELETE (which
-- need the row's ctid), and filters of every variant.  It is planned only
-- for a filter fixed for the scan and an element that is a column hashed
-- without an SQL function, on a heap table scanned on its own (each child of
-- an inheritance tree or partitioned table, never the parent).  Reading
-- ahead must not show: under LIMIT, EXISTS, cursors and rescans a query's
-- rows, errors and side effects are those of the plain scan.
--
SET client_min_messages = warning;
DROP ROLE IF EXISTS regress_ps_reader;
RESET client_min_messages;
SET max_parallel_workers_per_gather = 0;

CREATE TABLE ps_items (id int, t text, b bigint, u uuid, note text);
INSERT INTO ps_items
SELECT i, 'item ' || i, i * 7, md5(i::text)::uuid,
       CASE WHEN i % 10 = 0 THEN NULL ELSE 'n' || i % 3 END
FROM generate_series(1, 20000) AS i;
INSERT INTO ps_items VALUES (0, NULL, NULL, NULL, 'nulls');
ANALYZE ps_items;

-- filters of the even items, one per variant, and one holding nothing
CREATE TABLE ps_filters (variant text, f bloomfilter);
INSERT INTO ps_filters
SELECT v, bloomfilter_agg('item ' || i, 10000, 0.01, v)
FROM unnest(ARRAY['blocked', 'classic', 'counting', 'scalable', 'cuckoo']) AS v,
     generate_series(2, 20000, 2) AS i
GROUP BY v;
INSERT INTO ps_filters VALUES ('empty', bloomfilter_create(100)), ('null', NULL);

-- the plan: the custom scan, with the filter test out of the qual
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = 'blocked') @> t;
EXPLAIN (COSTS OFF)
SELECT id FROM ps_items WHERE t <@ (SELECT f FROM ps_filters WHERE variant = 'blocked') AND id > 100;
-- not for a filter that changes per row, nor when turned off
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ps_items i, ps_filters f WHERE f.f @> i.t;
SET bloomfilter.prefetch_scan = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = 'blocked') @> t;
RESET bloomfilter.prefetch_scan;
-- nor under row-level security, whose quals must be tested first (the
-- filter test is not leakproof)
CREATE TABLE ps_secure AS SELECT * FROM ps_items;
ALTER TABLE ps_secure ENABLE ROW LEVEL SECURITY;
CREATE POLICY ps_even ON ps_secure USING (id % 2 = 0);
CREATE ROLE regress_ps_reader;
GRANT SELECT ON ps_secure, ps_filters TO regress_ps_reader;
SET ROLE regress_ps_reader;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ps_secure WHERE (SELECT f FROM ps_filters WHERE variant = 'blocked') @> t;
SELECT count(*) FROM ps_secure WHERE (SELECT f FROM ps_filters WHERE variant = 'blocked') @> t;
RESET ROLE;
DROP TABLE ps_secure;
REVOKE SELECT ON ps_filters FROM regress_ps_reader;
DROP ROLE regress_ps_reader;

-- quals the planner orders before the filter test (cheaper) are tested
-- first, as the row is read, when they can neither fail nor be seen (Filter
-- First: only the rows they pass are hashed); otherwise at the row's turn
-- (Filter In Turn: id % 3 could divide by zero).  The costlier ones stay
-- after the test.
CREATE FUNCTION ps_costly(text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE COST 10000 AS $$ BEGIN RETURN $1 IS NOT NULL; END $$;
EXPLAIN (COSTS OFF)
SELECT id FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = 'blocked') @> t
	AND note = 'n1' AND (b IS NULL OR NOT id <= 100);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF)
SELECT id FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = 'blocked') @> t
	AND note = 'n1' AND (b IS NULL OR NOT id <= 100);
EXPLAIN (COSTS OFF)
SELECT id FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = 'blocked') @> t
	AND id % 3 = 0 AND ps_costly(note);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF)
SELECT id FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = 'blocked') @> t
	AND id % 3 = 0 AND ps_costly(note);
-- a filter whose subquery would fail is never evaluated when no row passes
-- the quals before it, as with the plain qual
SELECT count(*) FROM ps_items WHERE id < 0
	AND (SELECT f FROM ps_filters WHERE variant = 'blocked' AND 1 / (length(variant) - 7) = 0) @> t;

-- every query, with the scan on and off: the same rows
CREATE TABLE ps_queries (q text);
INSERT INTO ps_queries VALUES
	('SELECT id FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = %L) @> t'),
	('SELECT id FROM ps_items WHERE t <@ (SELECT f FROM ps_filters WHERE variant = %L)'),
	('SELECT id FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = %L) @> t AND note = ''n1'''),
	('SELECT id FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = %L) @> t AND id %% 3 = 0 AND ps_costly(note)'),
	('SELECT count(*) FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = %L) @> t'),
	('SELECT count(*) FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = %L) @> t AND id %% 3 = 0'),
	('SELECT count(*) FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = %L) @> t AND ps_costly(note)'),
	('SELECT id FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = %L) @> t OR id < 5'),
	('SELECT id FROM ps_items WHERE NOT ((SELECT f FROM ps_filters WHERE variant = %L) @> t)'),
	('SELECT id FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = %L) @> (id * 2)'),
	('SELECT id FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = %L) @> note'),
	('SELECT id FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = %L) @> u'),
	('SELECT id FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = %L) @> t ORDER BY id DESC LIMIT 7'),
	('SELECT t FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = %L) @> t AND (SELECT f FROM ps_filters WHERE variant = %L) @> (''item '' || (id + 2))');
CREATE FUNCTION ps_rows(q text, prefetch bool) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	r text;
BEGIN
	PERFORM set_config('bloomfilter.prefetch_scan', prefetch::text, true);
	EXECUTE format('SELECT md5(coalesce(string_agg(x::text, '','' ORDER BY x::text), '''')) || '' '' || count(*) FROM (%s) AS s(x)', q) INTO r;
	RETURN r;
END
$$;
SELECT v.variant,
       count(*) AS queries,
       count(*) FILTER (WHERE ps_rows(format(q.q, v.variant, v.variant), true) =
                              ps_rows(format(q.q, v.variant, v.variant), false)) AS same_rows
FROM ps_queries q, (SELECT variant FROM ps_filters) v
GROUP BY v.variant ORDER BY v.variant;
-- and in parallel: blocks handed out to the leader and two workers, each
-- reading ahead on its own
CALL force_parallel_plans();
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = 'blocked') @> t;
SELECT v.variant,
       count(*) FILTER (WHERE ps_rows(format(q.q, v.variant, v.variant), true) =
                              ps_rows(format(q.q, v.variant, v.variant), false)) AS same_rows_in_parallel
FROM ps_queries q, (SELECT variant FROM ps_filters WHERE variant IN ('blocked', 'null')) v
GROUP BY v.variant ORDER BY v.variant;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- and the rows are what they should be: every even item, plus false positives
SELECT count(*) FILTER (WHERE id % 2 = 0) AS even_found,
       count(*) FILTER (WHERE id % 2 = 1) < 200 AS few_false_positives
FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = 'blocked') @> t;

-- the filter is evaluated only when there is a row to test, as the qual
-- would be: over an empty table a subquery that would fail is never run
CREATE TABLE ps_empty (t text);
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ps_empty WHERE (SELECT f FROM ps_filters) @> t;
SELECT count(*) FROM ps_empty WHERE (SELECT f FROM ps_filters) @> t;
DROP TABLE ps_empty;

-- a constant filter
SELECT count(*) AS from_constant
FROM ps_items WHERE bloomfilter_add_all(bloomfilter_create(100), ARRAY['item 1', 'item 2', 'item 3']) @> t;

-- a filter that changes with the outer row: the scan runs again for each
-- (a rescan with a changed parameter reads the filter again)
EXPLAIN (COSTS OFF)
SELECT f.variant,
       (SELECT count(*) FROM ps_items i WHERE f.f @> i.t AND i.id % 1000 = 0) AS per_filter
FROM ps_filters f ORDER BY f.variant;
SELECT f.variant,
       (SELECT count(*) FROM ps_items i WHERE f.f @> i.t AND i.id % 1000 = 0) AS per_filter
FROM ps_filters f ORDER BY f.variant;

-- a cursor, read forwards and backwards
BEGIN;
DECLARE ps_cur SCROLL CURSOR FOR
	SELECT id FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = 'blocked') @> t AND id <= 10
	ORDER BY id;
FETCH 3 FROM ps_cur;
FETCH BACKWARD 2 FROM ps_cur;
COMMIT;

-- UPDATE and DELETE through the scan: they find their rows by ctid
EXPLAIN (COSTS OFF)
UPDATE ps_items SET note = 'hit' WHERE (SELECT f FROM ps_filters WHERE variant = 'blocked') @> t AND id <= 100;
UPDATE ps_items SET note = 'hit' WHERE (SELECT f FROM ps_filters WHERE variant = 'blocked') @> t AND id <= 100;
SELECT count(*) AS updated FROM ps_items WHERE note = 'hit';
DELETE FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = 'cuckoo') @> t AND id > 19900;
SELECT count(*) AS left_after_delete FROM ps_items WHERE id > 19900;

-- the element: a column of a type hashed without an SQL function, seen
-- through varchar's relabelling, a domain, a widening integer cast and char(n)'s cast
-- to text; never an expression (evaluated at the row's turn by the plain
-- qual) nor a column hashed through a send or output function
CREATE DOMAIN ps_code AS text CHECK (VALUE LIKE 'd%');
CREATE TABLE ps_kinds (i2 smallint, i4 int, v varchar, c char(8), d ps_code, u uuid, b bytea,
					   a int[], n numeric);
INSERT INTO ps_kinds SELECT g, g, 'v' || g, 'c' || g, 'd' || g, md5(g::text)::uuid,
	   decode(md5(g::text), 'hex'), ARRAY[g], g
FROM generate_series(1, 100) g;
CREATE TABLE ps_kinds_f AS
SELECT bloomfilter_agg(g, 100, 0.01) AS fi, bloomfilter_agg('v' || g, 100, 0.01) AS fv,
	   bloomfilter_agg('c' || g, 100, 0.01) AS fc, bloomfilter_agg('d' || g, 100, 0.01) AS fd,
	   bloomfilter_agg(md5(g::text)::uuid, 100, 0.01) AS fu,
	   bloomfilter_agg(decode(md5(g::text), 'hex'), 100, 0.01) AS fb,
	   bloomfilter_agg(ARRAY[g], 100, 0.01) AS fa, bloomfilter_agg(g::numeric, 100, 0.01) AS fn
FROM generate_series(1, 50) g;
CREATE FUNCTION ps_plan(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	PERFORM set_config('bloomfilter.prefetch_scan', 'on', true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF line LIKE '%Custom Scan (bloomfilter prefetch)%' THEN
			RETURN 'prefetch';
		END IF;
	END LOOP;
	RETURN 'plain';
END
$$;
SELECT e AS element, ps_plan(format('SELECT * FROM ps_kinds WHERE (SELECT %s FROM ps_kinds_f) @> %s', f, e)) AS plan,
	   ps_rows(format('SELECT i4 FROM ps_kinds WHERE (SELECT %s FROM ps_kinds_f) @> %s', f, e), true) =
	   ps_rows(format('SELECT i4 FROM ps_kinds WHERE (SELECT %s FROM ps_kinds_f) @> %s', f, e), false) AS same_rows
FROM (VALUES ('i2', 'fi'), ('i4', 'fi'), ('i2::bigint', 'fi'), ('i4::bigint', 'fi'), ('v', 'fv'),
			 ('c', 'fc'), ('d', 'fd'), ('u', 'fu'), ('b', 'fb'), ('a', 'fa'), ('n', 'fn'),
			 ('i4 + 0', 'fi'), ('lower(v)', 'fv')) AS k(e, f);
DROP TABLE ps_kinds, ps_kinds_f;
DROP DOMAIN ps_code;

-- inheritance: the scan is offered for each child (the parent's own rows
-- included), never for the appendrel parent, which would scan the parent
-- alone
CREATE TABLE ps_inh_f AS SELECT bloomfilter_agg(g, 100, 0.01) AS f FROM generate_series(1, 100) g;
CREATE TABLE ps_parent (x int, y text);
CREATE TABLE ps_child () INHERITS (ps_parent);
INSERT INTO ps_parent SELECT g, 'p' FROM generate_series(1, 1000) g;
INSERT INTO ps_child SELECT g, 'c' FROM generate_series(1, 1000) g;
ANALYZE ps_parent, ps_child;
EXPLAIN (COSTS OFF)
SELECT y, count(*) FROM ps_parent WHERE (SELECT f FROM ps_inh_f) @> x GROUP BY y;
SELECT y, count(*) FILTER (WHERE x <= 100) AS members, count(*) FILTER (WHERE x > 100) < 30 AS few_false_positives
FROM ps_parent WHERE (SELECT f FROM ps_inh_f) @> x GROUP BY y ORDER BY y;
SELECT y, count(*) FILTER (WHERE x <= 100) AS members_locked
FROM (SELECT x, y FROM ps_parent WHERE (SELECT f FROM ps_inh_f) @> x FOR UPDATE) s GROUP BY y ORDER BY y;
SELECT ps_rows('SELECT x || y FROM ps_parent WHERE (SELECT f FROM ps_inh_f) @> x', true) =
	   ps_rows('SELECT x || y FROM ps_parent WHERE (SELECT f FROM ps_inh_f) @> x', false) AS same_rows;
EXPLAIN (VERBOSE, COSTS OFF)
DELETE FROM ps_parent WHERE (SELECT f FROM ps_inh_f) @> x AND x <= 10;
DELETE FROM ps_parent WHERE (SELECT f FROM ps_inh_f) @> x AND x <= 10;
UPDATE ps_parent SET y = y || '!' WHERE (SELECT f FROM ps_inh_f) @> x AND x <= 20;
SELECT y, count(*), min(x) FROM ps_parent GROUP BY y ORDER BY y;
-- a partitioned table: each partition
CREATE TABLE ps_part (x int, y text) PARTITION BY RANGE (x);
CREATE TABLE ps_part1 PARTITION OF ps_part FOR VALUES FROM (MINVALUE) TO (500);
CREATE TABLE ps_part2 PARTITION OF ps_part FOR VALUES FROM (500) TO (MAXVALUE);
INSERT INTO ps_part SELECT g, 'v' FROM generate_series(1, 1000) g;
ANALYZE ps_part;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ps_part WHERE (SELECT f FROM ps_inh_f) @> x;
SELECT count(*) FILTER (WHERE x <= 100) AS members FROM ps_part WHERE (SELECT f FROM ps_inh_f) @> x;
EXPLAIN (VERBOSE, COSTS OFF)
DELETE FROM ps_part WHERE (SELECT f FROM ps_inh_f) @> x AND x <= 10;
DELETE FROM ps_part WHERE (SELECT f FROM ps_inh_f) @> x AND x <= 10;
SELECT count(*), min(x) FROM ps_part;
-- the members of a UNION ALL
EXPLAIN (COSTS OFF)
SELECT count(*) FROM (SELECT x FROM ps_part1 UNION ALL SELECT x FROM ps_child) s
WHERE (SELECT f FROM ps_inh_f) @> x;
SELECT count(*) FILTER (WHERE x <= 100) AS members FROM (SELECT x FROM ps_part1 UNION ALL SELECT x FROM ps_child) s
WHERE (SELECT f FROM ps_inh_f) @> x;
-- not for a sample scan, a foreign table, nor a table of another access
-- method than heap (even one that is heap under another name)
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ps_child TABLESAMPLE SYSTEM (100) WHERE (SELECT f FROM ps_inh_f) @> x;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS file_fdw;
RESET client_min_messages;
CREATE SERVER ps_files FOREIGN DATA WRAPPER file_fdw;
CREATE FOREIGN TABLE ps_foreign (x int) SERVER ps_files OPTIONS (filename '/dev/null');
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ps_foreign WHERE (SELECT f FROM ps_inh_f) @> x;
DROP SERVER ps_files CASCADE;
CREATE ACCESS METHOD ps_heap_alias TYPE TABLE HANDLER heap_tableam_handler;
CREATE TABLE ps_other_am (x int) USING ps_heap_alias;
INSERT INTO ps_other_am SELECT generate_series(1, 1000);
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ps_other_am WHERE (SELECT f FROM ps_inh_f) @> x;
DROP TABLE ps_other_am;
DROP ACCESS METHOD ps_heap_alias;
DROP TABLE ps_parent, ps_child, ps_part, ps_inh_f;

-- reading ahead shows nothing.  Quals before the filter test that can fail
-- or be seen wait for the row's turn (Filter In Turn); only silent ones
-- (leakproof functions of columns and constants) are tested as rows are
-- read ahead (Filter First), and only while every qual before them is
-- silent too.  Row 5 divides by zero, rows 2, 4, 6... are in the filter.
CREATE TABLE ps_r1 AS SELECT i AS id, i % 1000 AS x FROM generate_series(1, 20000) i;
CREATE TABLE ps_r1f AS SELECT bloomfilter_agg(g, 1000, 0.01) AS f FROM generate_series(0, 998, 2) g;
ANALYZE ps_r1;
CREATE SEQUENCE ps_seq;
CREATE FUNCTION ps_count_call(int) RETURNS boolean
LANGUAGE plpgsql VOLATILE COST 0.001 AS $$ BEGIN PERFORM nextval('ps_seq'); RETURN true; END $$;
EXPLAIN (COSTS OFF)
SELECT id FROM ps_r1 WHERE 10/(x-5) <> 0 AND (SELECT f FROM ps_r1f) @> x LIMIT 1;
EXPLAIN (COSTS OFF)
SELECT id FROM ps_r1 WHERE x <= 100 AND 10/(x-5) <> 0 AND (SELECT f FROM ps_r1f) @> x LIMIT 1;
EXPLAIN (COSTS OFF)
SELECT id FROM ps_r1 WHERE ps_count_call(x) AND x <= 100 AND (SELECT f FROM ps_r1f) @> x;
-- a qual that fails on a row the plain scan never reaches
SELECT id FROM ps_r1 WHERE 10/(x-5) <> 0 AND (SELECT f FROM ps_r1f) @> x LIMIT 1;
SELECT id FROM ps_r1 WHERE x <= 100 AND 10/(x-5) <> 0 AND (SELECT f FROM ps_r1f) @> x LIMIT 1;
SELECT EXISTS (SELECT FROM ps_r1 WHERE 10/(x-5) <> 0 AND (SELECT f FROM ps_r1f) @> x);
BEGIN;
DECLARE ps_c CURSOR FOR SELECT id FROM ps_r1 WHERE 10/(x-5) <> 0 AND (SELECT f FROM ps_r1f) @> x;
FETCH 2 FROM ps_c;
CLOSE ps_c;
COMMIT;
-- a prepared statement's generic plan: the filter is a parameter, and a
-- qual with a parameter waits for the row's turn
SET plan_cache_mode = force_generic_plan;
PREPARE ps_prep(bloomfilter, int) AS
SELECT id FROM ps_r1 WHERE 10/(x-$2) <> 0 AND x <= 100 AND $1 @> x LIMIT 1;
EXPLAIN (COSTS OFF) EXECUTE ps_prep(bloomfilter_add(bloomfilter_create(1000), 3), 5);
EXECUTE ps_prep(bloomfilter_add(bloomfilter_create(1000), 3), 5);
EXECUTE ps_prep(bloomfilter_add(bloomfilter_create(1000), 7), 9);
DEALLOCATE ps_prep;
RESET plan_cache_mode;
-- a volatile qual runs exactly as often, with the scan on and off
CREATE FUNCTION ps_calls(q text, prefetch bool) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	r text;
BEGIN
	PERFORM setval('ps_seq', 1, false);
	PERFORM set_config('bloomfilter.prefetch_scan', prefetch::text, true);
	EXECUTE format('SELECT string_agg(x::text, '','') FROM (%s) AS s(x)', q) INTO r;
	RETURN coalesce(r, '-') || ' / calls: ' ||
		   (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM ps_seq);
END
$$;
SELECT q, ps_plan(q) AS plan, ps_calls(q, false) AS plain, ps_calls(q, true) = ps_calls(q, false) AS same
FROM (VALUES
	('SELECT id FROM ps_r1 WHERE nextval(''ps_seq'') > 0 AND (SELECT f FROM ps_r1f) @> x LIMIT 1'),
	('SELECT id FROM ps_r1 WHERE x <= 100 AND nextval(''ps_seq'') > 0 AND (SELECT f FROM ps_r1f) @> x LIMIT 3'),
	('SELECT 1 WHERE EXISTS (SELECT FROM ps_r1 WHERE ps_count_call(x) AND (SELECT f FROM ps_r1f) @> x)'),
	-- every row, and the silent qual after the volatile one does not skip it
	('SELECT count(*) FROM ps_r1 WHERE ps_count_call(x) AND x <= 100 AND (SELECT f FROM ps_r1f) @> x'),
	-- a NULL filter passes no row, but the qual before it still runs on each
	('SELECT count(*) FROM ps_r1 WHERE nextval(''ps_seq'') > 0 AND (SELECT NULL::bloomfilter) @> x'),
	-- the filter's own subquery runs only when a row reaches the filter test
	('SELECT count(*) FROM ps_r1 WHERE 10/(x+1) = 100 AND (SELECT f FROM ps_r1f WHERE nextval(''ps_seq'') > 0) @> x'),
	('SELECT count(*) FROM ps_r1 WHERE x = 7 AND (SELECT f FROM ps_r1f WHERE nextval(''ps_seq'') > 0) @> x')
) AS v(q);
BEGIN;
SELECT setval('ps_seq', 1, false);
DECLARE ps_c CURSOR FOR SELECT id FROM ps_r1 WHERE nextval('ps_seq') > 0 AND (SELECT f FROM ps_r1f) @> x;
FETCH 2 FROM ps_c;
SELECT currval('ps_seq') AS calls_after_fetch_2;
CLOSE ps_c;
COMMIT;
-- rescans: a correlated subquery and a LATERAL join, each under LIMIT,
-- with a changing parameter; a subplan rescanned without one
EXPLAIN (COSTS OFF)
SELECT k, (SELECT id FROM ps_r1 WHERE 10/(x-5) <> 0 AND (SELECT f FROM ps_r1f) @> x AND id > k LIMIT 1)
FROM generate_series(0, 3) k;
SELECT k, (SELECT id FROM ps_r1 WHERE 10/(x-5) <> 0 AND (SELECT f FROM ps_r1f) @> x AND id > k LIMIT 1)
FROM generate_series(0, 3) k;
SELECT v.k, s.id FROM (VALUES (0), (1), (2), (3)) v(k),
	LATERAL (SELECT id FROM ps_r1 WHERE 10/(x-5) <> 0 AND (SELECT f FROM ps_r1f) @> x AND id > v.k LIMIT 1) s;
SET enable_material = off;
EXPLAIN (COSTS OFF)
SELECT k, k <= ALL (SELECT id FROM ps_r1 WHERE 10/(x-5) <> 0 AND (SELECT f FROM ps_r1f) @> x LIMIT 1)
FROM generate_series(1, 3) k;
SELECT k, k <= ALL (SELECT id FROM ps_r1 WHERE 10/(x-5) <> 0 AND (SELECT f FROM ps_r1f) @> x LIMIT 1)
FROM generate_series(1, 3) k;
RESET enable_material;
DROP TABLE ps_r1, ps_r1f;
DROP FUNCTION ps_calls(text, bool);
DROP FUNCTION ps_count_call(int);
DROP FUNCTION ps_plan(text);
DROP SEQUENCE ps_seq;

-- a corrupt filter is refused as the qual would refuse it
-- ERROR:  invalid binary data ... (the cast), and the scan never sees it
SELECT count(*) FROM ps_items WHERE (SELECT '\x00'::bytea::bloomfilter) @> t;

DROP TABLE ps_items, ps_filters, ps_queries;
DROP FUNCTION ps_rows(text, bool);
DROP FUNCTION ps_costly(text);
RESET max_parallel_workers_per_gather;

--
-- Found by a review pass: WHERE CURRENT OF a cursor over the scan, and a
-- filter that is an expression, read again on every rescan
--
CREATE TABLE ps_cur (id int, x int, s text);
INSERT INTO ps_cur SELECT g, g, 'v' || g FROM generate_series(1, 200) g;
CREATE TABLE ps_cur_f AS
	SELECT bloomfilter_agg(x, 1000, 0.01) AS f FROM ps_cur WHERE x % 2 = 0;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF)
SELECT id FROM ps_cur WHERE (SELECT f FROM ps_cur_f) @> x;
BEGIN;
DECLARE ps_c CURSOR FOR SELECT id FROM ps_cur WHERE (SELECT f FROM ps_cur_f) @> x;
FETCH 2 FROM ps_c;
UPDATE ps_cur SET s = 'hit' WHERE CURRENT OF ps_c RETURNING id, s;
FETCH 1 FROM ps_c;
DELETE FROM ps_cur WHERE CURRENT OF ps_c RETURNING id;
COMMIT;
SELECT id, s FROM ps_cur WHERE id <= 6 ORDER BY id;

-- the inner side of a nested loop, its filter a stable function of a
-- setting the outer rows change: read again on each rescan, as the plain
-- qual reads it on each row
CREATE FUNCTION ps_setting_filter() RETURNS bloomfilter LANGUAGE sql STABLE
AS $$ SELECT bloomfilter(decode(current_setting('ps.filter'), 'hex')) $$;
SELECT set_config('ps.evens', encode(f::bytea, 'hex'), false) IS NOT NULL AS set_evens FROM ps_cur_f;
SELECT set_config('ps.three', encode(bloomfilter_add(bloomfilter_create(1000, 0.01), 3)::bytea, 'hex'),
				  false) IS NOT NULL AS set_three;
SELECT set_config('ps.filter', current_setting('ps.evens'), false) IS NOT NULL AS preset;
CREATE TABLE ps_outer (i int);
INSERT INTO ps_outer SELECT generate_series(1, 4);
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
CREATE VIEW ps_rescan AS
SELECT o.i, t.id
FROM (SELECT i, set_config('ps.filter', current_setting(CASE WHEN i % 2 = 0 THEN 'ps.evens'
															 ELSE 'ps.three' END), false)
	  FROM ps_outer OFFSET 0) o,
	 LATERAL (SELECT id FROM ps_cur WHERE ps_setting_filter() @> x AND id < 7 AND o.i > 0 OFFSET 0) t;
CREATE TEMP TABLE ps_rescan_on AS SELECT * FROM ps_rescan;
-- the prefetching scan is the inner side (under the Result of o.i > 0), scanned once per
-- outer row
SELECT p ->> 'Node Type' AS join, p -> 'Plans' -> 0 ->> 'Relation Name' AS outer_side,
	   p -> 'Plans' -> 1 -> 'Plans' -> 0 ->> 'Custom Plan Provider' AS inner_scan,
	   p -> 'Plans' -> 1 -> 'Plans' -> 0 ->> 'Actual Loops' AS loops
FROM (SELECT explain_json('SELECT * FROM ps_rescan', 'ANALYZE, COSTS OFF, TIMING OFF') -> 'Plan' AS p) e;
-- and each rescan read the filter its outer row set (even rows: the evens; odd rows: 3)
SELECT i, array_agg(id ORDER BY id) AS ids FROM ps_rescan_on GROUP BY i ORDER BY i;
SET bloomfilter.prefetch_scan = off;
SELECT set_config('ps.filter', current_setting('ps.evens'), false) IS NOT NULL AS preset;
CREATE TEMP TABLE ps_rescan_off AS SELECT * FROM ps_rescan;
RESET bloomfilter.prefetch_scan;
SELECT (SELECT count(*) FROM ps_rescan_off) AS rows_off,
	   (SELECT count(*) FROM (SELECT * FROM ps_rescan_on EXCEPT ALL SELECT * FROM ps_rescan_off) d) +
	   (SELECT count(*) FROM (SELECT * FROM ps_rescan_off EXCEPT ALL SELECT * FROM ps_rescan_on) d)
	   AS rows_differing;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
RESET max_parallel_workers_per_gather;
DROP VIEW ps_rescan;
DROP FUNCTION ps_setting_filter();
DROP TABLE ps_cur, ps_cur_f, ps_outer;

-- a cast that changes how the element hashes keeps the plain qual: int4 as
-- oid hashes its send form, text as char(n) without trailing spaces, and a
-- reg* type is refused; the plans below must give the plain answers
CREATE TABLE ps_cast_f AS
	SELECT bloomfilter_add(bloomfilter_add(bloomfilter_create(1000, 0.01), 42::oid), 'ab'::text) AS f;
CREATE TABLE ps_cast_i AS SELECT g AS c FROM generate_series(1, 20000) g;
CREATE TABLE ps_cast_t AS SELECT 'ab  '::text AS c FROM generate_series(1, 20000);
CREATE TABLE ps_cast_r AS SELECT 'pg_class'::regclass AS c FROM generate_series(1, 20000);
ANALYZE ps_cast_i, ps_cast_t, ps_cast_r;
SET max_parallel_workers_per_gather = 0;
SELECT count(*) AS as_oid FROM ps_cast_i WHERE (SELECT f FROM ps_cast_f) @> c::oid;
SELECT count(*) AS as_bpchar FROM ps_cast_t WHERE (SELECT f FROM ps_cast_f) @> c::bpchar;
SELECT count(*) AS as_text FROM ps_cast_t WHERE (SELECT f FROM ps_cast_f) @> rtrim(c);
-- a regclass column cast to int plans without looking at regclass
SELECT count(*) AS regclass_as_int FROM ps_cast_r
WHERE (SELECT bloomfilter_add(bloomfilter_create(1000, 0.01), 1259)) @> c::oid::int;
-- ERROR:  type regclass cannot be an element
SELECT count(*) FROM ps_cast_i WHERE (SELECT f FROM ps_cast_f) @> c::regclass;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ps_cast_i WHERE (SELECT f FROM ps_cast_f) @> c::oid;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ps_cast_i WHERE (SELECT f FROM ps_cast_f) @> c::int8;
RESET max_parallel_workers_per_gather;
DROP TABLE ps_cast_f, ps_cast_i, ps_cast_t, ps_cast_r;

-- a constant filter is described in EXPLAIN, not printed whole (a literal of 81 kB here:
-- the base64 text form, which this filter's shorter sparse text form would not be)
CREATE TABLE ps_const AS SELECT g FROM generate_series(1, 20000) g;
ANALYZE ps_const;
SELECT format('SELECT count(*) FROM ps_const WHERE %L::bloomfilter @> g',
	translate(encode(bloomfilter_add_all(bloomfilter_create(50000, 0.01), ARRAY(SELECT generate_series(1, 5000)))::bytea,
		'base64'), E'\n', '')) AS q \gset
SELECT length(:'q') > 80000 AS long_literal;
SELECT line FROM (SELECT explain_json(:'q', 'COSTS OFF') -> 'Plan' -> 'Plans' -> 0 ->> 'Bloom Filter' AS line) AS e;
SELECT explain_json(:'q', 'VERBOSE, COSTS OFF')::text LIKE '%<bloomfilter: blocked, % 5000 items added, 62080 bytes>%' AS verbose_too;
:q;
-- a parameter of a generic plan shows as itself
SET plan_cache_mode = force_generic_plan;
PREPARE ps_const_q(bloomfilter) AS SELECT count(*) FROM ps_const WHERE $1 @> g;
SELECT explain_json(format('EXECUTE ps_const_q(%L)', bloomfilter_create(10, 0.01) || 1), 'COSTS OFF')
	-> 'Plan' -> 'Plans' -> 0 ->> 'Bloom Filter' AS generic_line;
DEALLOCATE ps_const_q;
RESET plan_cache_mode;
DROP TABLE ps_const;
