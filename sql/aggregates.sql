--
-- aggregates: bloomfilter_agg, bloomfilter_union_agg, bloomfilter_intersect_agg.
--
-- bloomfilter_agg must build exactly the filter bloomfilter_add_all builds from
-- the same elements (byte for byte), for every element type and both variants;
-- skip NULL elements; give NULL for no rows; give each group of a GROUP BY its
-- own filter under hash and sort aggregation alike; carry a combine function
-- and PARALLEL SAFE in the catalog.  The union and intersection aggregates
-- handle NULLs, no rows and one row, and per-day filters unioned over a window
-- of days equal the filter built from that window's rows.
--
CREATE TABLE agg_src AS SELECT i FROM generate_series(1, 2000) AS i;
ANALYZE agg_src;

--
-- bloomfilter_agg equals bloomfilter_add_all over array_agg, byte for byte,
-- for every element type and both variants
--
SELECT v,
	bloomfilter_agg(md5(i::text), 2000, 0.01, v)::bytea =
		bloomfilter_add_all(bloomfilter_create(2000, 0.01, v), array_agg(md5(i::text)))::bytea AS text_ok,
	bloomfilter_agg(decode(md5(i::text), 'hex'), 2000, 0.01, v)::bytea =
		bloomfilter_add_all(bloomfilter_create(2000, 0.01, v), array_agg(decode(md5(i::text), 'hex')))::bytea AS bytea_ok,
	bloomfilter_agg(i::smallint, 2000, 0.01, v)::bytea =
		bloomfilter_add_all(bloomfilter_create(2000, 0.01, v), array_agg(i::smallint))::bytea AS int2_ok,
	bloomfilter_agg(i, 2000, 0.01, v)::bytea =
		bloomfilter_add_all(bloomfilter_create(2000, 0.01, v), array_agg(i))::bytea AS int4_ok,
	bloomfilter_agg(i::bigint * 1000000007, 2000, 0.01, v)::bytea =
		bloomfilter_add_all(bloomfilter_create(2000, 0.01, v), array_agg(i::bigint * 1000000007))::bytea AS int8_ok,
	bloomfilter_agg(md5(i::text)::uuid, 2000, 0.01, v)::bytea =
		bloomfilter_add_all(bloomfilter_create(2000, 0.01, v), array_agg(md5(i::text)::uuid))::bytea AS uuid_ok,
	bloomfilter_agg(i / 7.0, 2000, 0.01, v)::bytea =
		bloomfilter_add_all(bloomfilter_create(2000, 0.01, v), array_agg(i / 7.0))::bytea AS numeric_ok,
	bloomfilter_agg(date '2000-01-01' + i, 2000, 0.01, v)::bytea =
		bloomfilter_add_all(bloomfilter_create(2000, 0.01, v), array_agg(date '2000-01-01' + i))::bytea AS date_ok
FROM agg_src, (VALUES ('blocked'), ('classic')) AS x(v)
GROUP BY v ORDER BY v;

-- the three-argument form builds the default variant, blocked
SELECT bloomfilter_agg(md5(i::text), 2000, 0.01)::bytea =
		bloomfilter_agg(md5(i::text), 2000, 0.01, 'blocked')::bytea AS three_args_blocked,
	bloomfilter_agg(md5(i::text), 2000, 0.01)::bytea =
		bloomfilter_add_all(bloomfilter_create(2000, 0.01), array_agg(md5(i::text)))::bytea AS three_args_ok
FROM agg_src;

-- the filters are not trivially alike: each holds its elements, counts them,
-- and the element types differ in what they hash
SELECT (bloomfilter_info(f)).items_added,
	bloomfilter_contains_all(f, ARRAY(SELECT md5(i::text) FROM agg_src)) AS holds_all,
	f <> bloomfilter_create(2000, 0.01) AS not_empty
FROM (SELECT bloomfilter_agg(md5(i::text), 2000, 0.01) AS f FROM agg_src) AS s;

