--
-- element_encoding: an element's canonical bytes depend on its value only
-- (STORAGE.md section 6), never on client_encoding, type OIDs or settings.
-- Arrays, composites and records, ranges and multiranges are hashed from
-- their parts' canonical bytes (with dimensions, bounds and NULLs), enums by
-- label, domains as their base type, tsvector, tsquery and jsonpath by their
-- text in the database encoding; reg* types are refused.
--
-- a type from another extension (contrib), hashed by its own extended hash
CREATE EXTENSION hstore;
CREATE TYPE enc_mood AS ENUM ('sad', 'ok', U&'caf\00e9');
CREATE DOMAIN enc_posint AS integer CHECK (VALUE > 0);
CREATE TYPE enc_pair AS (n integer, t text);
CREATE TYPE enc_nest AS (p enc_pair, m enc_mood[], d enc_posint[]);
CREATE TYPE enc_textrange AS RANGE (subtype = text, collation = "C");
CREATE TABLE enc_empty AS SELECT bloomfilter_create_bits(4096, 5, 'classic') AS e;

-- one element of every class whose old send form converted text, with
-- non-ASCII text in each
CREATE FUNCTION enc_elements() RETURNS TABLE (what text, f bloomfilter)
LANGUAGE sql AS $$
	SELECT * FROM (VALUES
		('text[]', bloomfilter_create_bits(4096, 5, 'classic') || ARRAY[U&'caf\00e9', 'b']),
		('enum[]', bloomfilter_create_bits(4096, 5, 'classic') || ARRAY[U&'caf\00e9'::enc_mood, 'sad']),
		('record', bloomfilter_create_bits(4096, 5, 'classic') || ROW(1, U&'caf\00e9')),
		('composite', bloomfilter_create_bits(4096, 5, 'classic') || ROW(1, U&'caf\00e9')::enc_pair),
		('nested', bloomfilter_create_bits(4096, 5, 'classic')
		           || ROW(ROW(2, U&'\00fcber'), ARRAY[U&'caf\00e9'::enc_mood], ARRAY[3]::enc_posint[])::enc_nest),
		('tsvector', bloomfilter_create_bits(4096, 5, 'classic') || to_tsvector('simple', U&'caf\00e9 cr\00e8me')),
		('tsquery', bloomfilter_create_bits(4096, 5, 'classic') || to_tsquery('simple', U&'caf\00e9 & cr\00e8me')),
		('jsonpath', bloomfilter_create_bits(4096, 5, 'classic') || (U&'$."caf\00e9"')::jsonpath),
		('jsonb[]', bloomfilter_create_bits(4096, 5, 'classic') || ARRAY[jsonb_build_object(U&'caf\00e9', 1)]),
		('range', bloomfilter_create_bits(4096, 5, 'classic') || enc_textrange('a', U&'caf\00e9')),
		('multirange', bloomfilter_create_bits(4096, 5, 'classic') || enc_textmultirange(enc_textrange('a', U&'caf\00e9'))),
		('refcursor', bloomfilter_create_bits(4096, 5, 'classic') || (U&'caf\00e9')::refcursor),
		('hstore', bloomfilter_create_bits(4096, 5, 'classic') || hstore(U&'caf\00e9', U&'cr\00e8me')),
		('hstore[]', bloomfilter_create_bits(4096, 5, 'classic') || ARRAY[hstore(U&'caf\00e9', '1'), NULL])
	) AS v(what, f)
$$;

--
-- the same filters under every client encoding: built in one session under
-- UTF8, LATIN1 and SQL_ASCII, each a byte for byte copy of the others, and
-- a filter built under UTF8 answers for its element under each encoding
--
CREATE TABLE enc_built (client text, what text, f bloomfilter);
SET client_encoding = 'UTF8';
INSERT INTO enc_built SELECT current_setting('client_encoding'), * FROM enc_elements();
SET client_encoding = 'LATIN1';
INSERT INTO enc_built SELECT current_setting('client_encoding'), * FROM enc_elements();
SET client_encoding = 'SQL_ASCII';
INSERT INTO enc_built SELECT current_setting('client_encoding'), * FROM enc_elements();
RESET client_encoding;
SELECT what, count(*) AS encodings, count(DISTINCT f::bytea) AS distinct_filters
FROM enc_built GROUP BY what ORDER BY what;

