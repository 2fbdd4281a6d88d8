--
-- sizing: bloomfilter_optimal_bits, bloomfilter_optimal_hashes,
-- bloomfilter_false_positive_rate and bloomfilter_capacity against the
-- figures from the literature; the classic table of rate by bits per item;
-- blocked filters' space at 1 % and 0.1 %; capacity as the inverse of
-- optimal_bits for both variants; the sizes and header fields of the filters
-- bloomfilter_create and bloomfilter_create_bits build; defaults and named
-- arguments.  Rates are shown rounded to 3 significant digits.
--
-- an unsigned little-endian header field (STORAGE.md, section 2)
CREATE FUNCTION sizing_u64(b bytea, off integer) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT sum(get_byte(b, off + i)::bigint << (8 * i))::bigint
	FROM generate_series(0, 7) i
$$;
CREATE FUNCTION sizing_u32(b bytea, off integer) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT sum(get_byte(b, off + i)::bigint << (8 * i))::bigint
	FROM generate_series(0, 3) i
$$;

--
-- the textbook figures: 1 million items at 1 % need 9 585 059 bits and 7
-- hash functions; 24 hashes over 32 bits for one item give 2.17e-07
--
SELECT bloomfilter_optimal_bits(1000000, 0.01) AS bits,
       bloomfilter_optimal_hashes(9585059, 1000000) AS hashes,
       to_char(bloomfilter_false_positive_rate(32, 1, 24), '9.99EEEE') AS rate;
-- (with k rounded to 7, the model rate at that size is 1.00e-02)
SELECT to_char(bloomfilter_false_positive_rate(9585059, 1000000, 7), '9.99EEEE') AS rate;

-- the classic table: bits per item, the best k, and the rate it gives
SELECT m_per_n,
       bloomfilter_optimal_hashes(m_per_n * 1000, 1000) AS k,
       to_char(bloomfilter_false_positive_rate(m_per_n * 1000, 1000,
               bloomfilter_optimal_hashes(m_per_n * 1000, 1000)), '9.99EEEE') AS rate
FROM generate_series(4, 24) m_per_n
ORDER BY m_per_n;
-- the best k is the best: one fewer and one more are both worse
SELECT bool_and(bloomfilter_false_positive_rate(m, 1000, k) < bloomfilter_false_positive_rate(m, 1000, k - 1)
            AND bloomfilter_false_positive_rate(m, 1000, k) < bloomfilter_false_positive_rate(m, 1000, k + 1))
         AS best_k_is_best
FROM (SELECT m_per_n * 1000 AS m, bloomfilter_optimal_hashes(m_per_n * 1000, 1000) AS k
      FROM generate_series(4, 24) m_per_n) s;

-- edges of the classic functions
SELECT bloomfilter_optimal_hashes(1, 1000) AS at_least_one,
       bloomfilter_optimal_hashes(1000000, 1) AS at_most_64,
       bloomfilter_false_positive_rate(100, 0, 3) AS empty_rate,
       bloomfilter_false_positive_rate(1, 1000, 1) AS full_rate,
       bloomfilter_optimal_bits(1, 0.5) AS one_item_half,
       bloomfilter_optimal_bits(1, 0.01) AS one_item_1pc;

--
-- blocked filters: bits per item from the Poisson model, against classic.
-- The specification asks for at most 10.6 bits per item at 1 %.
--
SELECT p,
       round(bloomfilter_optimal_bits(1000000, p, 'blocked') / 1e6, 1) AS blocked_bits_per_item,
       round(bloomfilter_optimal_bits(1000000, p, 'classic') / 1e6, 1) AS classic_bits_per_item
FROM (VALUES (0.1), (0.01), (0.001), (0.0001)) v(p)
ORDER BY p DESC;
SELECT bloomfilter_optimal_bits(1000000, 0.01, 'blocked') / 1e6 <= 10.6 AS blocked_1pc_within_spec,
       bloomfilter_optimal_bits(1000000, 0.01, 'blocked') % 512 = 0 AS whole_blocks,
       bloomfilter_optimal_bits(1, 0.01, 'blocked') AS one_item_one_block;

--
-- capacity is the inverse of optimal_bits: classic exactly (the largest n
-- that optimal_bits fits into the bits); blocked at least n, and less than
-- n for one block fewer
--
SELECT n, p,
       bloomfilter_capacity(bloomfilter_optimal_bits(n, p), p) = n AS classic_inverse,
       bloomfilter_capacity(bloomfilter_optimal_bits(n, p) - 1, p) < n AS classic_one_bit_less,
       bloomfilter_capacity(bloomfilter_optimal_bits(n, p, 'blocked'), p, 'blocked') >= n AS blocked_holds_n,
       bloomfilter_optimal_bits(n, p, 'blocked') = 512
         OR bloomfilter_capacity(bloomfilter_optimal_bits(n, p, 'blocked') - 512, p, 'blocked') < n
         AS blocked_one_block_less
FROM (VALUES (1), (10), (1000), (123457), (1000000), (1000000000)) a(n),
     (VALUES (0.5), (0.01), (0.001), (1e-9)) b(p)
ORDER BY n, p DESC;
SELECT bloomfilter_capacity(9585059, 0.01) AS classic_capacity,
       bloomfilter_capacity(9918464, 0.01, 'blocked') - 1000000 BETWEEN 0 AND 60
         AS blocked_capacity_just_over;
-- a blocked capacity is that of the filter create_bits would build: 1000
-- bits round up to two blocks
SELECT bloomfilter_capacity(1000, 0.01, 'blocked') = bloomfilter_capacity(1024, 0.01, 'blocked')
         AS rounded_like_create_bits,
       bloomfilter_capacity(1000, 0.01, 'blocked') > bloomfilter_capacity(512, 0.01, 'blocked')
         AS more_than_one_block;