SELECT bloomfilter_agg(i::text, 2000, 0.01) <> bloomfilter_agg(i, 2000, 0.01) AS text_differs_from_integer,
	bloomfilter_agg(i::numeric, 2000, 0.01) = bloomfilter_agg(i, 2000, 0.01) AS integral_numeric_as_integer,
	bloomfilter_agg(i + 0.5, 2000, 0.01) <> bloomfilter_agg(i, 2000, 0.01) AS fraction_differs
FROM agg_src;

-- integers of every width give the same filter
SELECT v,
	bloomfilter_agg(i::smallint, 2000, 0.01, v)::bytea = bloomfilter_agg(i, 2000, 0.01, v)::bytea AS int2_is_int4,
	bloomfilter_agg(i::bigint, 2000, 0.01, v)::bytea = bloomfilter_agg(i, 2000, 0.01, v)::bytea AS int8_is_int4,
	bloomfilter_agg(-i::smallint, 2000, 0.01, v)::bytea = bloomfilter_agg(-i::bigint, 2000, 0.01, v)::bytea AS negative_int2_is_int8
FROM agg_src, (VALUES ('blocked'), ('classic')) AS x(v)
GROUP BY v ORDER BY v;

--
-- NULL elements are skipped; no rows and only NULL rows give NULL
--
SELECT v,
	bloomfilter_agg(CASE WHEN i % 3 <> 0 THEN i END, 2000, 0.01, v)::bytea =
		bloomfilter_agg(i, 2000, 0.01, v) FILTER (WHERE i % 3 <> 0)::bytea AS nulls_skipped,
	(bloomfilter_info(bloomfilter_agg(CASE WHEN i % 3 <> 0 THEN i END, 2000, 0.01, v))).items_added
FROM agg_src, (VALUES ('blocked'), ('classic')) AS x(v)
GROUP BY v ORDER BY v;

SELECT bloomfilter_agg(i, 2000, 0.01) IS NULL AS no_rows,
	bloomfilter_agg(i, 2000, 0.01, 'classic') IS NULL AS no_rows_classic,
	bloomfilter_agg(i::text, 2000, 0.01) IS NULL AS no_rows_text
FROM agg_src WHERE i < 0;

SELECT bloomfilter_agg(NULL::integer, 2000, 0.01) IS NULL AS all_null,
	bloomfilter_agg(NULL::text, 2000, 0.01, 'classic') IS NULL AS all_null_classic,
	bloomfilter_agg(NULL::date, 2000, 0.01) IS NULL AS all_null_date
FROM agg_src;

--
-- GROUP BY: each group's filter is the filter of that group alone, and hash
-- and sort aggregation build the same bytes
--
CREATE VIEW agg_groups AS
SELECT i % 5 AS g, bloomfilter_agg(i, 1000, 0.01) AS fb,
	bloomfilter_agg(md5(i::text), 1000, 0.01, 'classic') AS fc
FROM agg_src GROUP BY 1;
SET enable_hashagg = on;
EXPLAIN (COSTS OFF) SELECT * FROM agg_groups;
CREATE TABLE agg_by_hash AS SELECT * FROM agg_groups;

SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT * FROM agg_groups;
CREATE TABLE agg_by_sort AS SELECT * FROM agg_groups;
RESET enable_hashagg;

SELECT h.g,
	h.fb::bytea = s.fb::bytea AND h.fc::bytea = s.fc::bytea AS hash_is_sort,
	h.fb::bytea = (SELECT bloomfilter_agg(i, 1000, 0.01) FROM agg_src WHERE i % 5 = h.g)::bytea AS blocked_alone,
	h.fc::bytea = (SELECT bloomfilter_agg(md5(i::text), 1000, 0.01, 'classic') FROM agg_src WHERE i % 5 = h.g)::bytea AS classic_alone,
	(bloomfilter_info(h.fb)).items_added
FROM agg_by_hash AS h JOIN agg_by_sort AS s USING (g)
ORDER BY h.g;

