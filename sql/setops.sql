--
-- setops: union (| and bloomfilter_union), intersection (& and
-- bloomfilter_intersect), = and <>, bloomfilter_is_compatible, the errors
-- for incompatible filters, contains_all / contains_any, and that no
-- function changes the filters it is given.
--
-- two halves, a subset of the first half, and the whole, for both variants
CREATE TABLE setops_f AS
SELECT v,
	bloomfilter_agg(md5(i::text), 20000, 0.01, v) FILTER (WHERE i <= 10000) AS a,
	bloomfilter_agg(md5(i::text), 20000, 0.01, v) FILTER (WHERE i > 10000) AS b,
	bloomfilter_agg(md5(i::text), 20000, 0.01, v) FILTER (WHERE i <= 2000) AS sub,
	bloomfilter_agg(md5(i::text), 20000, 0.01, v) AS whole
FROM generate_series(1, 20000) AS i, (VALUES ('blocked'), ('classic')) AS x(v)
GROUP BY v;

--
-- union: the union of the two halves is the filter of the whole, byte for byte
--
SELECT v,
	(a | b)::bytea = whole::bytea AS op_union,
	(b | a)::bytea = whole::bytea AS op_union_swapped,
	bloomfilter_union(a, b)::bytea = whole::bytea AS fn_union,
	(bloomfilter_info(a | b)).items_added
FROM setops_f ORDER BY v;

-- the Citus path: partial filters shipped as text and read back
SELECT v,
	bloomfilter_union(a::text::bloomfilter, b::text::bloomfilter)::bytea = whole::bytea AS text_union,
	a::text::bloomfilter::bytea = a::bytea AS text_round_trip
FROM setops_f ORDER BY v;

--
-- intersection: every element of the subset stays present; a & a = a
--
SELECT v,
	bloomfilter_contains_all(a & sub, ARRAY(SELECT md5(i::text) FROM generate_series(1, 2000) AS i)) AS subset_kept,
	bloomfilter_contains_all(bloomfilter_intersect(whole, a), ARRAY(SELECT md5(i::text) FROM generate_series(1, 10000) AS i)) AS half_kept,
	(a & a)::bytea = a::bytea AS self_and,
	(a & sub)::bytea = (sub & a)::bytea AS commutes,
	(bloomfilter_info(a & sub)).items_added AS and_items
FROM setops_f ORDER BY v;

-- the intersection of the two disjoint halves rejects most of both halves
SELECT v,
	(SELECT count(*) FROM generate_series(1, 20000) AS i WHERE (a & b) @> md5(i::text)) < 1000 AS mostly_empty,
	(bloomfilter_info(a & b)).bits_set < (bloomfilter_info(a)).bits_set / 2 AS fewer_bits
FROM setops_f ORDER BY v;

--
-- a | a = a in bits: = ignores the item count, which is all that differs
--
SELECT v,
	a | a = a AS self_union_equal,
	(a | a)::bytea = a::bytea AS same_bytes,
	overlay((a | a)::bytea PLACING '\x0000000000000000'::bytea FROM 33 FOR 8) =
		overlay(a::bytea PLACING '\x0000000000000000'::bytea FROM 33 FOR 8) AS only_items_differ,
	(bloomfilter_info(a | a)).items_added AS items_doubled
FROM setops_f ORDER BY v;

--
-- = and <>
--
SELECT v,
	bloomfilter_add_all(bloomfilter_create(20000, 0.01, v),
		ARRAY(SELECT md5(i::text) FROM generate_series(10000, 1, -1) AS i)) = a AS reversed_order,
	bloomfilter_add_all(bloomfilter_create(20000, 0.01, v),
		ARRAY(SELECT md5(i::text) FROM generate_series(10000, 1, -1) AS i)) <> a AS reversed_order_ne,
	bloomfilter_add_all(bloomfilter_create(20000, 0.01, v, 1),
		ARRAY(SELECT md5(i::text) FROM generate_series(1, 10000) AS i)) = a AS other_seed,
	bloomfilter_add_all(bloomfilter_create(20000, 0.01, v, 1),
		ARRAY(SELECT md5(i::text) FROM generate_series(1, 10000) AS i)) <> a AS other_seed_ne,
	a = b AS other_items,
	a <> b AS other_items_ne,
	a = whole AS subset
