--
-- variant_scalable: the scalable variant, a chain of blocked stages that
-- grows.  Construction (n is the first stage's capacity, p the bound of the
-- whole chain), growth by add_all, || and the aggregates to 100 times the
-- first stage with no false negatives and the rate within p, repeated
-- elements that do not grow it, union (stage by stage when the sets fit,
-- else keeping every stage) and union_agg, intersection of single stages
-- only, bloomfilter_info, the text, bytea and binary forms, the documented
-- bytes, hostile stage tables, the refusals (create_bits, remove, longer
-- intersections), and that no function changes the filters it is given.
--
--
-- construction: one stage of level 0 for n0 = 1000 items at p (1 - 0.85),
-- sized by the blocked model; 64 header bytes, a 64-byte stage header and
-- the blocks.  capacity is that of the first stage.
--
SELECT (bloomfilter_info(f)).variant, (bloomfilter_info(f)).bits,
	(bloomfilter_info(f)).bytes, (bloomfilter_info(f)).hashes,
	(bloomfilter_info(f)).capacity, (bloomfilter_info(f)).target_fpr,
	(bloomfilter_info(f)).stages, (bloomfilter_info(f)).items_added,
	(bloomfilter_info(f)).bytes = 64 + 64 + (bloomfilter_info(f)).bits / 8 AS documented_size
FROM (SELECT bloomfilter_create(1000, 0.01, 'scalable') AS f) AS c;
-- the first stage is a blocked filter planned for 1000 items at 0.0015
SELECT bloomfilter_optimal_bits(1000, 0.01, 'scalable') AS bits,
	bloomfilter_optimal_bits(1000, 0.01, 'scalable') =
		bloomfilter_optimal_bits(1000, 0.01 * (1 - 0.85), 'blocked') AS first_stage_is_blocked,
	bloomfilter_capacity(bloomfilter_optimal_bits(1000, 0.01, 'scalable'), 0.01, 'scalable') >= 1000 AS capacity_holds_n0;
SELECT variant, bits, bytes, hashes, expected_fpr <= 0.01 * 0.15 AS first_stage_within_p0,
	supports_remove, supports_union
FROM bloomfilter_plan(1000, 0.01) WHERE variant = 'scalable';
-- a bit count has no rate to tighten; the chain cannot remove
-- ERROR:  scalable filters cannot be built with bloomfilter_create_bits
SELECT bloomfilter_create_bits(14848, 9, 'scalable');
-- ERROR:  scalable filters do not support remove
SELECT bloomfilter_remove(bloomfilter_create(1000, 0.01, 'scalable'), 'x'::text);
SELECT sqlstate_of('SELECT bloomfilter_create_bits(14848, 9, ''scalable'')') AS create_bits,
	-- at any size: not built from bits, rather than "past 1 GB"
	sqlstate_of('SELECT bloomfilter_create_bits(10000000000, 7, ''scalable'')') AS create_bits_past_1gb,
	sqlstate_of('SELECT bloomfilter_remove(bloomfilter_create(1000, 0.01, ''scalable''), 1)') AS remove,
	sqlstate_of('SELECT bloomfilter_create(0, 0.01, ''scalable'')') AS no_items,
	sqlstate_of('SELECT bloomfilter_create(1000, 1, ''scalable'')') AS rate_one,
	sqlstate_of('SELECT bloomfilter_create(1000000000, 0.01, ''scalable'')') AS first_stage_past_1gb;