-- a hash aggregation that spills to disk (work_mem too small for 200 groups'
-- states) gives the bytes of a sort aggregation
SET work_mem = '64kB';
SET enable_sort = off;
EXPLAIN (COSTS OFF)
SELECT i % 200 AS g, bloomfilter_agg(i, 1000, 0.01) FROM agg_src GROUP BY 1;
-- (the batches the hash aggregation used: more than one when it spilled to disk)
SELECT (explain_json('SELECT i % 200 AS g, bloomfilter_agg(i, 1000, 0.01) FROM agg_src GROUP BY 1',
                     'ANALYZE, COSTS OFF, TIMING OFF') -> 'Plan' ->> 'HashAgg Batches')::integer > 1 AS hash_spilled;
CREATE TABLE agg_by_spill AS
SELECT i % 200 AS g, bloomfilter_agg(i, 1000, 0.01) AS f FROM agg_src GROUP BY 1;
RESET enable_sort;
SET enable_hashagg = off;
SELECT count(*) AS groups,
	count(*) FILTER (WHERE h.f::bytea = s.f::bytea) AS spilled_is_sort
FROM agg_by_spill AS h
	JOIN (SELECT i % 200 AS g, bloomfilter_agg(i, 1000, 0.01) AS f FROM agg_src GROUP BY 1) AS s USING (g);
RESET enable_hashagg;
RESET work_mem;

-- the groups really differ: no group holds all of another group's elements
SELECT a.g, count(*) FILTER (WHERE bloomfilter_contains_all(a.fb, ARRAY(SELECT i FROM agg_src WHERE i % 5 = b.g))) AS groups_held
FROM agg_by_hash AS a, agg_by_hash AS b
GROUP BY a.g ORDER BY a.g;

--
-- the catalog: every aggregate keeps a bloomfilter as its state, has a
-- combine function and is parallel safe; concrete element types
--
SELECT p.proname, count(*) AS overloads,
	bool_and(a.aggtranstype = 'bloomfilter'::regtype) AS state_is_bloomfilter,
	bool_and(a.aggcombinefn <> 0) AS has_combine,
	bool_and(p.proparallel = 's') AS parallel_safe
FROM pg_aggregate AS a JOIN pg_proc AS p ON p.oid = a.aggfnoid
WHERE p.proname IN ('bloomfilter_agg', 'bloomfilter_union_agg', 'bloomfilter_intersect_agg')
GROUP BY p.proname ORDER BY p.proname;

SELECT pg_get_function_identity_arguments(p.oid) AS bloomfilter_agg_arguments
FROM pg_aggregate AS a JOIN pg_proc AS p ON p.oid = a.aggfnoid
WHERE p.proname = 'bloomfilter_agg'
ORDER BY 1;

SELECT count(DISTINCT p.proargtypes[0]) AS concrete_element_types,
	string_agg(DISTINCT format_type(p.proargtypes[0], NULL), ', ') AS element_types
FROM pg_aggregate AS a JOIN pg_proc AS p ON p.oid = a.aggfnoid
WHERE p.proname = 'bloomfilter_agg'
	AND NOT EXISTS (SELECT FROM pg_type AS t
					WHERE t.oid = p.proargtypes[0] AND t.typtype = 'p');

--
-- errors
--
-- ERROR:  expected_items of bloomfilter_agg must not be null
SELECT bloomfilter_agg(i, NULL, 0.01) FROM agg_src;
SELECT sqlstate_of('SELECT bloomfilter_agg(i, NULL, 0.01) FROM agg_src') AS null_items,
	sqlstate_of('SELECT bloomfilter_agg(i, 2000, NULL) FROM agg_src') AS null_rate,
	sqlstate_of('SELECT bloomfilter_agg(i::text, 2000, 0.01, NULL) FROM agg_src') AS null_variant,
	sqlstate_of('SELECT bloomfilter_agg(i, 0, 0.01) FROM agg_src') AS zero_items,
	sqlstate_of('SELECT bloomfilter_agg(i, 2000, 1.5) FROM agg_src') AS bad_rate,
	sqlstate_of('SELECT bloomfilter_agg(i, 2000, 0.01, ''nosuch'') FROM agg_src') AS bad_variant;
