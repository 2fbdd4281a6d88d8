--
-- variant_counting: the counting variant, 4-bit saturating counters in the
-- classic layout.  Construction and sizing, membership (answers exactly as
-- a classic filter of the same shape), bloomfilter_remove for every element
-- type, saturation, union (adds counters) and intersection (minimum),
-- bloomfilter_info, the text, bytea and binary forms, hostile bytes, and
-- that no function changes the filters it is given.
--
--
-- construction: m counters and k as the classic sizing, two counters a
-- byte padded to 8-byte words, so 4 times the bytes of a classic filter
--
SELECT v, (bloomfilter_info(f)).variant, (bloomfilter_info(f)).bits,
	(bloomfilter_info(f)).bytes, (bloomfilter_info(f)).hashes,
	(bloomfilter_info(f)).capacity, (bloomfilter_info(f)).target_fpr,
	(bloomfilter_info(f)).stages
FROM (VALUES ('classic'), ('counting')) AS x(v),
	LATERAL (SELECT bloomfilter_create(20000, 0.01, v) AS f) AS c
ORDER BY v;
SELECT n, octet_length(bloomfilter_create_bits(n, 3, 'counting')::bytea) AS bytes,
	64 + ceil(n / 16.0) * 8 AS documented
FROM unnest(ARRAY[1, 15, 16, 17, 1000]) AS n;
SELECT bloomfilter_optimal_bits(20000, 0.01, 'counting') AS counters,
	bloomfilter_optimal_bits(20000, 0.01, 'counting') =
		bloomfilter_optimal_bits(20000, 0.01, 'classic') AS same_as_classic,
	bloomfilter_capacity(191702, 0.01, 'counting') =
		bloomfilter_capacity(191702, 0.01, 'classic') AS same_capacity;
-- 1 GB holds a quarter of the classic bit count: 2^31 - 144 counters at most
SELECT sqlstate_of('SELECT bloomfilter_create_bits(2147483505, 3, ''counting'')') AS one_more,
	sqlstate_of('SELECT bloomfilter_create(300000000, 0.01, ''counting'')') AS too_many_items;

-- the data: two halves, a subset of the first half and the whole, built by
-- the aggregate; and the same sets in a classic filter of the same shape
CREATE TABLE counting_f AS
SELECT
	bloomfilter_agg(md5(i::text), 20000, 0.01, 'counting') FILTER (WHERE i <= 10000) AS a,
	bloomfilter_agg(md5(i::text), 20000, 0.01, 'counting') FILTER (WHERE i > 10000) AS b,
	bloomfilter_agg(md5(i::text), 20000, 0.01, 'counting') FILTER (WHERE i <= 2000) AS sub,
	bloomfilter_agg(md5(i::text), 20000, 0.01, 'counting') AS whole,
	bloomfilter_agg(md5(i::text), 20000, 0.01, 'classic') AS classic
FROM generate_series(1, 20000) AS i;

--
-- membership: no false negatives, the rate within the target, and the very
-- answers of the classic filter for members and strangers alike
--
SELECT (SELECT count(*) FROM generate_series(1, 20000) AS i WHERE NOT whole @> md5(i::text)) AS false_negatives,
	(SELECT count(*) FROM generate_series(20001, 60000) AS i WHERE whole @> md5(i::text)) / 40000.0 <= 0.012 AS fpr_within_target,
	(SELECT count(*) FROM generate_series(1, 60000) AS i
	 WHERE (whole @> md5(i::text)) <> (classic @> md5(i::text))) AS answers_unlike_classic,
	bloomfilter_contains(whole, md5('1')) AS fn_contains,
	md5('1') <@ whole AS op_contained,
	whole @> 'absent'::text AS absent,
	bloomfilter_contains_all(whole, ARRAY[md5('1'), md5('2'), md5('20000')]) AS contains_all,
	bloomfilter_contains_all(whole, ARRAY[md5('1'), 'absent']) AS contains_all_absent,
	bloomfilter_contains_any(whole, ARRAY['absent', md5('7')]) AS contains_any,
	bloomfilter_contains_any(whole, ARRAY['absent', 'gone']) AS contains_any_absent
FROM counting_f;

