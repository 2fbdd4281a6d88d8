--
-- hash_schemes: elements hash by their type's equality (hash scheme 2), and filters built by
-- releases 1.0 and 1.1 (hash scheme 1) keep their hashing: they answer for their members
-- exactly as they did, take new elements their way, and are never combined with the others.
--
-- The findings of issue 25: each pair is equal under =, and a filter of the one holds the other
SELECT x, y, x = y AS equal, bloomfilter_agg(x) @> y AS found
FROM (VALUES (1.0::numeric, 1.00::numeric), (1.0, 1), (2.50, 2.5000), ('NaN', 'NaN'),
             ('Infinity', 'Infinity'), (-0.0, 0), (123456789012345678901234567890.000, 123456789012345678901234567890)) v(x, y)
GROUP BY x, y ORDER BY x::text, y::text;
SELECT bloomfilter_agg(x) @> 1::int AS int4, bloomfilter_agg(x) @> 1::smallint AS int2,
       bloomfilter_agg(x) @> 1::bigint AS int8
FROM (VALUES (1.000::numeric)) v(x);
SELECT bloomfilter_agg(x) @> 1.00::numeric AS numeric FROM (VALUES (1::int)) v(x);
SELECT '1 day'::interval = '24 hours' AS equal,
       (SELECT bloomfilter_agg(x) @> '24 hours'::interval FROM (VALUES ('1 day'::interval)) v(x)) AS found,
       (SELECT bloomfilter_agg(x) @> '30 days'::interval FROM (VALUES ('1 mon'::interval)) v(x)) AS month,
       (SELECT bloomfilter_agg(x) @> '1 day 00:00:00.000001'::interval FROM (VALUES ('1 day'::interval)) v(x)) AS longer;
SELECT bloomfilter_agg(x) @> '{"b": [2.0, {"c": 1e1}], "a": 1.00}'::jsonb AS found,
       bloomfilter_agg(x) @> '{"a": 1.01, "b": [2, {"c": 10}]}'::jsonb AS differs,
       bloomfilter_agg(x) @> '[{"a": 1, "b": [2, {"c": 10}]}]'::jsonb AS in_array
FROM (VALUES ('{"a": 1.0, "b": [2, {"c": 10.000}]}'::jsonb)) v(x);
SELECT bloomfilter_agg(x) @> '1.0'::jsonb AS raw_scalar, bloomfilter_agg(x) @> '[1]'::jsonb AS array_of_it
FROM (VALUES ('1'::jsonb)) v(x);
SELECT bloomfilter_agg(x) @> ARRAY[1.00::numeric, NULL] AS arr,
       bloomfilter_agg(x) @> '[0:1]={1,NULL}'::numeric[] AS other_bounds
FROM (VALUES (ARRAY[1.0::numeric, NULL])) v(x);
SELECT bloomfilter_agg(x) @> numrange(1.00, 2.00) AS range,
       bloomfilter_agg(x) @> numrange(1.00, 2.00, '[]') AS other_bounds
FROM (VALUES (numrange(1.0, 2.0))) v(x);
SELECT bloomfilter_agg(x) @> nummultirange(numrange(1.00, 2.00), numrange(3, 4.0)) AS multirange
FROM (VALUES (nummultirange(numrange(1.0, 2.0), numrange(3.0, 4)))) v(x);
SELECT bloomfilter_agg(x) @> ROW(1.00, '24 hours'::interval, -0.0::float8) AS record
FROM (VALUES (ROW(1.0, '1 day'::interval, 0.0::float8))) v(x);
CREATE DOMAIN price AS numeric(10, 2);
CREATE TYPE priced AS (name text, amount price, took interval);
SELECT bloomfilter_agg(x) @> ROW('tea', 2.5, '90 minutes')::priced AS composite,
       bloomfilter_agg((x).amount) @> 2.500::numeric AS domain
FROM (VALUES (ROW('tea', 2.50, '1 hour 30 minutes')::priced)) v(x);
SELECT bloomfilter_agg(x) @> '-0'::float8 AS zero, bloomfilter_agg(x) @> 'NaN'::float8 AS nan,
       bloomfilter_agg(x) @> 1.5::float4 AS float4, bloomfilter_agg(x) @> 0.1::float4 AS not_equal
FROM (VALUES (0::float8), ('NaN'), (1.5), (0.1)) v(x);
SELECT '10.0.0.0/8'::cidr = '10.0.0.0/8'::inet AS equal,
       (SELECT bloomfilter_agg(x) @> '10.0.0.0/8'::inet FROM (VALUES ('10.0.0.0/8'::cidr)) v(x)) AS found,
       (SELECT bloomfilter_agg(x) @> '10.0.0.0/9'::inet FROM (VALUES ('10.0.0.0/8'::cidr)) v(x)) AS other_bits;
