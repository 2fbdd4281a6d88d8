--
-- docs_claims: figures that README.md and doc/performance.md state and no other test checks.
-- (test/cluster/readme.sh runs the README's own blocks; this file holds what they do not show.)
--

-- README, "Choosing parameters": the rate each variant's model gives at n, the
-- expected_fpr of bloomfilter_plan, against the rate p asked for, over rates from 10 % to
-- 1e-6 (41 rates, and 1 %) and n from a thousand to 10^8.  Blocked and cuckoo are at most p,
-- scalable's first stage at most 0.15 p (p (1 - r) with r = 0.85); classic and counting
-- round k to a whole number, which leaves them above p (0.4 % above at 1 %), and their rate
-- is the classic formula's
SELECT pl.variant,
	max(pl.expected_fpr / p) <= CASE pl.variant WHEN 'scalable' THEN 0.15 ELSE 1 END AS at_most_p,
	round((100 * (max(pl.expected_fpr / p) FILTER (WHERE p = 0.01) - 1))::numeric, 1) AS pct_above_p_at_1_pct,
	bool_and(pl.variant NOT IN ('classic', 'counting') OR pl.expected_fpr =
		bloomfilter_false_positive_rate(pl.bits, n, pl.hashes)) AS classic_formula
FROM generate_series(0, 41) AS i,
	LATERAL (SELECT CASE WHEN i = 41 THEN 0.01 ELSE 10 ^ (-1 - 5 * i / 40.0) END::float8 AS p) AS r,
	unnest(ARRAY[1000, 1000000, 100000000]::bigint[]) AS n,
	bloomfilter_plan(n, p) AS pl
GROUP BY pl.variant
ORDER BY pl.variant;
-- the classic formula's rate at n over 2,001 rates from 10 % to 1e-6: at most 1.7 % above p
-- (the most near 9 %, where k = 3)
SELECT round((100 * (max(fpr / p) - 1))::numeric, 1) AS most_pct_above_p
FROM generate_series(0, 2000) AS i,
	LATERAL (SELECT (10 ^ (-1 - 5 * i / 2000.0))::float8 AS p) AS r,
	unnest(ARRAY[1000, 100000, 1000000, 100000000]::bigint[]) AS n,
	LATERAL (SELECT bloomfilter_false_positive_rate(b, n, bloomfilter_optimal_hashes(b, n)) AS fpr
		FROM bloomfilter_optimal_bits(n, p, 'classic') AS b) AS c;

-- README, "Choosing parameters": Parquet's split blocks (256 bits as 8 words of 32, one bit
-- set in each word per item) need 10.5 bits per item at 1 % and 26 at 0.01 %.  The rate of
-- that layout under the Poisson model of block loads (load L: (1 - (31/32)^L)^8), a little
-- above the target just below each figure and below it just above
CREATE FUNCTION docs_split_block_rate(bits_per_item float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
	SELECT sum(exp(l * ln(lambda) - lambda - ln_fact) * (1 - 0.96875::float8 ^ l) ^ 8)
	FROM (SELECT 256 / bits_per_item AS lambda) AS m,
		(SELECT l, sum(ln(greatest(l, 1)::float8)) OVER (ORDER BY l) AS ln_fact
		 FROM generate_series(0, 120) AS l) AS f
$$;
SELECT docs_split_block_rate(10.45) > 0.01 AND docs_split_block_rate(10.55) < 0.01 AS split_block_10_5_at_1_pct,
	docs_split_block_rate(25.5) > 0.0001 AND docs_split_block_rate(26.5) < 0.0001 AS split_block_26_at_001_pct;
DROP FUNCTION docs_split_block_rate(float8);

-- doc/performance.md: the filter of 10 million items at 1 % in "Adding in a PL/pgSQL loop"
-- (12.4 MB), and the join pre-filter's of hot's 300,000 URLs (372,032 bytes)
SELECT bytes AS bytes_10_million, round(bytes / 1e6, 1) AS mb
FROM bloomfilter_info(bloomfilter_create(10000000, 0.01));
SELECT bytes AS bytes_300000 FROM bloomfilter_info(bloomfilter_create(300000, 0.01));

-- README, "Casts and text form": an empty bloomfilter_create(1000000, 0.01) is 101 characters
-- of sparse text form instead of 1,653,164 of base64, and 88,921 with 10,000 items
SELECT n, left(f::text, 1) AS mark, length(f::text) AS text_length,
	length(translate(encode(f::bytea, 'base64'), E'\n', '')) AS base64_length
FROM (VALUES (0), (10000)) v(n),
	LATERAL (SELECT bloomfilter_add_all(bloomfilter_create(1000000, 0.01), ARRAY(SELECT generate_series(1, n))) AS f) s
ORDER BY n;