FROM setops_f ORDER BY v;

-- empty filters: equal when compatible, unequal (no error) when not
SELECT bloomfilter_create(100) = bloomfilter_create(100) AS same_params,
	bloomfilter_create(100) = bloomfilter_create(100, 0.01, 'blocked', 7) AS other_seed,
	bloomfilter_create(100) = bloomfilter_create(1000) AS other_size,
	bloomfilter_create(100) <> bloomfilter_create(100, 0.01, 'classic') AS other_variant_ne,
	bloomfilter_create_bits(1024, 3) = bloomfilter_create_bits(1024, 4) AS other_hashes,
	-- expected_items and false_positive_rate are bookkeeping: the same shape is equal
	bloomfilter_create_bits(9586, 7, 'classic') = bloomfilter_create(1000, 0.01, 'classic') AS same_shape,
	bloomfilter_create_bits(9586, 7, 'classic')::bytea = bloomfilter_create(1000, 0.01, 'classic')::bytea AS same_bytes,
	(bloomfilter_info(bloomfilter_create(1000, 0.01, 'classic'))).bits AS bits,
	(bloomfilter_info(bloomfilter_create(1000, 0.01, 'classic'))).hashes AS hashes;

--
-- bloomfilter_is_compatible
--
SELECT bloomfilter_is_compatible(a, b) AS halves,
	bloomfilter_is_compatible(a, bloomfilter_create(20000, 0.01, 'blocked')) AS empty,
	bloomfilter_is_compatible(a, bloomfilter_create(20000, 0.01, 'classic')) AS other_variant,
	bloomfilter_is_compatible(a, bloomfilter_create(20001, 0.01, 'blocked')) AS same_blocks,
	bloomfilter_is_compatible(a, bloomfilter_create(40000, 0.01, 'blocked')) AS other_size,
	bloomfilter_is_compatible(a, bloomfilter_create(20000, 0.001, 'blocked')) AS other_rate,
	bloomfilter_is_compatible(a, bloomfilter_create(20000, 0.01, 'blocked', -1)) AS other_seed
FROM setops_f WHERE v = 'blocked';
SELECT bloomfilter_is_compatible(bloomfilter_create_bits(1000, 3), bloomfilter_create_bits(1000, 3)) AS same,
	bloomfilter_is_compatible(bloomfilter_create_bits(1000, 3), bloomfilter_create_bits(1001, 3)) AS other_bits,
	bloomfilter_is_compatible(bloomfilter_create_bits(1000, 3), bloomfilter_create_bits(1000, 4)) AS other_hashes,
	bloomfilter_is_compatible(bloomfilter_create_bits(1000, 3), bloomfilter_create_bits(1000, 3, 'blocked')) AS other_variant,
	bloomfilter_is_compatible(bloomfilter_create_bits(1000, 3, 'classic', 5), bloomfilter_create_bits(1000, 3, 'classic', 5)) AS same_seed;

--
-- incompatible filters cannot be combined; the detail names both sides
--
-- ERROR:  cannot combine bloomfilters of different parameters
SELECT bloomfilter_create(1000) | bloomfilter_create(1000, 0.01, 'classic');
-- ERROR:  cannot combine bloomfilters of different parameters
SELECT bloomfilter_create_bits(1024, 3, 'classic', 7) & bloomfilter_create_bits(1024, 3, 'classic', -7);
SELECT sqlstate_of('SELECT bloomfilter_create(1000) | bloomfilter_create(1000, 0.01, ''classic'')') AS variant,
	sqlstate_of('SELECT bloomfilter_create(1000) | bloomfilter_create(2000)') AS size,
	sqlstate_of('SELECT bloomfilter_create_bits(1024, 3) | bloomfilter_create_bits(1024, 4)') AS hashes,
	sqlstate_of('SELECT bloomfilter_create(1000) | bloomfilter_create(1000, 0.01, ''blocked'', 1)') AS seed,
	sqlstate_of('SELECT bloomfilter_union(bloomfilter_create(1000), bloomfilter_create(2000))') AS fn_union,
	sqlstate_of('SELECT bloomfilter_create(1000) & bloomfilter_create(2000)') AS op_intersect,
	sqlstate_of('SELECT bloomfilter_intersect(bloomfilter_create(1000), bloomfilter_create(1000, 0.01, ''classic''))') AS fn_intersect;