-- char(n) as text, without trailing spaces, as before
SELECT bloomfilter_agg(x) @> 'ab'::text AS text FROM (VALUES ('ab'::char(4))) v(x);
-- every path hashes alike: the operators, ||, add_all, contains_all, remove, each variant
SELECT variant,
       (bloomfilter_create(100, 0.01, variant) || 1.0::numeric) @> 1.00::numeric AS concat,
       1.00::numeric <@ (bloomfilter_create(100, 0.01, variant) || 1.0::numeric) AS contained,
       bloomfilter_contains_all(bloomfilter_add_all(bloomfilter_create(100, 0.01, variant),
                                                    ARRAY[1.0, 2.50, 3]::numeric[]),
                                ARRAY[1, 2.5, 3.000]::numeric[]) AS all_found,
       CASE WHEN variant IN ('counting', 'cuckoo') THEN
         NOT (bloomfilter_remove(bloomfilter_create(100, 0.01, variant) || '1 day'::interval,
                                 '24 hours'::interval) @> '1 day'::interval) END AS removed,
       (SELECT bloomfilter_agg(x, 100, 0.01, variant) @> 2.5::numeric
        FROM (VALUES (2.50::numeric)) v(x)) AS agg
FROM unnest(ARRAY['blocked', 'classic', 'counting', 'scalable', 'cuckoo']) variant;
-- text under a nondeterministic collation is refused, not missed (Debian's PostgreSQL has ICU)
CREATE COLLATION hs_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT * FROM error_of($$SELECT bloomfilter_agg(x COLLATE hs_ci) FROM (VALUES ('a'::text)) v(x)$$);
SELECT sqlstate_of($$SELECT bloomfilter_create(10) @> ('A'::text COLLATE hs_ci)$$) AS probe,
       sqlstate_of($$SELECT bloomfilter_add_all(bloomfilter_create(10), ARRAY['A' COLLATE hs_ci])$$) AS add_all;
-- (so is a filter of hash scheme 1, which hashed their bytes)
SELECT sqlstate_of($$SELECT set_byte(bloomfilter_create(10)::bytea, 6, 1)::bloomfilter || ('A'::text COLLATE hs_ci)$$) AS scheme_1;
DROP COLLATION hs_ci;

-- Filters built by release 1.1 (these bytes are what it gave), one per variant, of
-- 42, 'hello', 1.0, 2.50, '1 day', '{"a": 1.0}', -0::float8, 'NaN'::float8, ARRAY[1.0],
-- numrange(1.0, 2.0) and '10.0.0.0/8'::cidr
CREATE TABLE released (variant text, f bloomfilter);
INSERT INTO released VALUES
('blocked', '\x424c4d46010101000f00000000000000000000000000000000020000000000000b0000000000000010000000000000007b14ae47e17a843f40000000000000008428002581322040909830000808181229810668a14340014a50220b464011c0289a48495287b74d0156011830d8031008552e300000082a46084aa404d3350c'::bytea::bloomfilter),
('classic', '\x424c4d4601020100070000000000000000000000000000009a000000000000000b0000000000000010000000000000007b14ae47e17a843f180000000000000062135ac0cac17406195c021ac19bb82898c1c90000000000'::bytea::bloomfilter),
('counting', '\x424c4d4601030100070000000000000000000000000000009a000000000000000b0000000000000010000000000000007b14ae47e17a843f50000000000000001000100111000100201001020000001210200012020000110001110110010000011001000033020120000000101001000100001112100310001011100010100000100210010000210110001100000000'::bytea::bloomfilter),
('scalable', '\x424c4d46010401000f00000001000000000000000000000000020000000000000b0000000000000010000000000000007b14ae47e17a843f8000000000000000000200000000000010000000000000000b000000000000000f0000000000000000000000000000000000000000000000000000000000000000000000000000008428002581322040909830000808181229810668a14340014a50220b464011c0289a48495287b74d0156011830d8031008552e300000082a46084aa404d3350c'::bytea::bloomfilter),
('cuckoo', '\x424c4d46010501000a000000010000000000000000000000c8000000000000000b0000000000000010000000000000007b14ae47e17a843f300000000000000005000000000000000b000000000000000b460f0000c4ad4f3800537808000087790ca89a000000000000000000000000'::bytea::bloomfilter);
-- they say scheme 1, and hold every member as they did
SELECT variant, bloomfilter_hash_scheme(f) AS scheme,
       f @> 42 AND f @> 'hello'::text AND f @> 1.0::numeric AND f @> 2.50::numeric
       AND f @> '1 day'::interval AND f @> '{"a": 1.0}'::jsonb AND f @> '-0'::float8
       AND f @> 'NaN'::float8 AND f @> ARRAY[1.0::numeric] AND f @> numrange(1.0, 2.0)
       AND f @> '10.0.0.0/8'::cidr AS members
FROM released ORDER BY variant;
-- the same filters built now through a scheme-1 header are byte for byte the released ones
-- (the scheme-1 hashing did not change)
SELECT r.variant, f = set_byte(bloomfilter_create(16, 0.01, r.variant)::bytea, 6, 1)::bloomfilter
         || 42 || 'hello'::text || 1.0::numeric || 2.50::numeric || '1 day'::interval
         || '{"a": 1.0}'::jsonb || '-0'::float8 || 'NaN'::float8 || ARRAY[1.0::numeric]
         || numrange(1.0, 2.0) || '10.0.0.0/8'::cidr AS same_bytes
FROM released r ORDER BY variant;
-- an element added to an old filter is hashed its way: still scheme 1, found as before
SELECT variant, bloomfilter_hash_scheme(f || 7.0::numeric) AS scheme,
       (f || 7.0::numeric) @> 7.0::numeric AS found,
       bloomfilter_contains_all(bloomfilter_add_all(f, ARRAY[8.0, 9.0]::numeric[]), ARRAY[8.0, 9.0]::numeric[]) AS all_found
FROM released ORDER BY variant;
-- new filters are scheme 2
SELECT bloomfilter_hash_scheme(bloomfilter_create(10)) AS created,
       bloomfilter_hash_scheme(bloomfilter_agg(x)) AS aggregated
FROM generate_series(1, 3) x;
-- combining the two schemes is refused, with the reason
SELECT * FROM error_of($$SELECT f | bloomfilter_create(16, 0.01, 'blocked') FROM released WHERE variant = 'blocked'$$);
SELECT bloomfilter_is_compatible(f, set_byte(f::bytea, 6, 2)::bloomfilter) AS compatible
FROM released WHERE variant = 'classic';
SELECT sqlstate_of($$SELECT bloomfilter_union_agg(g) FROM (SELECT f FROM released WHERE variant = 'classic'
                     UNION ALL SELECT set_byte(f::bytea, 6, 2)::bloomfilter FROM released WHERE variant = 'classic') s(g)$$) AS union_agg,
       sqlstate_of($$SELECT f & set_byte(f::bytea, 6, 2)::bloomfilter FROM released WHERE variant = 'counting'$$) AS intersect;
-- an unknown scheme is refused on input
SELECT sqlstate_of($$SELECT set_byte(f::bytea, 6, 3)::bloomfilter FROM released WHERE variant = 'classic'$$) AS scheme_3;
DROP TABLE released;
DROP TYPE priced;
DROP DOMAIN price;

-- join filters hash keys by the same element code: whatever = calls equal passes the filter
-- ('1 day' and '24 hours', 1.0 and 1.000), and the rows are those of the join without it
LOAD 'bloomfilter';
CREATE TABLE hs_dim AS
SELECT (g * 24 || ' hours')::interval AS iv, (g * 10.0)::numeric(10, 1) AS n, date '2024-01-01' + g * 7 AS d
FROM generate_series(1, 300) g;
CREATE TABLE hs_fact AS
SELECT (g % 3000 || ' days')::interval AS iv, (g % 5000)::numeric(10, 3) AS n, date '2024-01-01' + g % 4000 AS d
FROM generate_series(1, 30000) g;
ANALYZE hs_dim, hs_fact;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SET max_parallel_workers_per_gather = 0;
CREATE FUNCTION hs_join(key text, OUT rows_off bigint, OUT rows_always bigint, OUT filtered boolean)
LANGUAGE plpgsql AS $$
DECLARE
	q text := format('SELECT count(*) FROM hs_fact f JOIN hs_dim d ON f.%I = d.%I', key, key);
	line text;
BEGIN
	SET LOCAL bloomfilter.join_filter = off;
	EXECUTE q INTO rows_off;
	SET LOCAL bloomfilter.join_filter = always;
	EXECUTE q INTO rows_always;
	filtered := false;
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		filtered := filtered OR line ~ 'Rows Removed by Bloom Join Filter: [1-9]';
	END LOOP;
END $$;
SELECT key, j.* FROM unnest(ARRAY['iv', 'n', 'd']) key, hs_join(key) j;
DROP FUNCTION hs_join(text);
DROP TABLE hs_dim, hs_fact;
RESET enable_mergejoin;
RESET enable_nestloop;
RESET max_parallel_workers_per_gather;
