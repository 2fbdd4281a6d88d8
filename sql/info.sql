--
-- info: bloomfilter_info and bloomfilter_cardinality (prefix #).
--
-- Exact values for empty filters of each variant; bytes and the sizing
-- columns; estimated_items within a few percent of the true distinct count
-- from 10 % of capacity up to capacity, and not raised by duplicates;
-- estimated_fpr near the target at capacity and near the measured rate;
-- a full filter estimates Infinity.
--
--
-- empty filters: every column
--
SELECT * FROM bloomfilter_info(bloomfilter_create(1000, 0.01, 'blocked'));
SELECT * FROM bloomfilter_info(bloomfilter_create(1000, 0.01, 'classic'));
SELECT * FROM bloomfilter_info(bloomfilter_create(1000, 0.001, 'blocked', 42));
SELECT * FROM bloomfilter_info(bloomfilter_create(1000, 0.001, 'classic', -42));
-- made from bits and hashes: no planned capacity or target rate
SELECT * FROM bloomfilter_info(bloomfilter_create_bits(1000, 3));
SELECT * FROM bloomfilter_info(bloomfilter_create_bits(1000, 3, 'blocked', 7));
SELECT # bloomfilter_create(1000) AS empty_cardinality,
	bloomfilter_cardinality(bloomfilter_create(1000, 0.01, 'classic')) AS empty_cardinality_classic;

-- a filter made for n items holds n items at its target rate; classic keeps
-- the textbook sizing (k rounded to an integer), which holds at least 99 %
SELECT v, p, bool_and((bloomfilter_info(bloomfilter_create(n, p, v))).capacity >=
	CASE v WHEN 'classic' THEN 0.99 * n ELSE n END) AS holds_expected_items
FROM (VALUES ('blocked'), ('classic')) AS x(v), unnest(ARRAY[100, 1000, 10000, 1000000]) AS n,
	unnest(ARRAY[0.01, 0.001]::float8[]) AS p
GROUP BY v, p ORDER BY v, p;

--
-- bytes is the size of the serialised filter; fill_ratio is bits_set / bits;
-- a filter of n items counts n
--
CREATE TABLE info_small AS
SELECT v, n, bloomfilter_agg(i, n, 0.01, v) AS f
FROM (VALUES ('blocked'), ('classic')) AS x(v), (VALUES (10), (1000), (100000)) AS y(n),
	generate_series(1, 100000) AS i
WHERE i <= n
GROUP BY v, n;
INSERT INTO info_small
SELECT 'classic', 0, bloomfilter_add_all(bloomfilter_create_bits(64, 1), ARRAY[1, 2, 3]);

SELECT v, n, (i).items_added,
	(i).bytes = octet_length(f::bytea) AS bytes_ok,
	(i).fill_ratio = (i).bits_set::float8 / (i).bits AS fill_ok,
	(i).bits_set BETWEEN 1 AND (i).hashes * (i).items_added AS bits_set_ok,
	(i).capacity >= 0.99 * n AS capacity_ok,
	(i).target_fpr AS target_fpr,
	(i).stages
FROM (SELECT v, n, f, bloomfilter_info(f) AS i FROM info_small) AS s
ORDER BY v, n;

SELECT v, bool_and(# f = bloomfilter_cardinality(f)) AS prefix_is_function,
	bool_and(# f = (bloomfilter_info(f)).estimated_items) AS same_as_info
FROM info_small GROUP BY v ORDER BY v;
SELECT # NULL::bloomfilter IS NULL AS null_cardinality,
	bloomfilter_info(NULL) IS NULL AS null_info;

--
-- estimated_items tracks the distinct count: within 3 % at 10, 25 and 50 % of
-- capacity, within 5 % at capacity; estimated_fpr at capacity is within 20 %
-- of the target
--
CREATE TABLE info_acc AS
SELECT v,
	bloomfilter_agg(md5(i::text), 200000, 0.01, v) FILTER (WHERE i <= 20000) AS f10,
	bloomfilter_agg(md5(i::text), 200000, 0.01, v) FILTER (WHERE i <= 50000) AS f25,
	bloomfilter_agg(md5(i::text), 200000, 0.01, v) FILTER (WHERE i <= 100000) AS f50,
	bloomfilter_agg(md5(i::text), 200000, 0.01, v) AS f100
FROM generate_series(1, 200000) AS i, (VALUES ('blocked'), ('classic')) AS x(v)
GROUP BY v;

SELECT v,
	abs((# f10) / 20000 - 1) < 0.03 AS at_10_percent,
	abs((# f25) / 50000 - 1) < 0.03 AS at_25_percent,
	abs((# f50) / 100000 - 1) < 0.03 AS at_50_percent,
	abs((# f100) / 200000 - 1) < 0.05 AS at_capacity,
	abs((bloomfilter_info(f100)).estimated_fpr / 0.01 - 1) < 0.2 AS fpr_at_capacity,
	(bloomfilter_info(f10)).estimated_fpr < (bloomfilter_info(f25)).estimated_fpr
		AND (bloomfilter_info(f25)).estimated_fpr < (bloomfilter_info(f50)).estimated_fpr
		AND (bloomfilter_info(f50)).estimated_fpr < (bloomfilter_info(f100)).estimated_fpr AS fpr_grows
FROM info_acc ORDER BY v;

-- the estimated rate is the rate strangers meet: 200,000 probes of items
-- never added, measured against estimated_fpr
SELECT v,
	abs(m.rate / (bloomfilter_info(f100)).estimated_fpr - 1) < 0.15 AS measured_matches_estimate,
	m.rate <= 0.011 AS measured_within_target
FROM info_acc,
	LATERAL (SELECT count(*) FILTER (WHERE f100 @> md5((-i)::text))::float8 / 200000 AS rate
			 FROM generate_series(1, 200000) AS i) AS m
ORDER BY v;

--
-- duplicates raise items_added but not the estimate
--
SELECT v,
	(bloomfilter_info(twice)).items_added AS items_twice,
	(bloomfilter_info(once)).items_added AS items_once,
	# twice = # once AS same_estimate,
	abs((# twice) / 20000 - 1) < 0.03 AS estimate_is_distinct_count,
	twice = once AS same_bits
FROM (SELECT v, bloomfilter_agg(md5(i::text), 200000, 0.01, v) AS twice,
		bloomfilter_agg(md5(i::text), 200000, 0.01, v) FILTER (WHERE k = 1) AS once
	  FROM generate_series(1, 20000) AS i, generate_series(1, 2) AS k,
		(VALUES ('blocked'), ('classic')) AS x(v)
	  GROUP BY v) AS s
ORDER BY v;

--
-- a full filter: every bit set, the estimate is Infinity and every stranger
-- is a false positive
--
SELECT (i).variant, (i).bits, (i).items_added, (i).bits_set, (i).fill_ratio,
	(i).estimated_items, (i).estimated_fpr
FROM (SELECT bloomfilter_info(f) AS i
	  FROM (VALUES (bloomfilter_add_all(bloomfilter_create_bits(64, 1, 'classic'),
									   ARRAY(SELECT generate_series(1, 5000)))),
		 (bloomfilter_add_all(bloomfilter_create_bits(512, 1, 'blocked'),
							  ARRAY(SELECT generate_series(1, 20000))))) AS x(f)) AS s
ORDER BY 1;
SELECT # bloomfilter_add_all(bloomfilter_create_bits(64, 1, 'classic'),
							 ARRAY(SELECT generate_series(1, 5000))) AS full_cardinality;

DROP TABLE info_small, info_acc;