--
-- growth: 100 times the first stage.  Stage j holds 1000 * 2^j items, so
-- 100,000 items need 7 stages (capacity 127,000); the aggregate, add_all
-- and || build the same bytes
--
CREATE TABLE scalable_f AS
SELECT bloomfilter_add_all(bloomfilter_create(1000, 0.01, 'scalable'),
		ARRAY(SELECT md5(i::text) FROM generate_series(1, 100000) AS i)) AS whole,
	(SELECT bloomfilter_agg(md5(i::text), 1000, 0.01, 'scalable') FROM generate_series(1, 100000) AS i) AS agg,
	(SELECT bloomfilter_agg(md5(i::text), 1000, 0.01, 'scalable') FROM generate_series(1, 50000) AS i) AS a,
	(SELECT bloomfilter_agg(md5(i::text), 1000, 0.01, 'scalable') FROM generate_series(50001, 100000) AS i) AS b,
	(SELECT bloomfilter_agg(md5(i::text), 1000, 0.01, 'scalable') FROM generate_series(1, 300) AS i) AS small_a,
	(SELECT bloomfilter_agg(md5(i::text), 1000, 0.01, 'scalable') FROM generate_series(301, 600) AS i) AS small_b,
	(SELECT bloomfilter_agg(md5(i::text), 1000, 0.01, 'scalable') FROM generate_series(1, 600) AS i) AS small_ab;
