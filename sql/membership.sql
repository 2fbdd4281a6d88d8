--
-- membership: bloomfilter_add / ||, bloomfilter_add_all, bloomfilter_contains
-- / @> and <@.  No false negatives and a measured false-positive rate near
-- the target for both variants at 1 % and 0.1 %; the ways of adding agree
-- byte for byte; NULL handling; inputs are never modified; seeds; and the
-- per-call-site caches give the same answers as uncached probes when one
-- call site sees several filters (TOASTed, inline compressed, plain, and a
-- PL/pgSQL variable that changes).
--
--
-- accuracy: 20 000 items, 200 000 strangers
--
CREATE TABLE member_items AS
	SELECT md5(i::text) AS x FROM generate_series(1, 20000) i;
CREATE TABLE member_strangers AS
	SELECT md5(i::text) AS x FROM generate_series(20001, 220000) i;
CREATE TABLE member_acc AS
	SELECT v, p, bloomfilter_add_all(bloomfilter_create(20000, p, v),
	                                 ARRAY(SELECT x FROM member_items)) AS f
	FROM (VALUES ('blocked'), ('classic')) a(v), (VALUES (0.01), (0.001)) b(p);

SELECT a.v, a.p,
       (SELECT count(*) FROM member_items i WHERE NOT a.f @> i.x) AS false_negatives,
       s.fp::float8 / 200000 <= a.p * 1.25 AS fpr_within_target,
       s.fp::float8 / 200000 > a.p / 3 AS fpr_not_implausibly_low
FROM member_acc a
CROSS JOIN LATERAL (SELECT count(*) AS fp FROM member_strangers s WHERE a.f @> s.x) s
ORDER BY a.v, a.p DESC;

-- @> and <@ and the functions behind them always agree
SELECT count(*) FILTER (WHERE (a.f @> t.x) <> (t.x <@ a.f)) AS operators_disagree,
       count(*) FILTER (WHERE bloomfilter_contains(a.f, t.x) <> bloomfilter_contained(t.x, a.f))
         AS functions_disagree,
       count(*) FILTER (WHERE (a.f @> t.x) <> bloomfilter_contains(a.f, t.x)) AS operator_vs_function
FROM member_acc a,
     (SELECT x FROM member_items WHERE x < '1' UNION ALL
      SELECT x FROM member_strangers WHERE x < '1') t
WHERE a.p = 0.01;

--
-- the three ways of adding one element give the same bytes
--
CREATE TABLE member_empty AS
	SELECT v, bloomfilter_create(100, 0.01, v, 3) AS e
	FROM (VALUES ('blocked'), ('classic')) a(v);
SELECT v,
       (e || 'x')::bytea = bloomfilter_add(e, 'x')::bytea
         AND (e || 'x')::bytea = bloomfilter_add_all(e, ARRAY['x'])::bytea AS text,
       (e || 42)::bytea = bloomfilter_add(e, 42)::bytea
         AND (e || 42)::bytea = bloomfilter_add_all(e, ARRAY[42])::bytea AS integer,
       (e || 42::bigint)::bytea = bloomfilter_add(e, 42::bigint)::bytea
         AND (e || 42::bigint)::bytea = bloomfilter_add_all(e, ARRAY[42::bigint])::bytea AS bigint,
       (e || '\xdead'::bytea)::bytea = bloomfilter_add(e, '\xdead'::bytea)::bytea
         AND (e || '\xdead'::bytea)::bytea = bloomfilter_add_all(e, ARRAY['\xdead'::bytea])::bytea AS bytea,
       (e || 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid)::bytea
         = bloomfilter_add_all(e, ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid])::bytea AS uuid,
       (e || 1.5)::bytea = bloomfilter_add(e, 1.5)::bytea
         AND (e || 1.5)::bytea = bloomfilter_add_all(e, ARRAY[1.5])::bytea AS numeric
FROM member_empty ORDER BY v;

-- adding one by one with || in a loop builds what add_all builds in one call
CREATE FUNCTION member_fold(f bloomfilter, xs text[]) RETURNS bloomfilter
LANGUAGE plpgsql AS $$
DECLARE
	x text;
BEGIN
	FOREACH x IN ARRAY xs LOOP
		f := f || x;
	END LOOP;
	RETURN f;