-- capacities past 2^53 items, where a search stepping n by 1 in double
-- precision would stop moving
SELECT bloomfilter_capacity(100000000000000000, 0.01) BETWEEN 1.04e16 AND 1.05e16 AS huge_1pct,
       bloomfilter_capacity(1000000000000000, 0.99) BETWEEN 4.7e16 AND 4.8e16 AS huge_99pct;

--
-- the filters bloomfilter_create builds: their size in bytes (64-byte
-- header + payload) and their header fields
--
SELECT n, p, v,
       octet_length(bloomfilter_create(n, p, v)::bytea) AS bytes,
       sizing_u64(bloomfilter_create(n, p, v)::bytea, 24) = bloomfilter_optimal_bits(n, p, v) AS bits_as_planned
FROM (VALUES (1), (1000), (1000000)) a(n),
     (VALUES (0.01), (0.001)) b(p),
     (VALUES ('blocked'), ('classic')) c(v)
ORDER BY n, p DESC, v;
-- classic filters use the textbook k; every filter records what it was
-- sized for (expected_items, target_fpr) and its payload size
SELECT n, p,
       sizing_u32(f, 8) AS hashes,
       sizing_u32(f, 8) = bloomfilter_optimal_hashes(bloomfilter_optimal_bits(n, p), n) AS textbook_k,
       sizing_u64(f, 40) = n AS expected_items_stored,
       sizing_u64(f, 48) = ('x' || encode(float8send(p), 'hex'))::bit(64)::bigint AS target_stored_le,
       sizing_u64(f, 56) = octet_length(f) - 64 AS payload_bytes_stored
FROM (SELECT n, p, bloomfilter_create(n, p, 'classic')::bytea AS f
      FROM (VALUES (10), (1000), (1000000)) a(n),
           (VALUES (0.01), (0.001)) b(p)) s
ORDER BY n, p DESC;
-- (float8send is big-endian: the same 8 bytes in the opposite order)
SELECT substr(bloomfilter_create(1000, 0.01)::bytea, 49, 8) AS target_le,
       float8send(0.01) AS target_be;

--
-- bloomfilter_create_bits: blocked rounds up to whole 512-bit blocks,
-- classic keeps the exact bit count and pads the payload to 64 bits
--
SELECT v, bits_in,
       sizing_u64(f, 24) AS bits,
       sizing_u64(f, 56) AS payload_bytes,
       octet_length(f) AS bytes,
       sizing_u64(f, 40) AS expected_items,
       sizing_u64(f, 48) AS target_fpr_bits
FROM (SELECT v, bits_in, bloomfilter_create_bits(bits_in, 3, v)::bytea AS f
      FROM (VALUES ('blocked'), ('classic')) a(v),
           (VALUES (1), (64), (65), (100), (512), (513), (10000)) b(bits_in)) s
ORDER BY v, bits_in;
SELECT sizing_u32(bloomfilter_create_bits(1000, 1)::bytea, 8) AS one_hash,
       sizing_u32(bloomfilter_create_bits(1000, 64)::bytea, 8) AS sixty_four_hashes,
       sizing_u64(bloomfilter_create_bits(1000, 3, 'classic', 42)::bytea, 16) AS seed,
       encode(substr(bloomfilter_create_bits(1000, 3, 'classic', -2)::bytea, 17, 8), 'hex') AS seed_minus_2;

--
-- defaults and the argument names of the contract
--
SELECT bloomfilter_create(1000)::bytea = bloomfilter_create(1000, 0.01, 'blocked', 0)::bytea AS create_defaults,
       bloomfilter_create_bits(1000, 3)::bytea = bloomfilter_create_bits(1000, 3, 'classic', 0)::bytea AS create_bits_defaults,
       bloomfilter_optimal_bits(1000, 0.01) = bloomfilter_optimal_bits(1000, 0.01, 'classic') AS optimal_bits_default,
       bloomfilter_capacity(10000, 0.01) = bloomfilter_capacity(10000, 0.01, 'classic') AS capacity_default;
SELECT bloomfilter_create(expected_items => 1000, variant => 'classic', seed => 5)::bytea
         = bloomfilter_create(1000, 0.01, 'classic', 5)::bytea AS create_named,
       bloomfilter_create_bits(hashes => 4, bits => 2048, seed => 1, variant => 'blocked')::bytea
         = bloomfilter_create_bits(2048, 4, 'blocked', 1)::bytea AS create_bits_named,
       bloomfilter_optimal_bits(false_positive_rate => 0.01, expected_items => 1000000) AS optimal_bits_named,
       bloomfilter_optimal_hashes(expected_items => 1000000, bits => 9585059) AS optimal_hashes_named,
       to_char(bloomfilter_false_positive_rate(hashes => 24, bits => 32, expected_items => 1), '9.99EEEE')
         AS rate_named,
       bloomfilter_capacity(false_positive_rate => 0.01, bits => 9585059) AS capacity_named;
-- NULL arguments give NULL (the functions are strict)
SELECT bloomfilter_create(NULL) IS NULL AS create_null,
       bloomfilter_create(1000, NULL) IS NULL AS create_null_rate,
       bloomfilter_optimal_bits(1000, 0.01, NULL) IS NULL AS optimal_bits_null_variant,
       bloomfilter_capacity(NULL, 0.01) IS NULL AS capacity_null;

DROP FUNCTION sizing_u64(bytea, integer), sizing_u32(bytea, integer);