-- the aggregate, add_all and || build the same bytes
SELECT whole::bytea = bloomfilter_add_all(bloomfilter_create(20000, 0.01, 'counting'),
		ARRAY(SELECT md5(i::text) FROM generate_series(1, 20000) AS i))::bytea AS agg_is_add_all,
	sub::bytea = (SELECT bloomfilter_add_all(bloomfilter_create(20000, 0.01, 'counting'),
		ARRAY(SELECT md5(i::text) FROM generate_series(2000, 1, -1) AS i)))::bytea AS any_order,
	(bloomfilter_create_bits(64, 3, 'counting') || 'x'::text || 'y'::text)::bytea =
		bloomfilter_add(bloomfilter_add(bloomfilter_create_bits(64, 3, 'counting'), 'x'::text), 'y'::text)::bytea AS op_is_add,
	(bloomfilter_info(whole)).items_added AS items
FROM counting_f;

-- duplicates count: the aggregate and add_all agree on a multiset too
SELECT bloomfilter_agg(i % 7, 100, 0.01, 'counting')::bytea =
	bloomfilter_add_all(bloomfilter_create(100, 0.01, 'counting'),
		ARRAY(SELECT i % 7 FROM generate_series(1, 100) AS i))::bytea AS multiset_agg,
	(bloomfilter_info(bloomfilter_agg(i % 7, 100, 0.01, 'counting'))).saturated_counters > 0 AS saturated
FROM generate_series(1, 100) AS i;