END
$$;
SELECT v,
       member_fold(e, ARRAY(SELECT md5(i::text) FROM generate_series(1, 500) i))::bytea
         = bloomfilter_add_all(e, ARRAY(SELECT md5(i::text) FROM generate_series(1, 500) i))::bytea
         AS loop_equals_add_all
FROM member_empty ORDER BY v;
-- and so does a recursive fold in plain SQL
WITH RECURSIVE fold(i, f) AS (
	SELECT 0, e FROM member_empty WHERE v = 'classic'
	UNION ALL
	SELECT i + 1, f || (i + 1) FROM fold WHERE i < 300
)
SELECT f::bytea = bloomfilter_add_all((SELECT e FROM member_empty WHERE v = 'classic'),
                                      ARRAY(SELECT generate_series(1, 300)))::bytea AS fold_equals_add_all
FROM fold WHERE i = 300;
-- order does not matter, and a multi-dimensional array is its elements
SELECT v,
       bloomfilter_add_all(e, ARRAY['a', 'b', 'c'])::bytea
         = bloomfilter_add_all(e, ARRAY['c', 'a', 'b'])::bytea AS order_free,
       bloomfilter_add_all(e, ARRAY[[1, 2], [3, 4]])::bytea
         = bloomfilter_add_all(e, ARRAY[1, 2, 3, 4])::bytea AS two_dimensional,
       bloomfilter_add_all(e, '[5:6]={7,8}'::int[])::bytea
         = bloomfilter_add_all(e, ARRAY[7, 8])::bytea AS lower_bound_5
FROM member_empty ORDER BY v;

-- adding an element again changes the item count (bytes 32-39) and nothing else
SELECT v,
       substr((e || 'x' || 'x')::bytea, 65) = substr((e || 'x')::bytea, 65) AS same_payload,
       substr((e || 'x' || 'x')::bytea, 33, 8) AS items_twice,
       substr((e || 'x')::bytea, 33, 8) AS items_once,
       overlay((e || 'x' || 'x')::bytea PLACING '\x0100000000000000' FROM 33)
         = (e || 'x')::bytea AS only_the_count_differs
FROM member_empty ORDER BY v;

--
-- NULLs
--
-- add_all skips NULL elements (they are not counted either)
SELECT v,
       bloomfilter_add_all(e, ARRAY['a', NULL, 'b'])::bytea
         = bloomfilter_add_all(e, ARRAY['a', 'b'])::bytea AS null_elements_skipped,
       bloomfilter_add_all(e, ARRAY[NULL, NULL]::text[])::bytea = e::bytea AS only_nulls,
       bloomfilter_add_all(e, '{}'::text[])::bytea = e::bytea AS empty_array,
       bloomfilter_add_all(e, NULL::text[])::bytea = e::bytea AS null_array,
       bloomfilter_add_all(NULL, ARRAY['a']) IS NULL AS null_filter
FROM member_empty ORDER BY v;
-- adding NULL keeps the filter (UPDATE t SET f = f || x never loses it);
-- a NULL filter stays NULL
SELECT v,
       (e || NULL)::bytea = e::bytea AS or_null_keeps,
       (e || NULL::text)::bytea = e::bytea AS or_null_text_keeps,
       bloomfilter_add(e, NULL::integer)::bytea = e::bytea AS add_null_keeps,
       (e || 'x' || NULL::bigint)::bytea = (e || 'x')::bytea AS chain_keeps,
       (NULL::bloomfilter || 'x') IS NULL AS null_filter,
       bloomfilter_add(NULL::bloomfilter, 42) IS NULL AS null_filter_add
FROM member_empty ORDER BY v;
-- contains is strict: NULL in, NULL out
SELECT (e @> NULL::text) IS NULL AS null_elem,
       (NULL::bloomfilter @> 'x') IS NULL AS null_filter,
       (NULL::text <@ e) IS NULL AS null_elem_commuted,
       bloomfilter_contains(e, NULL::integer) IS NULL AS null_elem_function
FROM member_empty WHERE v = 'blocked';
-- an UPDATE with a NULL element keeps the stored filter
CREATE TABLE member_upd (id int, f bloomfilter, x text);
INSERT INTO member_upd SELECT 1, e || 'kept', NULL FROM member_empty WHERE v = 'blocked';
UPDATE member_upd SET f = f || x;
SELECT f IS NOT NULL AS still_there, f @> 'kept' AS still_holds FROM member_upd;