-- ERROR:  bloomfilter_agg_trans called in non-aggregate context
SELECT bloomfilter_agg_trans(NULL, 'a'::text, 100, 0.01);
SELECT sqlstate_of('SELECT bloomfilter_agg_trans(NULL, 1, 100, 0.01)') AS agg_trans,
	sqlstate_of('SELECT bloomfilter_agg_trans(bloomfilter_create(100), 1, 100, 0.01, ''classic'')') AS agg_trans_variant,
	sqlstate_of('SELECT bloomfilter_union_trans(bloomfilter_create(100), bloomfilter_create(100))') AS union_trans,
	sqlstate_of('SELECT bloomfilter_intersect_trans(NULL, bloomfilter_create(100))') AS intersect_trans;

--
-- bloomfilter_union_agg and bloomfilter_intersect_agg
--
CREATE TABLE agg_parts AS
SELECT i % 3 AS k, bloomfilter_agg(i, 2000, 0.01) AS f
FROM agg_src GROUP BY 1;
INSERT INTO agg_parts VALUES (NULL, NULL), (NULL, NULL);

-- no rows, only NULLs: NULL
SELECT bloomfilter_union_agg(f) IS NULL AS union_no_rows,
	bloomfilter_intersect_agg(f) IS NULL AS intersect_no_rows
FROM agg_parts WHERE k < 0;
SELECT bloomfilter_union_agg(f) IS NULL AS union_all_null,
	bloomfilter_intersect_agg(f) IS NULL AS intersect_all_null
FROM agg_parts WHERE k IS NULL;

-- one row: that filter
SELECT bloomfilter_union_agg(f)::bytea = (SELECT f FROM agg_parts WHERE k = 1)::bytea AS union_one,
	bloomfilter_intersect_agg(f)::bytea = (SELECT f FROM agg_parts WHERE k = 1)::bytea AS intersect_one
FROM agg_parts WHERE k = 1;
SELECT bloomfilter_union_agg(f)::bytea = (SELECT f FROM agg_parts WHERE k = 1)::bytea AS union_one_and_nulls,
	bloomfilter_intersect_agg(f)::bytea = (SELECT f FROM agg_parts WHERE k = 1)::bytea AS intersect_one_and_nulls
FROM agg_parts WHERE k = 1 OR k IS NULL;

-- several rows, NULLs skipped: the union is the filter of all elements, the
-- intersection is the bitwise AND of the parts
SELECT bloomfilter_union_agg(f)::bytea = (SELECT bloomfilter_agg(i, 2000, 0.01) FROM agg_src)::bytea AS union_is_whole,
	bloomfilter_intersect_agg(f)::bytea =
		(SELECT (a.f & b.f & c.f)::bytea FROM agg_parts AS a, agg_parts AS b, agg_parts AS c
		 WHERE a.k = 0 AND b.k = 1 AND c.k = 2) AS intersect_is_and,
	(bloomfilter_info(bloomfilter_union_agg(f))).items_added AS union_items,
	(bloomfilter_info(bloomfilter_intersect_agg(f))).items_added AS intersect_items
FROM agg_parts;

-- order does not matter
SELECT bloomfilter_union_agg(f ORDER BY k DESC)::bytea = bloomfilter_union_agg(f ORDER BY k)::bytea AS union_order,
	bloomfilter_intersect_agg(f ORDER BY k DESC)::bytea = bloomfilter_intersect_agg(f ORDER BY k)::bytea AS intersect_order
FROM agg_parts;

-- incompatible filters
-- ERROR:  cannot combine bloomfilters of different parameters
SELECT bloomfilter_union_agg(f) FROM (VALUES (bloomfilter_create(100)), (bloomfilter_create(100, 0.01, 'blocked', 1))) AS x(f);
SELECT sqlstate_of('SELECT bloomfilter_union_agg(f) FROM (VALUES (bloomfilter_create(100)), (bloomfilter_create(200))) AS x(f)') AS union_agg,
	sqlstate_of('SELECT bloomfilter_intersect_agg(f) FROM (VALUES (bloomfilter_create(100)), (bloomfilter_create(100, 0.01, ''classic''))) AS x(f)') AS intersect_agg;