CREATE TABLE enc_utf8 AS SELECT what, f FROM enc_built WHERE client = 'UTF8';
CREATE FUNCTION enc_found() RETURNS TABLE (client text, found bigint, probed bigint)
LANGUAGE sql AS $$
	SELECT current_setting('client_encoding'), count(*) FILTER (WHERE ok), count(*)
	FROM (SELECT CASE what
		WHEN 'text[]' THEN f @> ARRAY[U&'caf\00e9', 'b']
		WHEN 'enum[]' THEN f @> ARRAY[U&'caf\00e9'::enc_mood, 'sad']
		WHEN 'record' THEN f @> ROW(1, U&'caf\00e9')
		WHEN 'composite' THEN f @> ROW(1, U&'caf\00e9')::enc_pair
		WHEN 'nested' THEN f @> ROW(ROW(2, U&'\00fcber'), ARRAY[U&'caf\00e9'::enc_mood], ARRAY[3]::enc_posint[])::enc_nest
		WHEN 'tsvector' THEN f @> to_tsvector('simple', U&'caf\00e9 cr\00e8me')
		WHEN 'tsquery' THEN f @> to_tsquery('simple', U&'caf\00e9 & cr\00e8me')
		WHEN 'jsonpath' THEN f @> (U&'$."caf\00e9"')::jsonpath
		WHEN 'jsonb[]' THEN f @> ARRAY[jsonb_build_object(U&'caf\00e9', 1)]
		WHEN 'range' THEN f @> enc_textrange('a', U&'caf\00e9')
		WHEN 'multirange' THEN f @> enc_textmultirange(enc_textrange('a', U&'caf\00e9'))
		WHEN 'refcursor' THEN f @> (U&'caf\00e9')::refcursor
		WHEN 'hstore' THEN f @> hstore(U&'caf\00e9', U&'cr\00e8me')
		WHEN 'hstore[]' THEN f @> ARRAY[hstore(U&'caf\00e9', '1'), NULL]
		END AS ok FROM enc_utf8) s
$$;
SET client_encoding = 'LATIN1';
SELECT * FROM enc_found();
SET client_encoding = 'SQL_ASCII';
SELECT * FROM enc_found();
RESET client_encoding;
SELECT * FROM enc_found();

--
-- nor under other settings that change output text: TimeZone, DateStyle,
-- IntervalStyle, extra_float_digits (timestamps, intervals, floats and
-- money hash their send forms, in containers too)
--
CREATE FUNCTION enc_settings_filter() RETURNS bytea
LANGUAGE sql AS $$
	SELECT (bloomfilter_create_bits(4096, 5, 'classic')
	        || ROW(timestamptz '2024-03-31 01:30:00+00', timestamp '2024-03-31 01:30:00', date '2024-03-31',
	               interval '1 day 2 hours', 0.1::float8, 1.5::float4, 12.34::money)
	        || ARRAY[timestamptz '2024-10-27 00:30:00+00', NULL]
	        || tstzrange('2024-01-01 00:00+00', '2024-07-01 00:00+00'))::bytea
$$;
CREATE TABLE enc_settings AS SELECT 'default' AS settings, enc_settings_filter() AS f;
SET TimeZone = 'Pacific/Chatham';
SET DateStyle = 'SQL, DMY';
SET IntervalStyle = 'iso_8601';
SET extra_float_digits = -3;
INSERT INTO enc_settings SELECT 'changed', enc_settings_filter();
RESET TimeZone;
RESET DateStyle;
RESET IntervalStyle;
RESET extra_float_digits;
SELECT count(*) AS settings, count(DISTINCT f) AS distinct_filters FROM enc_settings;

--
-- the bytes themselves (STORAGE.md section 6): a filter holding the element
-- equals the filter holding its canonical bytes as a bytea
--
CREATE FUNCTION enc_canon(f bloomfilter, hex text) RETURNS boolean
LANGUAGE sql AS $$ SELECT f = (SELECT e || decode(hex, 'hex') FROM enc_empty) $$;
SELECT enc_canon(e || ARRAY[1, NULL, 3], '01000000' || '03000000' || '01000000'
                 || '08000000' || '0100000000000000' || 'ffffffff' || '08000000' || '0300000000000000') AS int_array_null,
       enc_canon(e || '{}'::int[], '00000000') AS empty_array,
       enc_canon(e || '[0:1][2:3]={{a,b},{c,d}}'::text[], '02000000' || '0200000000000000' || '0200000002000000'
                 || '0100000061' || '0100000062' || '0100000063' || '0100000064') AS two_dims_lower_bounds,
       enc_canon(e || ROW(1, 'a'), '02000000' || '08000000' || '0100000000000000' || '0100000061') AS record,
       enc_canon(e || ROW(NULL::int, ROW('b')), '02000000' || 'ffffffff' || '09000000' || '01000000' || '0100000062') AS nested_record