--
-- functions never modify their inputs: stored filters (plain, inline
-- compressed, TOASTed) keep their bytes after every function read them
--
CREATE TABLE member_keep (id int, f bloomfilter);
INSERT INTO member_keep VALUES
	(1, bloomfilter_add_all(bloomfilter_create(1000, 0.01, 'blocked'), ARRAY['a', 'b'])),
	(2, bloomfilter_add_all(bloomfilter_create(1000, 0.01, 'classic'), ARRAY['a', 'b'])),
	(3, bloomfilter_add_all(bloomfilter_create(40000, 0.01, 'blocked'), ARRAY['a', 'b'])),
	(4, bloomfilter_add_all(bloomfilter_create(300000, 0.01, 'classic'),
		ARRAY(SELECT md5(i::text) FROM generate_series(1, 30000) i)));
CREATE TABLE member_keep_md5 AS SELECT id, md5(f::bytea) AS before FROM member_keep;
-- in one row: the new filter holds 'new', the input still does not
SELECT id,
       (f || 'new') @> 'new' AS added,
       bloomfilter_add(f, 'new') @> 'new' AS added_fn,
       bloomfilter_add_all(f, ARRAY['new', 'newer']) @> 'newer' AS added_all,
       f @> 'new' AS input_has_new
FROM member_keep ORDER BY id;
UPDATE member_keep SET f = f WHERE (f || 'new2') IS NOT NULL AND bloomfilter_add_all(f, ARRAY['n3']) IS NOT NULL;
SELECT k.id, md5(k.f::bytea) = m.before AS unchanged
FROM member_keep k JOIN member_keep_md5 m USING (id) ORDER BY k.id;
-- nor does PL/pgSQL see its variable change behind its back
DO $$
DECLARE
	f bloomfilter := bloomfilter_create(1000, 0.01);
	g bloomfilter;
	before bytea;
BEGIN
	before := f::bytea;
	g := f || 'x';
	g := bloomfilter_add_all(f, ARRAY['y']);
	IF f::bytea <> before OR f @> 'x' OR f @> 'y' THEN
		RAISE EXCEPTION 'the input filter changed';
	END IF;
END
$$;

--
-- seeds: the same items under different seeds set different bits; the same
-- seed gives the same bytes every time
--
SELECT v,
       substr(bloomfilter_add_all(bloomfilter_create(1000, 0.01, v, 0), ARRAY(SELECT generate_series(1, 100)))::bytea, 65)
         <> substr(bloomfilter_add_all(bloomfilter_create(1000, 0.01, v, 1), ARRAY(SELECT generate_series(1, 100)))::bytea, 65)
         AS seeds_differ,
       substr(bloomfilter_add_all(bloomfilter_create(1000, 0.01, v, 1), ARRAY(SELECT generate_series(1, 100)))::bytea, 65)
         <> substr(bloomfilter_add_all(bloomfilter_create(1000, 0.01, v, -1), ARRAY(SELECT generate_series(1, 100)))::bytea, 65)
         AS sign_of_seed_matters,
       bloomfilter_add_all(bloomfilter_create(1000, 0.01, v, 7), ARRAY(SELECT generate_series(1, 100)))::bytea
         = bloomfilter_add_all(bloomfilter_create(1000, 0.01, v, 7), ARRAY(SELECT generate_series(1, 100)))::bytea
         AS same_seed_same_bytes,
       bloomfilter_add_all(bloomfilter_create(1000, 0.01, v, 7), ARRAY(SELECT generate_series(1, 100)))
         @> 100 AS found_under_seed
FROM (VALUES ('blocked'), ('classic')) a(v) ORDER BY v;