--
-- no function changes the filters it is given: the stored values keep
-- their bytes through every operation (small filters, stored inline and
-- uncompressed, so that the functions see the table's own bytes)
--
CREATE TABLE setops_keep AS
SELECT id, f, md5(f::bytea) AS h
FROM (SELECT k AS id, bloomfilter_agg(i, 500, 0.01, CASE WHEN k % 2 = 1 THEN 'blocked' ELSE 'classic' END) AS f
	  FROM generate_series(1, 1000) AS i, generate_series(1, 4) AS k
	  WHERE i % k = 0
	  GROUP BY k) AS s;
SELECT id, (bloomfilter_info(f)).variant, octet_length(f::bytea) < 2000 AS small,
	pg_column_compression(f) IS NULL AS not_compressed
FROM setops_keep ORDER BY id;

SELECT count(*) AS unions FROM setops_keep AS x, setops_keep AS y
WHERE x.id % 2 = y.id % 2 AND md5((x.f | y.f)::bytea) <> '';
SELECT bool_and(md5(f::bytea) = h) AS unchanged_by_union FROM setops_keep;
SELECT count(*) AS unions FROM setops_keep AS x, setops_keep AS y
WHERE x.id % 2 = y.id % 2 AND md5(bloomfilter_union(x.f, y.f)::bytea) <> '';
SELECT bool_and(md5(f::bytea) = h) AS unchanged_by_fn_union FROM setops_keep;
SELECT count(*) AS intersections FROM setops_keep AS x, setops_keep AS y
WHERE x.id % 2 = y.id % 2 AND md5((x.f & y.f)::bytea) <> '';
SELECT bool_and(md5(f::bytea) = h) AS unchanged_by_intersect FROM setops_keep;
SELECT count(*) AS intersections FROM setops_keep AS x, setops_keep AS y
WHERE x.id % 2 = y.id % 2 AND md5(bloomfilter_intersect(x.f, y.f)::bytea) <> '';
SELECT bool_and(md5(f::bytea) = h) AS unchanged_by_fn_intersect FROM setops_keep;
SELECT id % 2 AS k, md5(bloomfilter_union_agg(f)::bytea) <> '' AS union_agg,
	md5(bloomfilter_intersect_agg(f)::bytea) <> '' AS intersect_agg
FROM setops_keep GROUP BY 1 ORDER BY 1;
SELECT bool_and(md5(f::bytea) = h) AS unchanged_by_aggregates FROM setops_keep;
SELECT count(*) AS adds FROM setops_keep
WHERE md5((f || 12345)::bytea) <> '' AND md5(bloomfilter_add(f, 'x'::text)::bytea) <> ''
	AND md5((f || 'y'::text)::bytea) <> '';
SELECT bool_and(md5(f::bytea) = h) AS unchanged_by_add FROM setops_keep;
SELECT count(*) AS add_alls FROM setops_keep
WHERE md5(bloomfilter_add_all(f, ARRAY[-1, -2, -3])::bytea) <> '';
SELECT bool_and(md5(f::bytea) = h) AS unchanged_by_add_all FROM setops_keep;
SELECT count(*) AS infos FROM setops_keep
WHERE (bloomfilter_info(f)).bits_set > 0 AND # f > 0 AND f @> id AND f = f
	AND bloomfilter_is_compatible(f, f) AND bloomfilter_contains_any(f, ARRAY[id]);
SELECT bool_and(md5(f::bytea) = h) AS unchanged_by_info FROM setops_keep;
-- an UPDATE that adds changes only the row it writes
UPDATE setops_keep SET f = f || 424242 WHERE id = 1;
SELECT id, md5(f::bytea) = h AS unchanged, f @> 424242 AS has_new FROM setops_keep ORDER BY id;

--
-- contains_all and contains_any follow = ALL and = ANY
--
CREATE TABLE setops_m AS
SELECT bloomfilter_agg(i, 1000, 0.01) AS fi, bloomfilter_agg(i::text, 1000, 0.01) AS ft
FROM generate_series(1, 100) AS i;

SELECT bloomfilter_contains_all(fi, '{}'::integer[]) AS all_empty,
	bloomfilter_contains_any(fi, '{}'::integer[]) AS any_empty,
	bloomfilter_contains_all(fi, ARRAY[1, 2, 3]) AS all_present,
	bloomfilter_contains_all(fi, ARRAY[1, -2, 3]) AS all_one_absent,
	bloomfilter_contains_any(fi, ARRAY[-1, 2, -3]) AS any_one_present,
	bloomfilter_contains_any(fi, ARRAY[-1, -2, -3]) AS any_absent
FROM setops_m;

-- NULL elements: NULL unless a non-NULL element decides
SELECT bloomfilter_contains_all(fi, ARRAY[1, NULL, 3]) IS NULL AS all_null_undecided,
	bloomfilter_contains_all(fi, ARRAY[1, NULL, -3]) AS all_null_decided,
	bloomfilter_contains_any(fi, ARRAY[-1, NULL, -3]) IS NULL AS any_null_undecided,
	bloomfilter_contains_any(fi, ARRAY[-1, NULL, 3]) AS any_null_decided,
	bloomfilter_contains_all(fi, ARRAY[NULL]::integer[]) IS NULL AS all_only_null,
	bloomfilter_contains_any(fi, ARRAY[NULL]::integer[]) IS NULL AS any_only_null,
	bloomfilter_contains_all(fi, NULL::integer[]) IS NULL AS all_null_array,
	bloomfilter_contains_any(NULL::bloomfilter, ARRAY[1]) IS NULL AS any_null_filter
FROM setops_m;

-- the same rules as the SQL operators, with @> per element as the comparison
SELECT true = ALL (ARRAY[true, NULL]) IS NULL AS sql_all_null,
	true = ANY (ARRAY[false, NULL]) IS NULL AS sql_any_null,
	true = ALL ('{}'::boolean[]) AS sql_all_empty,
	true = ANY ('{}'::boolean[]) AS sql_any_empty;

-- text arrays, and integer arrays of other widths
SELECT bloomfilter_contains_all(ft, ARRAY['1', '50', '100']) AS text_all,
	bloomfilter_contains_all(ft, ARRAY['1', 'nope']) AS text_all_absent,
	bloomfilter_contains_any(ft, ARRAY['nope', '100']) AS text_any,
	bloomfilter_contains_any(ft, ARRAY['nope', 'neither']) AS text_any_absent,
	bloomfilter_contains_any(ft, ARRAY['nope', NULL]) IS NULL AS text_any_null,
	bloomfilter_contains_all(ft, '{}'::text[]) AS text_all_empty,
	bloomfilter_contains_all(fi, ARRAY[1, 2]::bigint[]) AS int8_all,
	bloomfilter_contains_all(fi, ARRAY[1, 2]::smallint[]) AS int2_all,
	bloomfilter_contains_all(fi, ARRAY[[1, 2], [3, 4]]) AS two_dimensions,
	bloomfilter_contains_all(ft, ARRAY[1, 2]) AS integers_in_text_filter
FROM setops_m;

-- many arrays, with and without NULLs: the answers agree with @> per element
CREATE TABLE setops_arrays AS
SELECT k, ARRAY(SELECT CASE WHEN k % 4 = 0 AND j = 2 THEN NULL ELSE (k * 37 + j * 11) % 200 END
				FROM generate_series(1, 1 + k % 5) AS j) AS a
FROM generate_series(0, 399) AS k;
SELECT count(*) AS arrays,
	count(*) FILTER (WHERE bloomfilter_contains_all(fi, a) IS NOT DISTINCT FROM
					 (true = ALL (ARRAY(SELECT fi @> e FROM unnest(a) AS e)))) AS all_agrees,
	count(*) FILTER (WHERE bloomfilter_contains_any(fi, a) IS NOT DISTINCT FROM
					 (true = ANY (ARRAY(SELECT fi @> e FROM unnest(a) AS e)))) AS any_agrees,
	count(*) FILTER (WHERE bloomfilter_contains_all(ft, a::text[]) IS NOT DISTINCT FROM
					 (true = ALL (ARRAY(SELECT ft @> e FROM unnest(a::text[]) AS e)))) AS text_all_agrees,
	count(*) FILTER (WHERE bloomfilter_contains_any(ft, a::text[]) IS NOT DISTINCT FROM
					 (true = ANY (ARRAY(SELECT ft @> e FROM unnest(a::text[]) AS e)))) AS text_any_agrees
FROM setops_m, setops_arrays;
-- and every outcome occurs
SELECT bool_or(r) AS some_true, bool_or(NOT r) AS some_false, bool_or(r IS NULL) AS some_null,
	bool_or(s) AS any_true, bool_or(NOT s) AS any_false, bool_or(s IS NULL) AS any_null
FROM (SELECT bloomfilter_contains_all(fi, a) AS r, bloomfilter_contains_any(fi, a) AS s
	  FROM setops_m, setops_arrays) AS x;

DROP TABLE setops_f, setops_keep, setops_m, setops_arrays;

--
-- = has a hash opclass: GROUP BY, UNION and hash joins work on filter
-- columns, grouping by shape and bits (items_added does not count)
--
CREATE TABLE setops_hash AS
SELECT i % 3 AS g, bloomfilter_add_all(bloomfilter_create(100), ARRAY[i % 3]) AS f
FROM generate_series(1, 30) AS i;
INSERT INTO setops_hash SELECT 0, f || 0 FROM setops_hash WHERE g = 0 LIMIT 1;
SELECT count(*) AS groups, min(n) AS smallest, max(n) AS largest
FROM (SELECT f, count(*) AS n FROM setops_hash GROUP BY f) AS s;
SELECT count(*) AS distinct_by_union FROM (SELECT f FROM setops_hash UNION SELECT f FROM setops_hash) AS s;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT count(*) AS hash_join_pairs FROM setops_hash a JOIN setops_hash b ON a.f = b.f;
RESET enable_mergejoin;
RESET enable_nestloop;
SELECT bool_and(bloomfilter_hash(a.f) = bloomfilter_hash(b.f)) AS equal_filters_hash_alike
FROM setops_hash a JOIN setops_hash b ON a.f = b.f;
DROP TABLE setops_hash;

-- README, "Change and test": || takes text and anyelement only, so 'page' || 42 stays a text
-- concatenation, and an untyped literal added to a filter is added as text
SELECT 'page' || 42 AS concat, pg_typeof('page' || 42) AS type;
SELECT string_agg(format_type(oprright, NULL), ', ' ORDER BY format_type(oprright, NULL)) AS right_operands
FROM pg_operator WHERE oprname = '||' AND oprleft = 'bloomfilter'::regtype;
SELECT bloomfilter_create(100, 0.01) || 'x' = bloomfilter_create(100, 0.01) || 'x'::text AS untyped_is_text;
-- README, "Combine and compare": no ordering, so ORDER BY f and count(DISTINCT f) are refused
-- (42883: no ordering operator), while GROUP BY f works through the hash operator class
SELECT sqlstate_of('SELECT f FROM (VALUES (bloomfilter_create(10, 0.1))) v(f) ORDER BY f') AS order_by,
	   sqlstate_of('SELECT count(DISTINCT f) FROM (VALUES (bloomfilter_create(10, 0.1))) v(f)') AS count_distinct,
	   sqlstate_of('SELECT f, count(*) FROM (VALUES (bloomfilter_create(10, 0.1))) v(f) GROUP BY f') AS group_by;
