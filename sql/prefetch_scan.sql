--
-- prefetch_scan: the custom scan that tests  WHERE f @> col  a few rows
-- ahead (src/prefetch_scan.c) must return exactly what the sequential scan
-- with the same qual returns, in every shape of query it is planned for:
-- @> and <@, other quals beside it, NULL elements and a NULL filter, every
-- element type, a constant filter, a subquery's filter, a filter that
-- changes per outer row (rescans), LIMIT, cursors, UPDATE and DELETE (which
-- need the row's ctid), and filters of every variant.  It is planned only
-- for a filter fixed for the scan.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
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
-- first, as the row is read, and only the rows they pass are hashed; the
-- costlier ones stay after it
CREATE FUNCTION ps_costly(text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE COST 10000 AS $$ BEGIN RETURN $1 IS NOT NULL; END $$;
EXPLAIN (COSTS OFF)
SELECT id FROM ps_items WHERE (SELECT f FROM ps_filters WHERE variant = 'blocked') @> t
	AND id % 3 = 0 AND ps_costly(note);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
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
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
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

-- a corrupt filter is refused as the qual would refuse it
-- ERROR:  invalid binary data ... (the cast), and the scan never sees it
SELECT count(*) FROM ps_items WHERE (SELECT '\x00'::bytea::bloomfilter) @> t;

DROP TABLE ps_items, ps_filters, ps_queries;
DROP FUNCTION ps_rows(text, bool);
DROP FUNCTION ps_costly(text);
RESET max_parallel_workers_per_gather;