--
-- per-call-site caches.  One call site sees two different filters in turn,
-- rows alternating between them; its answers must equal those of a probe
-- that cannot share anything (each filter a separate constant).
--   ids 1, 2: large (1.2 MB), TOASTed out of line; a blocked and a classic.
--             Filter 1 + r holds md5(i) for the i with i % 2 = r, so probe
--             row i, joined to filter 1 + i % 2, must always be found.
--   ids 3, 4: 49 kB blocked filters that compress well and stay inline,
--             crafted to compress to the same length so that only their
--             bytes tell them apart: every byte of 3 is 01 (it finds almost
--             nothing), every byte of 4 is fe (it finds about a third).
--   ids 5, 6: small plain filters, like 1 and 2.
--
CREATE TABLE member_cache (id int PRIMARY KEY, n int, f bloomfilter);
-- the type stores filters uncompressed (STORAGE external); ask for
-- compression here so that the compressed paths are exercised too
ALTER TABLE member_cache ALTER COLUMN f SET STORAGE EXTENDED;
INSERT INTO member_cache
SELECT id, n, bloomfilter_add_all(bloomfilter_create(cap, 0.01, v, id),
                                 ARRAY(SELECT md5(i::text) FROM generate_series(1, n) i
                                       WHERE i % 2 = (id + 1) % 2))
FROM (VALUES (1, 1000000, 'blocked', 200000), (2, 1000000, 'classic', 200000),
             (5, 1000, 'blocked', 1000), (6, 1000, 'classic', 1000)) v(id, cap, v, n);
INSERT INTO member_cache
SELECT id, 0, overlay(bloomfilter_create(40000, 0.01, 'blocked', 3)::bytea
                      PLACING decode(repeat(filler, 49600 - 64), 'hex') FROM 65)::bloomfilter
FROM (VALUES (3, '01'), (4, 'fe')) v(id, filler);
-- how they are stored
SELECT c.id, octet_length(c.f::bytea) AS bytes,
       pg_column_size(c.f) < octet_length(c.f::bytea) AS compressed
FROM member_cache c ORDER BY c.id;
SELECT pg_relation_size(reltoastrelid) > 0 AS some_are_toasted
FROM pg_class WHERE relname = 'member_cache';
-- (ids 3 and 4 in a table of their own: nothing goes out of line)
CREATE TABLE member_inline (LIKE member_cache INCLUDING STORAGE);
INSERT INTO member_inline SELECT * FROM member_cache WHERE id IN (3, 4);
SELECT pg_relation_size(reltoastrelid) = 0 AS inline_only,
       (SELECT bool_and(pg_column_size(f) < 2000) FROM member_inline) AS small_when_compressed
FROM pg_class WHERE relname = 'member_inline';

-- probe rows: 100 items and 100 strangers, alternating between the filters
CREATE TABLE member_probe AS
	SELECT i AS id, md5(i::text) AS x
	FROM generate_series(1, 100) i UNION ALL
	SELECT i, md5(i::text) FROM generate_series(1000001, 1000100) i;

-- the reference: each filter inlined as a constant at its own call site
CREATE FUNCTION member_found_const(base int) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	f0 text;
	f1 text;
	found bigint;