--
-- remove, for every element type: adding and removing gives back the bytes
-- of the filter before (nothing saturated)
--
CREATE TABLE counting_e AS
SELECT bloomfilter_create(1000, 0.01, 'counting') || 'base'::text AS e;
SELECT bloomfilter_remove(e || 'hello'::text, 'hello'::text)::bytea = e::bytea AS text,
	bloomfilter_remove(e || 'hello'::varchar, 'hello'::varchar)::bytea = e::bytea AS varchar,
	bloomfilter_remove(e || '\x00ff'::bytea, '\x00ff'::bytea)::bytea = e::bytea AS bytea,
	bloomfilter_remove(e || 42::smallint, 42::smallint)::bytea = e::bytea AS smallint,
	bloomfilter_remove(e || 42, 42)::bytea = e::bytea AS integer,
	bloomfilter_remove(e || 42::bigint, 42::bigint)::bytea = e::bytea AS bigint,
	bloomfilter_remove(e || 42::smallint, 42::bigint)::bytea = e::bytea AS across_widths,
	bloomfilter_remove(e || 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid,
		'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid)::bytea = e::bytea AS uuid,
	bloomfilter_remove(e || 1.5::numeric, 1.5::numeric)::bytea = e::bytea AS numeric,
	bloomfilter_remove(e || '2000-01-02'::date, '2000-01-02'::date)::bytea = e::bytea AS date,
	bloomfilter_remove(e || 'hello'::text, 'hello'::text) @> 'hello'::text AS still_there
FROM counting_e;

-- removing one of two copies keeps the element; the second remove drops it
SELECT bloomfilter_remove(e || 7 || 7, 7) @> 7 AS one_copy_left,
	bloomfilter_remove(bloomfilter_remove(e || 7 || 7, 7), 7) @> 7 AS none_left,
	bloomfilter_remove(bloomfilter_remove(e || 7 || 7, 7), 7)::bytea = e::bytea AS back_to_start,
	(bloomfilter_info(bloomfilter_remove(e || 7 || 7, 7))).items_added AS items
FROM counting_e;

-- an element certainly absent: the filter comes back unchanged, byte for byte
SELECT count(*) AS strangers_tried,
	count(*) FILTER (WHERE bloomfilter_remove(f, x)::bytea <> f::bytea) AS changed
FROM (SELECT a AS f FROM counting_f) AS s,
	LATERAL (SELECT md5(i::text) AS x FROM generate_series(10001, 12000) AS i) AS y
WHERE NOT f @> x;
-- NULL: remove NULL returns f, a NULL filter gives NULL
SELECT bloomfilter_remove(e, NULL::text)::bytea = e::bytea AS null_element,
	bloomfilter_remove(e, NULL::integer)::bytea = e::bytea AS null_integer,
	bloomfilter_remove(NULL::bloomfilter, 'x'::text) IS NULL AS null_filter
FROM counting_e;
-- in an UPDATE, as with ||
CREATE TABLE counting_u AS SELECT 1 AS id, bloomfilter_create(100, 0.01, 'counting') || 1 || 2 AS f;
UPDATE counting_u SET f = bloomfilter_remove(f, 1);
SELECT f @> 1 AS removed_present, f @> 2 AS kept_present, (bloomfilter_info(f)).items_added FROM counting_u;

-- remove half of the whole: the other half all stays, the removed half
-- answers like strangers; removing the rest gives the empty filter back
CREATE TABLE counting_r AS SELECT whole AS f FROM counting_f;
-- removes md5(i::text) for i = first, first + 2, ... up to 20000, one bloomfilter_remove at a time
CREATE PROCEDURE counting_remove_every_other(first int)
LANGUAGE plpgsql AS $$
DECLARE
	g bloomfilter;
BEGIN
	SELECT f INTO g FROM counting_r;
	FOR i IN first..20000 BY 2 LOOP
		g := bloomfilter_remove(g, md5(i::text));
	END LOOP;
	UPDATE counting_r SET f = g;
END
$$;
CALL counting_remove_every_other(2);
SELECT (bloomfilter_info(f)).items_added AS items,
	(SELECT count(*) FROM generate_series(1, 20000, 2) AS i WHERE NOT f @> md5(i::text)) AS odd_lost,
	(SELECT count(*) FROM generate_series(2, 20000, 2) AS i WHERE f @> md5(i::text)) < 50 AS even_mostly_gone,
	f::bytea = (SELECT bloomfilter_agg(md5(i::text), 20000, 0.01, 'counting')
				FROM generate_series(1, 20000, 2) AS i)::bytea AS same_as_odd_only
FROM counting_r;
CALL counting_remove_every_other(1);
SELECT f::bytea = bloomfilter_create(20000, 0.01, 'counting')::bytea AS empty_again,
	(bloomfilter_info(f)).bits_set
FROM counting_r;

--
-- saturation: 15 is the most a counter holds, and a saturated counter is
-- never decremented, so removing never causes a false negative
--
CREATE TABLE counting_s AS
SELECT bloomfilter_add_all(bloomfilter_create_bits(1000, 5, 'counting'),
	array_fill('dup'::text, ARRAY[20])) AS f;
SELECT (bloomfilter_info(f)).bits_set, (bloomfilter_info(f)).saturated_counters,
	(bloomfilter_info(f)).items_added
FROM counting_s;
DO $$
DECLARE
	g bloomfilter;
BEGIN
	SELECT f INTO g FROM counting_s;
	FOR i IN 1..20 LOOP
		g := bloomfilter_remove(g, 'dup'::text);
	END LOOP;
	UPDATE counting_s SET f = g;
END
$$;
SELECT f @> 'dup'::text AS still_present, (bloomfilter_info(f)).saturated_counters,
	(bloomfilter_info(f)).items_added
FROM counting_s;
-- three adds and three removes of an element alone: gone, nothing left set
SELECT bloomfilter_remove(bloomfilter_remove(bloomfilter_remove(f, 'three'::text), 'three'::text), 'three'::text) @> 'three'::text AS three_gone,
	(bloomfilter_info(bloomfilter_remove(bloomfilter_remove(bloomfilter_remove(f, 'three'::text), 'three'::text), 'three'::text))).bits_set AS bits_set
FROM (SELECT bloomfilter_create_bits(1000, 5, 'counting') || 'three'::text || 'three'::text || 'three'::text AS f) AS s;

--
-- union adds counters (saturating): the union of the halves is the filter
-- of the whole, byte for byte, and so is the union of partial aggregates
--
SELECT (a | b)::bytea = whole::bytea AS op_union,
	(b | a)::bytea = whole::bytea AS op_union_swapped,
	bloomfilter_union(a, b)::bytea = whole::bytea AS fn_union,
	bloomfilter_union(a::text::bloomfilter, b::text::bloomfilter)::bytea = whole::bytea AS text_union,
	(SELECT bloomfilter_union_agg(f) FROM (VALUES (a), (b)) AS v(f))::bytea = whole::bytea AS union_agg,
	(bloomfilter_info(a | b)).items_added,
	(a | a)::bytea <> a::bytea AS self_union_counts_twice,
	bloomfilter_remove(a | a, md5('1')) @> md5('1') AS twice_survives_a_remove
FROM counting_f;
-- with saturated counters too: 10 copies on each side are 20 copies
SELECT (x | x)::bytea = bloomfilter_add_all(bloomfilter_create_bits(1000, 5, 'counting'),
		array_fill('dup'::text, ARRAY[20]))::bytea AS saturated_union,
	(bloomfilter_info(x | x)).saturated_counters
FROM (SELECT bloomfilter_add_all(bloomfilter_create_bits(1000, 5, 'counting'),
		array_fill('dup'::text, ARRAY[10])) AS x) AS s;
-- parallel aggregation combines partial states with the same union
CREATE TABLE counting_p AS SELECT i, md5(i::text) AS s FROM generate_series(1, 30000) AS i;
ANALYZE counting_p;
CALL force_parallel_plans();
CREATE TABLE counting_pf AS SELECT bloomfilter_agg(s, 30000, 0.01, 'counting') AS f FROM counting_p;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SELECT f::bytea = (SELECT bloomfilter_agg(s, 30000, 0.01, 'counting') FROM counting_p)::bytea AS parallel_equals_serial
FROM counting_pf;

--
-- intersection: the counter-wise minimum keeps every common element, and
-- bounds the counters of the multiset intersection, so common elements can
-- be removed from it
--
SELECT bloomfilter_contains_all(a & sub, ARRAY(SELECT md5(i::text) FROM generate_series(1, 2000) AS i)) AS subset_kept,
	(a & sub)::bytea = (sub & a)::bytea AS commutes,
	(a & a)::bytea = a::bytea AS self_and,
	bloomfilter_intersect(whole, a)::bytea = a::bytea AS whole_and_half,
	(bloomfilter_info(a & sub)).items_added AS and_items,
	(SELECT count(*) FROM generate_series(1, 20000) AS i WHERE ab @> md5(i::text)) < 100 AS disjoint_mostly_empty,
	(SELECT bloomfilter_intersect_agg(f) FROM (VALUES (whole), (a), (sub)) AS v(f))::bytea = sub::bytea AS intersect_agg
FROM counting_f, LATERAL (SELECT a & b AS ab OFFSET 0) AS x;
-- multisets: three copies and two copies meet in two
SELECT (x3 & x2)::bytea = x2::bytea AS min_of_copies,
	bloomfilter_remove(bloomfilter_remove(x3 & x2, 'm'::text), 'm'::text) @> 'm'::text AS two_removes_empty_it
FROM (SELECT bloomfilter_create_bits(500, 4, 'counting') || 'm'::text || 'm'::text || 'm'::text AS x3,
		bloomfilter_create_bits(500, 4, 'counting') || 'm'::text || 'm'::text AS x2) AS s;

-- counting filters combine only with counting filters of the same shape
-- ERROR:  cannot combine bloomfilters of different parameters
SELECT bloomfilter_create(1000, 0.01, 'counting') | bloomfilter_create(1000, 0.01, 'classic');
SELECT sqlstate_of('SELECT bloomfilter_create(1000, 0.01, ''counting'') & bloomfilter_create(1000, 0.01, ''classic'')') AS intersect_classic,
	sqlstate_of('SELECT bloomfilter_create(1000, 0.01, ''counting'') | bloomfilter_create(2000, 0.01, ''counting'')') AS union_other_size,
	bloomfilter_is_compatible(bloomfilter_create(1000, 0.01, 'counting'), bloomfilter_create_bits(9586, 7, 'counting')) AS same_shape,
	bloomfilter_create(1000, 0.01, 'counting') = bloomfilter_create_bits(9586, 7, 'counting') AS same_shape_equal,
	bloomfilter_create(1000, 0.01, 'counting') = bloomfilter_create(1000, 0.01, 'classic') AS other_variant_equal;
-- and the other variants refuse to remove, naming the ones that can
-- ERROR:  classic filters do not support remove
SELECT bloomfilter_remove(bloomfilter_create(100, 0.01, 'classic'), 1);
SELECT sqlstate_of('SELECT bloomfilter_remove(bloomfilter_create(100), 1)') AS blocked_remove;

--
-- bloomfilter_info: bits_set counts non-zero counters, so fill, estimate and
-- rate are those of the classic filter of the same data; saturated_counters
-- counts counters at 15
--
SELECT (bloomfilter_info(whole)).bits_set = (bloomfilter_info(classic)).bits_set AS bits_set_as_classic,
	(bloomfilter_info(whole)).fill_ratio = (bloomfilter_info(classic)).fill_ratio AS fill_as_classic,
	(bloomfilter_info(whole)).estimated_items = (bloomfilter_info(classic)).estimated_items AS estimate_as_classic,
	(bloomfilter_info(whole)).estimated_fpr = (bloomfilter_info(classic)).estimated_fpr AS rate_as_classic,
	abs((bloomfilter_info(whole)).estimated_items - 20000) < 400 AS estimate_close,
	abs((# whole) - 20000) < 400 AS cardinality_close,
	(bloomfilter_info(whole)).saturated_counters AS saturated,
	(bloomfilter_info(whole)).stages AS stages
FROM counting_f;
-- 'hello' twice and 42: six counters set, none saturated; the rate now is
-- (6 / 20)^3; then 'hello' 15 times: its three counters saturate
SELECT variant, bits, bytes, hashes, items_added, bits_set, fill_ratio,
	round(estimated_items::numeric, 6) AS estimated_items,
	round(estimated_fpr::numeric, 6) AS estimated_fpr, capacity, target_fpr,
	stages, saturated_counters
FROM bloomfilter_info(bloomfilter_create_bits(20, 3, 'counting') || 'hello'::text || 'hello'::text || 42);
SELECT items_added, bits_set, saturated_counters
FROM bloomfilter_info(bloomfilter_add_all(bloomfilter_create_bits(20, 3, 'counting') || 42,
	array_fill('hello'::text, ARRAY[15])));
SELECT * FROM bloomfilter_info(bloomfilter_create_bits(20, 3, 'counting'));

--
-- the stored form: text, bytea and binary round trips
--
SELECT whole::text::bloomfilter::bytea = whole::bytea AS text_round_trip,
	whole::bytea::bloomfilter::bytea = whole::bytea AS bytea_round_trip,
	bloomfilter_send(whole) = whole::bytea AS send_is_the_bytes,
	octet_length(whole::text) <= 1.4 * octet_length(whole::bytea) AS compact_text
FROM counting_f;
\copy counting_f TO 'results/variant_counting_copy.bin' WITH (FORMAT binary)
CREATE TABLE counting_copied (LIKE counting_f);
\copy counting_copied FROM 'results/variant_counting_copy.bin' WITH (FORMAT binary)
SELECT c.a::bytea = f.a::bytea AND c.b::bytea = f.b::bytea AND c.whole::bytea = f.whole::bytea AS binary_copy_round_trip
FROM counting_copied AS c, counting_f AS f;
-- the documented bytes (STORAGE.md): 20 counters, 3 hashes, 'hello' twice
-- and 42; removing one 'hello' leaves counters of 1 where it had 2
SELECT encode((bloomfilter_create_bits(20, 3, 'counting') || 'hello'::text || 'hello'::text || 42)::bytea, 'hex');
SELECT encode(bloomfilter_remove(bloomfilter_create_bits(20, 3, 'counting') || 'hello'::text || 'hello'::text || 42, 'hello'::text)::bytea, 'hex');

--
-- hostile bytes: an empty filter of 20 counters (valid), a padding counter
-- set (refused), the last real counter set (valid), a padding counter of a
-- 21-counter filter (refused) and its counter 20 (valid), the payload size
-- of 8 bytes (refused), a variant word (refused)
--
SELECT what, sqlstate_of(format('SELECT %L::bytea::bloomfilter', hex)) AS cast_state,
	sqlstate_of(format('SELECT %L::bloomfilter', translate(encode(decode(substr(hex, 3), 'hex'), 'base64'), E'\n', ''))) AS text_state
FROM (VALUES
	('empty', '\x424c4d4601030100030000000000000000000000000000001400000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000'),
	('padding counter 20', '\x424c4d4601030100030000000000000000000000000000001400000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000010000000000'),
	('counter 19', '\x424c4d4601030100030000000000000000000000000000001400000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000010000000000000'),
	('21 counters, padding 21', '\x424c4d4601030100030000000000000000000000000000001500000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000100000000000'),
	('21 counters, counter 20', '\x424c4d46010301000300000000000000000000000000000015000000000000000000000000000000000000000000000000000000000000001000000000000000000000000000000000000f0000000000'),
	('payload 8 bytes', '\x424c4d460103010003000000000000000000000000000000140000000000000000000000000000000000000000000000000000000000000008000000000000000000000000000000'),
	('variant word 1', '\x424c4d4601030100030000000100000000000000000000001400000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000')
) AS t(what, hex);
-- ERROR:  invalid binary data for type bloomfilter
SELECT '\x424c4d4601030100030000000000000000000000000000001400000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000010000000000'::bytea::bloomfilter;
SELECT '\x424c4d46010301000300000000000000000000000000000015000000000000000000000000000000000000000000000000000000000000001000000000000000000000000000000000000f0000000000'::bytea::bloomfilter @> 'x'::text AS counter_20_alone;

--
-- no function changes the filters it is given (small filters, stored
-- inline and uncompressed, so the functions see the table's own bytes)
--
CREATE TABLE counting_keep AS
SELECT k AS id, f, md5(f::bytea) AS h
FROM (SELECT k, bloomfilter_agg(i, 300, 0.01, 'counting') AS f
	  FROM generate_series(1, 300) AS i, generate_series(1, 3) AS k
	  WHERE i % k = 0 GROUP BY k) AS s;
SELECT id, octet_length(f::bytea) < 2000 AS small, pg_column_compression(f) IS NULL AS not_compressed
FROM counting_keep ORDER BY id;
SELECT count(*) AS calls FROM counting_keep AS x, counting_keep AS y
WHERE md5((x.f | y.f)::bytea) <> '' AND md5((x.f & y.f)::bytea) <> ''
	AND md5(bloomfilter_remove(x.f, y.id)::bytea) <> '' AND md5(bloomfilter_remove(x.f, -1)::bytea) <> ''
	AND md5((x.f || y.id)::bytea) <> '' AND md5(bloomfilter_add_all(x.f, ARRAY[1, 2, 3])::bytea) <> ''
	AND (bloomfilter_info(x.f)).bits_set > 0 AND # x.f > 0 AND x.f @> x.id;
SELECT md5(bloomfilter_union_agg(f)::bytea) <> '' AS union_agg,
	md5(bloomfilter_intersect_agg(f)::bytea) <> '' AS intersect_agg
FROM counting_keep;
SELECT bool_and(md5(f::bytea) = h) AS unchanged FROM counting_keep;

--
-- bloomfilter_count: the copies of an element (RedisBloom's CF.COUNT); never fewer than
-- were added and not removed, exact where no other element shares the counters, 15 at most
--
SELECT bloomfilter_count(f, 7) AS three, bloomfilter_count(bloomfilter_remove(f, 7), 7) AS two,
	bloomfilter_count(f, 7::bigint) AS bigint_three, bloomfilter_count(f, 1.0::numeric) AS numeric_three,
	bloomfilter_count(f, 8) AS absent, bloomfilter_count(f, NULL::int) AS null_is_null,
	bloomfilter_count(bloomfilter_add_all(f, array_fill(9, ARRAY[40])), 9) AS saturated_fifteen
FROM (SELECT bloomfilter_create(1000, 0.01, 'counting') || 7 || 7 || 1 || 7 || 1 || 1 AS f) AS s;
-- 2,000 elements, each added 1 to 5 times: every count at least the copies, and exact here
WITH m AS (SELECT g, 1 + g % 5 AS copies FROM generate_series(1, 2000) AS g),
	f AS (SELECT bloomfilter_add_all(bloomfilter_create(6000, 0.01, 'counting'),
		ARRAY(SELECT g FROM m, generate_series(1, copies))) AS f)
SELECT count(*) FILTER (WHERE bloomfilter_count(f, g) >= copies) AS never_fewer,
	count(*) FILTER (WHERE bloomfilter_count(f, g) = copies) >= 1990 AS nearly_all_exact,
	(SELECT count(*) FROM generate_series(-2000, -1) AS x WHERE bloomfilter_count(f, x) > 0) < 60 AS strangers_mostly_zero
FROM m, f GROUP BY f;
-- the aggregate counts every row, as the function and || do
SELECT bloomfilter_count(bloomfilter_agg(v, 100, 0.01, 'counting'), 1) AS agg_three
FROM unnest(ARRAY[1, 1, 1, 2]) AS v;
-- the variants that keep no copies say so
SELECT v, e.*
FROM unnest(ARRAY['blocked', 'classic', 'scalable']) AS v,
	LATERAL error_of(format('SELECT bloomfilter_count(bloomfilter_create(100, 0.01, %L) || 1, 1)', v)) AS e;

DROP TABLE counting_f, counting_e, counting_u, counting_r, counting_s, counting_p,
	counting_pf, counting_copied, counting_keep;
DROP PROCEDURE counting_remove_every_other(int);