FROM enc_empty;
SELECT enc_canon(e || int4range(1, 5), '02' || '08000000' || '0100000000000000' || '08000000' || '0500000000000000') AS range,
       enc_canon(e || '(,5]'::int4range, '08' || '08000000' || '0600000000000000') AS range_unbounded_below,
       enc_canon(e || 'empty'::int4range, '01') AS empty_range,
       enc_canon(e || '{[1,3), [5,7)}'::int4multirange, '02000000'
                 || '19000000' || '02' || '08000000' || '0100000000000000' || '08000000' || '0300000000000000'
                 || '19000000' || '02' || '08000000' || '0500000000000000' || '08000000' || '0700000000000000') AS multirange,
       enc_canon(e || ARRAY['ok'::enc_mood], '01000000' || '01000000' || '01000000' || '02000000' || '6f6b') AS enum_array_by_label,
       enc_canon(e || hstore('b', 'x'),
                 (SELECT string_agg(substr(h, i, 2), '' ORDER BY i DESC)
                  FROM (SELECT lpad(to_hex(hstore_hash_extended(hstore('b', 'x'), 0)), 16, '0')) AS s(h),
                       generate_series(1, 15, 2) AS i)) AS hstore_by_its_hash,
       enc_canon(e || to_tsvector('simple', 'ab'), encode(convert_to('''ab'':1', 'UTF8'), 'hex')) AS tsvector_by_text
FROM enc_empty;

--
-- hash scheme 2's forms of the types whose = is not equality of their send
-- form: numeric (an integer int64 holds as the integers, else its text
-- without trailing zeros), float4 and float8 (the double's bits, -0 as 0,
-- one NaN), interval (its span in microseconds, 16 bytes), inet and cidr
-- (family, bits, address), jsonb (its tokens, numbers as numeric)
--
SELECT (e || 1.000::numeric) = (e || 1::bigint) AS numeric_integer,
       (e || -9223372036854775808.0::numeric) = (e || (-9223372036854775807::bigint - 1)) AS numeric_int64_min,
       enc_canon(e || 9223372036854775808::numeric, encode(convert_to('9223372036854775808', 'UTF8'), 'hex')) AS numeric_past_int64,
       enc_canon(e || 2.50::numeric, '322e35') AS numeric_fraction,
       enc_canon(e || -0.0010::numeric, '2d302e303031') AS numeric_negative,
       enc_canon(e || 'NaN'::numeric, '4e614e') AS numeric_nan,
       enc_canon(e || '-Infinity'::numeric, encode(convert_to('-Infinity', 'UTF8'), 'hex')) AS numeric_infinity
FROM enc_empty;
SELECT enc_canon(e || 1.5::float8, '000000000000f83f') AS float8,
       enc_canon(e || 1.5::float4, '000000000000f83f') AS float4_as_float8,
       enc_canon(e || '-0'::float8, '0000000000000000') AS minus_zero,
       enc_canon(e || 'NaN'::float4, '000000000000f87f') AS nan,
       enc_canon(e || '1 day 00:00:00.000001'::interval, '0160d71d14000000' || '0000000000000000') AS interval_span,
       enc_canon(e || '-1 microsecond'::interval, 'ffffffffffffffff' || 'ffffffffffffffff') AS interval_negative,
       enc_canon(e || '10.1.2.3/8'::inet, '02' || '08' || '0a010203') AS inet,
       enc_canon(e || '10.0.0.0/8'::cidr, '02' || '08' || '0a000000') AS cidr_as_inet,
       enc_canon(e || '::1/128'::inet, '03' || '80' || '00000000000000000000000000000001') AS inet6
FROM enc_empty;
SELECT enc_canon(e || '{"a": [1.50, null, true]}'::jsonb,
                 '7b01000000' || '6b0100000061' || '5b03000000' || '2303000000312e35' || '7a' || '74' || '5d' || '7d') AS jsonb,
       enc_canon(e || '"x"'::jsonb, '7301000000' || '220100000078' || '5d') AS jsonb_scalar,
       enc_canon(e || '{"b": false, "a": 1e2}'::jsonb,
                 '7b02000000' || '6b0100000061' || '23080000006400000000000000' || '6b0100000062' || '66' || '7d') AS jsonb_keys_sorted,
       enc_canon(e || ARRAY[1.0, NULL]::numeric[], '01000000' || '02000000' || '01000000'
                 || '08000000' || '0100000000000000' || 'ffffffff') AS numeric_array
FROM enc_empty;

--
-- what the encoding makes equal: integers of every width in containers,
-- domains as their base type, a named composite and the same anonymous
-- record, int4range and int8range; and what it keeps apart
--
SELECT (e || ARRAY[1, 2]) @> ARRAY[1, 2]::bigint[] AS int4_array_as_int8_array,
       (e || ARRAY[1, 2]::enc_posint[]) = (e || ARRAY[1, 2]) AS domain_array_as_base_array,
       (e || ROW(1, 'x')::enc_pair) = (e || ROW(1, 'x')) AS composite_as_record,
       (e || ROW(1::smallint, 'x'::varchar)) = (e || ROW(1, 'x')) AS record_of_relatives,
       (e || int4range(1, 5)) = (e || int8range(1, 5)) AS int4range_as_int8range,
       (e || ARRAY['ok'::enc_mood]) = (e || ARRAY['ok']) AS enum_array_as_text_array
FROM enc_empty;
SELECT (e || ARRAY[1, 2]) <> (e || ARRAY[2, 1]) AS order_counts,
       (e || '{1,2}'::int[]) <> (e || '[0:1]={1,2}'::int[]) AS lower_bound_counts,
       (e || '{{1,2}}'::int[]) <> (e || '{1,2}'::int[]) AS dimensions_count,
       (e || ARRAY[NULL::int]) <> (e || '{}'::int[]) AS null_counts,
       (e || ROW('ab', 'c')) <> (e || ROW('a', 'bc')) AS parts_delimited,
       (e || '[1,5]'::numrange) <> (e || '[1,5)'::numrange) AS bound_inclusion_counts
FROM enc_empty;

-- anonymous records of different shapes in one column: each is read with
-- its own columns (a row type per typmod, nested ones too)
SELECT count(*) AS records, bool_and(bloomfilter_add(e, r) @> r) AS each_found,
       count(DISTINCT bloomfilter_add(e, r)::bytea) AS distinct_filters
FROM enc_empty,
     (SELECT ROW(1) UNION ALL SELECT ROW(1, 'a') UNION ALL SELECT ROW(1, ROW(2, 'b'))
      UNION ALL SELECT ROW(ROW(ROW(3))) UNION ALL SELECT ROW(1, ROW(2, NULL))) AS v(r);
SELECT bloomfilter_contains_all(bloomfilter_add_all(e, ARRAY[ROW(1, ROW(2, NULL::record))]),
                                ARRAY[ROW(1, ROW(2, NULL::record))]) AS record_holding_its_own_row_type
FROM enc_empty;

-- the aggregate and add_all agree on records and arrays, and every member is found
SELECT bloomfilter_contains_all(bloomfilter_agg(r, 1000, 0.01), array_agg(r)) AS all_records_found,
       bloomfilter_agg(r, 1000, 0.01) = bloomfilter_add_all(bloomfilter_create(1000, 0.01), array_agg(r)) AS agg_equals_add_all
FROM (SELECT ROW(i, md5(i::text), ARRAY[i, NULL, -i], int4range(i, i + 10)) AS r
      FROM generate_series(1, 1000) i) s;
CREATE TABLE enc_arrays AS
SELECT ARRAY[ARRAY[i, i + 1], ARRAY[NULL, i]] AS a FROM generate_series(1, 500) AS i;
SELECT v AS variant, (SELECT count(*) FILTER (WHERE f @> a) FROM enc_arrays) AS arrays_found
FROM (SELECT v, bloomfilter_agg(a, 500, 0.01, v) AS f
      FROM enc_arrays, unnest('{blocked,classic,counting,scalable,cuckoo}'::text[]) AS v GROUP BY v) s
ORDER BY v;

--
-- refused: types whose values are OIDs of catalog objects
--
-- ERROR:  type regclass cannot be an element of a bloomfilter
SELECT e || 'pg_class'::regclass FROM enc_empty;
-- ERROR:  type regtype cannot be an element of a bloomfilter
SELECT bloomfilter_add_all(e, ARRAY['int4'::regtype]) FROM enc_empty;
-- ERROR:  type regproc cannot be an element of a bloomfilter
SELECT e || ROW('now'::regproc) FROM enc_empty;
-- the oid itself is a number, and may be hashed
SELECT (e || 1259::oid) @> 1259::oid AS oid_found FROM enc_empty;

DROP FUNCTION enc_found(), enc_elements(), enc_canon(bloomfilter, text), enc_settings_filter();
DROP TABLE enc_built, enc_utf8, enc_empty, enc_arrays, enc_settings;
DROP TYPE enc_nest, enc_pair, enc_textrange, enc_mood;
DROP DOMAIN enc_posint;
DROP EXTENSION hstore;