BEGIN
	SELECT f::text INTO f0 FROM member_cache WHERE id = base;
	SELECT f::text INTO f1 FROM member_cache WHERE id = base + 1;
	EXECUTE format('SELECT count(*) FROM member_probe p
	                WHERE CASE p.id %% 2 WHEN 0 THEN %L::bloomfilter @> p.x
	                                     ELSE %L::bloomfilter @> p.x END', f0, f1)
	INTO found;
	RETURN found;
END
$$;

CREATE TABLE member_results AS
SELECT base,
       member_found_const(base) AS by_constants,
       -- a join with the two-row table (OFFSET 0: one call site, used twice)
       j.found AS by_join,
       j.missing AS members_missing,
       -- the same with <@ (the filter is the second argument)
       (SELECT count(*) FROM member_probe p
        JOIN member_cache c ON c.id = base + p.id % 2
        WHERE p.x <@ c.f) AS by_join_commuted,
       -- a correlated subquery: one call site, filters strictly alternating
       (SELECT count(*) FROM member_probe p
        WHERE (SELECT c.f FROM member_cache c WHERE c.id = base + p.id % 2) @> p.x)
         AS by_correlated,
       -- uncorrelated subqueries (initplans), one per filter
       (SELECT count(*) FROM member_probe p
        WHERE p.id % 2 = 0 AND (SELECT c.f FROM member_cache c WHERE c.id = base) @> p.x)
       + (SELECT count(*) FROM member_probe p
          WHERE p.id % 2 = 1 AND (SELECT c.f FROM member_cache c WHERE c.id = base + 1) @> p.x)
         AS by_initplans
FROM (VALUES (1), (3), (5)) b(base)
CROSS JOIN LATERAL (
	SELECT count(*) FILTER (WHERE hit) AS found,
	       count(*) FILTER (WHERE id <= n AND NOT hit) AS missing
	FROM (SELECT p.id, c.n, c.f @> p.x AS hit
	      FROM member_probe p JOIN member_cache c ON c.id = base + p.id % 2
	      OFFSET 0) s) j;
SELECT base,
       by_join = by_constants AS join_ok,
       by_join_commuted = by_constants AS join_commuted_ok,
       by_correlated = by_constants AS correlated_ok,
       by_initplans = by_constants AS initplans_ok,
       members_missing
FROM member_results ORDER BY base;
-- the inline-compressed pair from its own table
SELECT count(*) FILTER (WHERE c.f @> p.x)
         = (SELECT by_constants FROM member_results WHERE base = 3) AS inline_join_ok,
       (SELECT count(*) FROM member_probe p
        WHERE (SELECT c.f FROM member_inline c WHERE c.id = 3 + p.id % 2) @> p.x)
         = (SELECT by_constants FROM member_results WHERE base = 3) AS inline_correlated_ok,
       (SELECT by_constants FROM member_results WHERE base = 3) > 20 AS pair_differs
FROM member_probe p JOIN member_inline c ON c.id = 3 + p.id % 2;

-- a PL/pgSQL variable is an external Param whose value changes with every
-- assignment, and a new value often lands at the address of one freed
-- earlier.  Each filter below holds i for certain, and the filters differ in
-- size, hashes and seed; probing after every assignment, every second,
-- third and fourth must find every i.
-- (filter_cache.c trusts a pointer only for a Const, and reuses a view only
-- for bytes that carry the same header.)
CREATE FUNCTION member_var_misses(step int) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	f bloomfilter;
	misses bigint := 0;
BEGIN
	FOR i IN 1..400 LOOP
		f := bloomfilter_create_bits(64 + (i % 7) * 8, 1 + i % 5, 'classic', i) || i;
		IF i % step = 0 AND NOT f @> i THEN
			misses := misses + 1;
		END IF;
	END LOOP;
	RETURN misses;
END
$$;
SELECT step, member_var_misses(step) AS misses FROM generate_series(1, 4) step ORDER BY step;

DROP TABLE member_items, member_strangers, member_acc, member_empty, member_upd,
	member_keep, member_keep_md5, member_cache, member_inline, member_probe,
	member_results;
DROP FUNCTION member_fold(bloomfilter, text[]), member_found_const(int),
	member_var_misses(int);

-- a NULL filter stays NULL under ||, and the README's two ways to keep a column filled
CREATE TABLE crawl (id int, url text, seen bloomfilter);
INSERT INTO crawl VALUES (1, 'https://a.example/', NULL);
SELECT (NULL::bloomfilter || 'x'::text) IS NULL AS null_stays_null,
	(NULL::bloomfilter || 42) IS NULL AS for_every_type;
UPDATE crawl SET seen = coalesce(seen, bloomfilter_create(1000000, 0.01)) || url;
ALTER TABLE crawl ALTER seen SET DEFAULT bloomfilter_create(1000000, 0.01), ALTER seen SET NOT NULL;
INSERT INTO crawl (id, url) VALUES (2, 'https://b.example/');
UPDATE crawl SET seen = seen || url;
SELECT id, seen @> url AS found, seen @> 'https://c.example/'::text AS stranger FROM crawl ORDER BY id;
DROP TABLE crawl;
-- growing variants double: each new stage holds twice the items of the one before (1,000, then
-- 2,000, then 4,000: 2 stages at 1,100 items, 3 at 3,300 and 4 at 7,700; README)
SELECT v, array_agg((bloomfilter_info(f)).stages ORDER BY n) AS stages_at_1000_1100_3000_3300_7000_7700
FROM unnest(ARRAY['scalable', 'cuckoo']) AS v, unnest(ARRAY[1000, 1100, 3000, 3300, 7000, 7700]) AS n,
	LATERAL (SELECT bloomfilter_add_all(bloomfilter_create(1000, 0.01, v), ARRAY(SELECT generate_series(1, n)))) AS g(f)
GROUP BY v ORDER BY v;