--
-- the time-window pattern: one filter per day, the union over a window of
-- days equals the aggregate over that window's rows
--
CREATE TABLE agg_events AS
SELECT 1 + i % 10 AS day, 'https://example'::text || (i % 700) || '.com/page/' || md5((i % 3000)::text) AS url
FROM generate_series(1, 10000) AS i;
CREATE TABLE agg_daily AS
SELECT day, bloomfilter_agg(url, 20000, 0.01) AS f FROM agg_events GROUP BY day;

SELECT bloomfilter_union_agg(f)::bytea =
		(SELECT bloomfilter_agg(url, 20000, 0.01) FROM agg_events WHERE day BETWEEN 3 AND 7)::bytea AS days_3_to_7,
	bloomfilter_union_agg(f) FILTER (WHERE day >= 5)::bytea =
		(SELECT bloomfilter_agg(url, 20000, 0.01) FROM agg_events WHERE day BETWEEN 5 AND 7)::bytea AS days_5_to_7
FROM agg_daily WHERE day BETWEEN 3 AND 7;

-- as window functions: a sliding frame of three days, and a running union
SELECT day,
	bloomfilter_union_agg(f) OVER (ORDER BY day ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)::bytea =
		(SELECT bloomfilter_agg(url, 20000, 0.01) FROM agg_events AS e WHERE e.day BETWEEN d.day - 2 AND d.day)::bytea AS last_three_days,
	bloomfilter_union_agg(f) OVER (ORDER BY day)::bytea =
		(SELECT bloomfilter_agg(url, 20000, 0.01) FROM agg_events AS e WHERE e.day <= d.day)::bytea AS so_far,
	bloomfilter_intersect_agg(f) OVER w::bytea =
		coalesce(lag(f) OVER w & f, f)::bytea AS last_two_intersected
FROM agg_daily AS d
WINDOW w AS (ORDER BY day ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
ORDER BY day;

-- the daily filters themselves are untouched by all of this
SELECT bool_and(f::bytea = (SELECT bloomfilter_agg(url, 20000, 0.01) FROM agg_events AS e WHERE e.day = d.day)::bytea) AS daily_unchanged
FROM agg_daily AS d;

DROP VIEW agg_groups;
DROP TABLE agg_src, agg_by_hash, agg_by_sort, agg_by_spill, agg_parts, agg_events, agg_daily;

-- sizing arguments are planned from a group's first row, and every later row of the group must
-- repeat them: one that changes them is an error, in a serial plan as in a parallel one (where
-- each process plans from its own first row); groups may each have their own
CREATE TABLE agg_sizing AS SELECT g AS x FROM generate_series(1, 50000) g;
ANALYZE agg_sizing;
\set VERBOSITY default
SELECT bloomfilter_agg(x, x, 0.01) FROM agg_sizing;
SELECT bloomfilter_agg(x, 1000, CASE WHEN x < 5 THEN 0.01 ELSE 0.02 END) FROM agg_sizing;
SELECT bloomfilter_agg(x, 1000, 0.01, CASE WHEN x < 5 THEN 'blocked' ELSE 'classic' END) FROM agg_sizing;
SELECT bloomfilter_agg(x, CASE WHEN x < 5 THEN 0.01 ELSE 0.02 END) FROM agg_sizing;
SELECT x % 3 AS g, bloomfilter_cardinality(bloomfilter_agg(x, 1000 * (x % 3 + 1), 0.01)) > 0 AS built
FROM agg_sizing GROUP BY 1 ORDER BY 1;
-- (terse: which row a process reads first varies)
\set VERBOSITY terse
CALL force_parallel_plans();
SELECT explain_json('SELECT bloomfilter_agg(x, x, 0.01) FROM agg_sizing', 'COSTS OFF')::text
	LIKE '%"Gather"%' AS parallel;
SELECT bloomfilter_agg(x, x, 0.01) FROM agg_sizing;
SELECT bloomfilter_agg(x, 1000, CASE WHEN x < 5 THEN 0.01 ELSE 0.02 END) FROM agg_sizing;
SELECT x % 3 AS g, bloomfilter_cardinality(bloomfilter_agg(x, 1000 * (x % 3 + 1), 0.01)) > 0 AS built
FROM agg_sizing GROUP BY 1 ORDER BY 1;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE agg_sizing;