SELECT agg::bytea = whole::bytea AS agg_is_add_all,
	(bloomfilter_info(whole)).stages,
	(bloomfilter_info(whole)).stages > 1 AS grew,
	(bloomfilter_info(whole)).items_added,
	(bloomfilter_info(whole)).bytes,
	(bloomfilter_info(whole)).target_fpr,
	(SELECT count(*) FROM generate_series(1, 100000) AS i WHERE NOT whole @> md5(i::text)) AS false_negatives,
	(SELECT count(*) FROM generate_series(100001, 200000) AS i WHERE whole @> md5(i::text)) / 100000.0 <= 0.01 AS fpr_within_target,
	(bloomfilter_info(whole)).estimated_fpr <= 0.01 AS rate_now_within_target,
	abs((bloomfilter_info(whole)).estimated_items - 100000) < 3000 AS estimate_close,
	abs((# whole) - 100000) < 3000 AS cardinality_close
FROM scalable_f;
-- the same with || one element at a time, and with bloomfilter_add
DO $$
DECLARE
	g bloomfilter := bloomfilter_create(100, 0.01, 'scalable');
	h bloomfilter := bloomfilter_create(100, 0.01, 'scalable');
BEGIN
	FOR i IN 1..2000 LOOP
		g := g || i;
		h := bloomfilter_add(h, i);
	END LOOP;
	RAISE NOTICE 'stages %, same as add_all %, same as add %, all present %',
		(bloomfilter_info(g)).stages,
		g::bytea = bloomfilter_add_all(bloomfilter_create(100, 0.01, 'scalable'),
									   ARRAY(SELECT generate_series(1, 2000)))::bytea,
		g::bytea = h::bytea,
		bloomfilter_contains_all(g, ARRAY(SELECT generate_series(1, 2000)));
END
$$;

-- repeated elements count as items but neither set bits nor grow the chain
SELECT (bloomfilter_info(again)).stages = (bloomfilter_info(whole)).stages AS same_stages,
	(bloomfilter_info(again)).bits_set = (bloomfilter_info(whole)).bits_set AS same_bits_set,
	substr(again::bytea, 41) = substr(whole::bytea, 41) AS same_bytes_past_items,
	(bloomfilter_info(again)).items_added
FROM (SELECT whole, bloomfilter_add_all(whole,
		ARRAY(SELECT md5(i::text) FROM generate_series(1, 100000) AS i)) AS again
	  FROM scalable_f) AS s;

-- membership functions and operators
SELECT bloomfilter_contains(whole, md5('1')) AS fn_contains,
	whole @> md5('99999') AS op_contains,
	md5('1') <@ whole AS op_contained,
	whole @> 'absent'::text AS absent,
	bloomfilter_contains_all(whole, ARRAY[md5('1'), md5('50000'), md5('100000')]) AS contains_all,
	bloomfilter_contains_all(whole, ARRAY[md5('1'), 'absent']) AS contains_all_absent,
	bloomfilter_contains_any(whole, ARRAY['absent', md5('7')]) AS contains_any,
	bloomfilter_contains_any(whole, ARRAY['absent', 'gone']) AS contains_any_absent
FROM scalable_f;
-- every element type, in a filter that grew
SELECT f @> 'text'::text AS text, f @> '\x00ff'::bytea AS bytea,
	f @> 42 AS integer, f @> 42::smallint AS smallint, f @> 42::bigint AS bigint,
	f @> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS uuid,
	f @> 1.5::numeric AS numeric, (bloomfilter_info(f)).stages
FROM (SELECT bloomfilter_create(2, 0.01, 'scalable') || 'text'::text || '\x00ff'::bytea
		|| 42 || 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid || 1.5::numeric AS f) AS s;

--
-- union: the two halves have 6 stages each, all full but the last; they
-- do not fit together, so the union keeps all 12 (its rate bound is the
-- sum of their rates, below 2 p); it holds every element
--
CREATE TABLE scalable_u AS SELECT a | b AS ab FROM scalable_f;
SELECT (bloomfilter_info(a)).stages AS a_stages, (bloomfilter_info(b)).stages AS b_stages,
	(bloomfilter_info(ab)).stages AS union_stages,
	(bloomfilter_info(ab)).items_added,
	(SELECT count(*) FROM generate_series(1, 100000) AS i WHERE NOT ab @> md5(i::text)) AS false_negatives,
	(SELECT count(*) FROM generate_series(100001, 200000) AS i WHERE ab @> md5(i::text)) / 100000.0 <= 0.02 AS fpr_within_twice,
	bloomfilter_union(a, b)::bytea = ab::bytea AS fn_union,
	(SELECT bloomfilter_union_agg(f) FROM (VALUES (a), (b)) AS v(f))::bytea = ab::bytea AS union_agg,
	bloomfilter_union(a::text::bloomfilter, b::text::bloomfilter)::bytea = ab::bytea AS text_union
FROM scalable_f, scalable_u;
-- the union grows on from the level after its highest
SELECT (bloomfilter_info(u)).stages AS stages,
	bloomfilter_contains_all(u, ARRAY(SELECT md5(i::text) FROM generate_series(1, 130000, 7) AS i)) AS all_present
FROM (SELECT bloomfilter_add_all(ab, ARRAY(SELECT md5(i::text) FROM generate_series(100001, 130000) AS i)) AS u
	  FROM scalable_u) AS s;
-- small sets that fit one stage together merge in place: the bits of the
-- filter built from both, and f | f is f
SELECT (bloomfilter_info(small_a | small_b)).stages,
	substr((small_a | small_b)::bytea, 129) = substr(small_ab::bytea, 129) AS same_blocks_as_built,
	(bloomfilter_info(small_a | small_b)).items_added,
	bloomfilter_contains_all(small_a | small_b, ARRAY(SELECT md5(i::text) FROM generate_series(1, 600) AS i)) AS all_present,
	substr((whole | whole)::bytea, 41) = substr(whole::bytea, 41) AS self_union,
	(bloomfilter_info(whole | whole)).items_added AS self_union_items
FROM scalable_f;
-- chains of different lengths: the core unites them (keeping every stage
-- of both), but the SQL layer refuses filters of different bit counts
-- (22023) until bf_compatible compares scalable filters by their plan
SELECT sqlstate_of('SELECT (SELECT a FROM scalable_f) | (SELECT small_a FROM scalable_f)') AS different_lengths;

--
-- intersection: a single stage holds every element of its chain, so two
-- single stages AND like blocked filters; longer chains would lose common
-- elements that sit in different stages, so they are refused
--
SELECT (bloomfilter_info(small_ab & small_a)).stages,
	bloomfilter_contains_all(small_ab & small_a, ARRAY(SELECT md5(i::text) FROM generate_series(1, 300) AS i)) AS common_kept,
	(small_ab & small_a)::bytea = (small_a & small_ab)::bytea AS commutes,
	(SELECT bloomfilter_intersect_agg(f) FROM (VALUES (small_ab), (small_a)) AS v(f))::bytea =
		(small_ab & small_a)::bytea AS intersect_agg
FROM scalable_f;
-- ERROR:  scalable filters do not support intersection
SELECT a & a FROM scalable_f;
SELECT sqlstate_of('SELECT bloomfilter_intersect(whole, agg) FROM scalable_f') AS longer_chains;

-- scalable filters combine only with scalable filters of the same plan
-- ERROR:  cannot combine bloomfilters of different parameters
SELECT bloomfilter_create(1000, 0.01, 'scalable') | bloomfilter_create(1000, 0.01, 'blocked');
SELECT sqlstate_of('SELECT bloomfilter_create(1000, 0.01, ''scalable'') | bloomfilter_create(2000, 0.01, ''scalable'')') AS other_n0,
	sqlstate_of('SELECT bloomfilter_create(1000, 0.01, ''scalable'', 1) | bloomfilter_create(1000, 0.01, ''scalable'', 2)') AS other_seed,
	bloomfilter_is_compatible(bloomfilter_create(1000, 0.01, 'scalable'), bloomfilter_create(1000, 0.01, 'scalable')) AS same_plan,
	bloomfilter_create(1000, 0.01, 'scalable') = bloomfilter_create(1000, 0.01, 'scalable') AS equal,
	small_a = small_b AS other_sets_equal
FROM scalable_f;

--
-- the aggregates without a size: a scalable filter at 1 % (or the rate
-- given) whose first stage holds 16384 items
--
SELECT (bloomfilter_info(f)).variant, (bloomfilter_info(f)).stages,
	(bloomfilter_info(f)).target_fpr,
	bloomfilter_contains_all(f, ARRAY(SELECT md5(i::text) FROM generate_series(1, 100000) AS i)) AS all_present,
	(SELECT count(*) FROM generate_series(100001, 200000) AS i WHERE f @> md5(i::text)) / 100000.0 <= 0.01 AS fpr_within_target,
	f::bytea = bloomfilter_add_all(bloomfilter_create(16384, 0.01, 'scalable'),
		ARRAY(SELECT md5(i::text) FROM generate_series(1, 100000) AS i))::bytea AS same_as_create_16384
FROM (SELECT bloomfilter_agg(md5(i::text)) AS f FROM generate_series(1, 100000) AS i) AS s;
SELECT (bloomfilter_info(f)).stages, (bloomfilter_info(f)).target_fpr,
	bloomfilter_contains_all(f, ARRAY(SELECT generate_series(1, 40000))) AS all_present,
	(SELECT count(*) FROM generate_series(-40000, -1) AS i WHERE f @> i) / 40000.0 <= 0.001 AS fpr_within_target
FROM (SELECT bloomfilter_agg(i, 0.001) AS f FROM generate_series(1, 40000) AS i) AS s;

--
-- bloomfilter_info of a tiny chain: three stages for 1, 2 and 4 items
--
SELECT * FROM bloomfilter_info(bloomfilter_create(1, 0.1, 'scalable') || 1 || 2 || 3 || 4 || 5 || 5);
SELECT * FROM bloomfilter_info(bloomfilter_create(1, 0.1, 'scalable'));

--
-- the stored form: text, bytea and binary round trips
--
SELECT whole::text::bloomfilter::bytea = whole::bytea AS text_round_trip,
	whole::bytea::bloomfilter::bytea = whole::bytea AS bytea_round_trip,
	bloomfilter_send(whole) = whole::bytea AS send_is_the_bytes,
	octet_length(whole::text) <= 1.4 * octet_length(whole::bytea) AS compact_text
FROM scalable_f;
\copy scalable_f TO 'results/variant_scalable_copy.bin' WITH (FORMAT binary)
CREATE TABLE scalable_copied (LIKE scalable_f);
\copy scalable_copied FROM 'results/variant_scalable_copy.bin' WITH (FORMAT binary)
SELECT c.whole::bytea = f.whole::bytea AND c.a::bytea = f.a::bytea AND c.small_ab::bytea = f.small_ab::bytea AS binary_copy_round_trip
FROM scalable_copied AS c, scalable_f AS f;
-- the documented bytes (STORAGE.md section 12): n0 = 1 at 10 %, seed 0,
-- after 'hello' (stage 0 full) and 42 (a second stage)
SELECT encode((bloomfilter_create(1, 0.1, 'scalable') || 'hello'::text)::bytea, 'hex');
SELECT encode((bloomfilter_create(1, 0.1, 'scalable') || 'hello'::text || 42)::bytea, 'hex');

--
-- hostile bytes, mutations of the one-stage example with 'hello': the
-- original (valid), the stage's level 1, held past its capacity, its k
-- changed, its bit count one block larger with the header to match, a
-- reserved stage byte, the header's k, 2 stages in the header, no target
-- rate (refused: a chain is planned from a rate)
--
CREATE TABLE scalable_h AS
SELECT (bloomfilter_create(1, 0.1, 'scalable') || 'hello'::text)::bytea AS good;
SELECT what, sqlstate_of(format('SELECT %L::bytea::bloomfilter', bad)) AS cast_state,
	sqlstate_of(format('SELECT %L::bloomfilter', translate(encode(bad, 'base64'), E'\n', ''))) AS text_state
FROM scalable_h, LATERAL (VALUES
	('original', good),
	('stage level 1', overlay(good placing '\x01'::bytea from 64 + 29)),
	('held 2 of 1', overlay(good placing '\x02'::bytea from 64 + 17)),
	('stage k + 1', overlay(good placing set_byte('\x00'::bytea, 0, get_byte(good, 64 + 24) + 1) from 64 + 25)),
	('stage reserved byte', overlay(good placing '\x01'::bytea from 64 + 33)),
	('header k + 1', overlay(good placing set_byte('\x00'::bytea, 0, get_byte(good, 8) + 1) from 9)),
	('two stages', overlay(good placing '\x02'::bytea from 13)),
	('no target rate', overlay(overlay(good placing '\x0000000000000000'::bytea from 49)
		placing '\x0000000000000000'::bytea from 41)),
	('truncated', substr(good, 1, length(good) - 8))
) AS t(what, bad);
-- ERROR:  invalid binary data for type bloomfilter
SELECT overlay(good placing '\x01'::bytea from 64 + 29)::bloomfilter FROM scalable_h;

--
-- no function changes the filters it is given (small filters, stored
-- inline and uncompressed, so the functions see the table's own bytes)
--
CREATE TABLE scalable_keep AS
SELECT k AS id, f, md5(f::bytea) AS h
FROM (SELECT k, bloomfilter_agg(i, 50, 0.01, 'scalable') AS f
	  FROM generate_series(1, 300) AS i, generate_series(1, 3) AS k
	  WHERE i % k = 0 GROUP BY k) AS s;
SELECT id, (bloomfilter_info(f)).stages, octet_length(f::bytea) < 2000 AS small,
	pg_column_compression(f) IS NULL AS not_compressed
FROM scalable_keep ORDER BY id;
SELECT count(*) AS calls FROM scalable_keep AS x, scalable_keep AS y
WHERE md5((x.f || y.id)::bytea) <> '' AND md5(bloomfilter_add_all(x.f, ARRAY[1001, 1002, 1003])::bytea) <> ''
	AND md5((x.f || 5000)::bytea) <> ''
	AND (bloomfilter_info(x.f)).bits_set > 0 AND # x.f > 0 AND x.f @> x.id
	AND bloomfilter_contains_all(x.f, ARRAY[x.id]);
SELECT (SELECT md5((f | f)::bytea) FROM scalable_keep WHERE id = 1) <> '' AS self_union,
	(SELECT md5(bloomfilter_union_agg(f)::bytea) FROM scalable_keep WHERE id > 1) <> '' AS union_agg;
SELECT bool_and(md5(f::bytea) = h) AS unchanged FROM scalable_keep;

DROP TABLE scalable_f, scalable_u, scalable_copied, scalable_h, scalable_keep;
