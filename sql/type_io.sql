--
-- type_io: the text form (base64, or '~' and the base64 of the sparse form
-- when that is shorter), the bytea casts, binary send/recv through
-- binary COPY, the header bytes of a known filter, and the canonical bytes
-- elements of each SQL type hash as (integers of every width alike, text and
-- its relatives, uuid, bytea, and the anyelement fallback).
--
--
-- a tiny classic filter, byte for byte: a change of the format shows here.
-- 'BLMF', version 1, variant 2 (classic), hash scheme 1, flags 0, hashes 3,
-- reserved 0, seed 0, bits 64, items 0, expected_items 0, target_fpr 0.0,
-- payload_bytes 8; then the 8-byte payload.
--
SELECT substr(bloomfilter_create_bits(64, 3, 'classic', 0)::bytea, 1, 64) AS header;
SELECT octet_length(bloomfilter_create_bits(64, 3, 'classic', 0)::bytea) AS bytes;
SELECT bloomfilter_create_bits(64, 3, 'classic', 0) AS text_form;
-- the same filter with 'a' and 'b' added: items = 2 and the payload bits
SELECT bloomfilter_create_bits(64, 3, 'classic', 0) || 'a' || 'b' AS text_form;
SELECT substr((bloomfilter_create_bits(64, 3, 'classic', 0) || 'a' || 'b')::bytea, 33, 8) AS items,
       substr((bloomfilter_create_bits(64, 3, 'classic', 0) || 'a' || 'b')::bytea, 65) AS payload;
-- a sized blocked filter: hashes, seed -1 as its two's complement,
-- bits 10240, expected_items 1000 and target_fpr 0.01 (7b14ae47e17a843f)
SELECT encode(substr(bloomfilter_create(1000, 0.01, 'blocked', -1)::bytea, 1, 64), 'hex') AS header;

--
-- text form: base64 of exactly the bytes, or the sparse form when shorter
-- (filters with few set bits: empty, and the large one with few items); an
-- exact round trip, compact
--
CREATE TABLE io_filters (id int PRIMARY KEY, what text, f bloomfilter);
INSERT INTO io_filters VALUES
	(1, 'blocked, empty', bloomfilter_create(1000, 0.01, 'blocked')),
	(2, 'classic, empty', bloomfilter_create(1000, 0.01, 'classic')),
	(3, 'blocked, filled', bloomfilter_add_all(bloomfilter_create(1000, 0.01, 'blocked', 7),
		ARRAY(SELECT md5(i::text) FROM generate_series(1, 1000) i))),
	(4, 'classic, filled', bloomfilter_add_all(bloomfilter_create(1000, 0.001, 'classic', -7),
		ARRAY(SELECT md5(i::text) FROM generate_series(1, 1000) i))),
	(5, 'classic, 1 bit', bloomfilter_create_bits(1, 1, 'classic') || 'x'),
	(6, 'blocked, large', bloomfilter_add_all(bloomfilter_create(200000, 0.01, 'blocked'),
		ARRAY(SELECT i FROM generate_series(1, 50000) i)));

SELECT id, what,
       CASE WHEN f::text LIKE '~%' THEN 'sparse' ELSE 'base64' END AS form,
       f::text LIKE '~%' OR f::text = translate(encode(f::bytea, 'base64'), E'\n', '') AS text_is_base64_of_bytes,
       f::text::bloomfilter::bytea = f::bytea AS text_round_trip,
       f::text::bloomfilter::text = f::text AS text_round_trip_text,
       f::text LIKE '~%' OR length(f::text) = 4 * ceil(octet_length(f::bytea) / 3.0) AS length_is_4_3,
       length(f::text) <= 4 * ceil(octet_length(f::bytea) / 3.0) AS never_longer_than_base64,
       length(f::text) <= 1.4 * octet_length(f::bytea) AS compact
FROM io_filters
ORDER BY id;
-- (encode(..., 'base64') breaks lines every 76 characters, hence the
-- translate above; the text form of the type is one line)
SELECT id, strpos(f::text, E'\n') = 0 AS one_line FROM io_filters ORDER BY id;

-- white space around the base64 is allowed (space, tab, newline, CR, form feed)
SELECT id,
       (E' \t\n\r\f' || f::text || E'\n\t ')::bloomfilter::bytea = f::bytea AS padded_round_trip
FROM io_filters ORDER BY id;
SELECT ('  ' || f::text)::bloomfilter::bytea = f::bytea AS leading_only,
       (f::text || '  ')::bloomfilter::bytea = f::bytea AS trailing_only
FROM io_filters WHERE id = 1;

--
-- the sparse text form (STORAGE.md section 15): '~', then the base64 of the
-- header, the Rice parameter, the count of set bits and the Rice codes of
-- the gaps between them.  Every variant, with few items (sparse) and full
-- (base64), round trips byte for byte; grown scalable and cuckoo filters
-- keep their stages.
--
CREATE TABLE io_sparse AS
SELECT v, fill, f
FROM unnest(ARRAY['blocked', 'classic', 'counting', 'scalable', 'cuckoo']) v,
     LATERAL (VALUES
	('empty', bloomfilter_create(10000, 0.01, v)),
	('3 items', bloomfilter_add_all(bloomfilter_create(10000, 0.01, v, 5), ARRAY[1, 2, 3])),
	('100 items', bloomfilter_add_all(bloomfilter_create(10000, 0.01, v, -5),
		ARRAY(SELECT md5(i::text) FROM generate_series(1, 100) i))),
	('full', bloomfilter_add_all(bloomfilter_create(1000, 0.01, v),
		ARRAY(SELECT i FROM generate_series(1, 1000) i))),
	('grown', bloomfilter_add_all(bloomfilter_create(100, 0.01, v, 9),
		ARRAY(SELECT i FROM generate_series(1, 2000) i)))
     ) c(fill, f);
SELECT v, fill, (bloomfilter_info(f)).stages,
       CASE WHEN f::text LIKE '~%' THEN 'sparse' ELSE 'base64' END AS form,
       f::text::bloomfilter = f AS equal,
       f::text::bloomfilter::bytea = f::bytea AS same_bytes,
       length(f::text) <= 4 * ceil(octet_length(f::bytea) / 3.0) AS never_longer,
       length(f::text) * 10 < octet_length(f::bytea) AS under_a_tenth_of_the_bytes
FROM io_sparse ORDER BY v, fill;
-- text COPY (what pg_dump writes) of both forms
CREATE TABLE io_sparse_copy (LIKE io_sparse);
\copy io_sparse TO 'results/type_io_sparse.txt'
\copy io_sparse_copy FROM 'results/type_io_sparse.txt'
SELECT count(*) AS rows, count(*) FILTER (WHERE s.f::bytea = d.f::bytea) AS same_bytes
FROM io_sparse s JOIN io_sparse_copy d USING (v, fill);

-- its parts: the header as it is, r, n (here 3 set bits in a 512-bit block)
-- and the codes; the example of STORAGE.md section 15
CREATE TABLE io_example AS
SELECT bloomfilter_create_bits(512, 6, 'blocked') || 42 AS f;
SELECT f::text AS text_form, length(f::text) AS text_length,
       length(translate(encode(f::bytea, 'base64'), E'\n', '')) AS base64_length
FROM io_example;
SELECT substr(s, 1, 64) = substr(f::bytea, 1, 64) AS header_as_it_is,
       get_byte(s, 64) AS r,
       encode(substr(s, 66, 8), 'hex') AS n_le64,
       encode(substr(s, 74), 'hex') AS codes
FROM io_example, LATERAL decode(substr(f::text, 2), 'base64') s;

-- malformed sparse forms: 22P02, with a detail that says what is wrong.  The
-- bytes start from s, the sparse form of b, a blocked filter of 4096 bits
-- holding 'x'; c is a classic filter sized for 10 items, as in errors.sql.
CREATE TABLE io_sparse_base AS
SELECT decode(substr(f::text, 2), 'base64') AS s, f::bytea AS b,
       (bloomfilter_create(10, 0.01, 'classic') || 'x')::bytea AS c
FROM (SELECT bloomfilter_create_bits(4096, 3, 'blocked') || 'x' AS f) x;
SELECT left(b::bloomfilter::text, 1) AS mark, octet_length(s) AS sparse_bytes,
       get_byte(s, 64) AS r, get_byte(s, 65) AS n
FROM io_sparse_base;
SELECT what, e.state, e.message, e.detail
FROM io_sparse_base,
     LATERAL (VALUES
	('the mark alone',                '~'),
	('not base64 after the mark',     '~hello, world!'),
	('white space after the mark',    '~ ' || translate(encode(s, 'base64'), E'\n', '')),
	('two marks',                     '~~' || translate(encode(s, 'base64'), E'\n', '')),
	('the mark after the base64',     translate(encode(b, 'base64'), E'\n', '') || '~'),
	('the header alone',              '~' || translate(encode(substr(s, 1, 64), 'base64'), E'\n', '')),
	('n cut short',                   '~' || translate(encode(substr(s, 1, 70), 'base64'), E'\n', '')),
	('another magic',                 '~' || translate(encode(overlay(s PLACING 'BLMG' FROM 1), 'base64'), E'\n', '')),
	('r = 33',                        '~' || translate(encode(overlay(s PLACING '\x21' FROM 65), 'base64'), E'\n', '')),
	('r = 255',                       '~' || translate(encode(overlay(s PLACING '\xff' FROM 65), 'base64'), E'\n', '')),
	('n = 4097 of 4096 bits',         '~' || translate(encode(overlay(s PLACING '\x0110000000000000' FROM 66), 'base64'), E'\n', '')),
	('n = 2^64 - 1',                  '~' || translate(encode(overlay(s PLACING '\xffffffffffffffff' FROM 66), 'base64'), E'\n', '')),
	('the last byte cut',             '~' || translate(encode(substr(s, 1, octet_length(s) - 1), 'base64'), E'\n', '')),
	('a code cut short (r 0, n 2)',   '~' || translate(encode(substr(b, 1, 64) || '\x00'::bytea || '\x0200000000000000'::bytea
	                                        || '\x01'::bytea, 'base64'), E'\n', '')),
	('a zero byte after the codes',   '~' || translate(encode(s || '\x00'::bytea, 'base64'), E'\n', '')),
	('one code left over (n = 2)',    '~' || translate(encode(overlay(s PLACING '\x02' FROM 66), 'base64'), E'\n', '')),
	('a gap past the payload',        '~' || translate(encode(substr(b, 1, 64) || '\x00'::bytea || '\x0100000000000000'::bytea
	                                        || decode(repeat('00', 512), 'hex') || '\x01'::bytea, 'base64'), E'\n', '')),
	('a padding bit set (classic)',   '~' || translate(encode(substr(bloomfilter_create_bits(96, 3, 'classic')::bytea, 1, 64)
	                                        || '\x00'::bytea || '\x0100000000000000'::bytea
	                                        || decode(repeat('00', 12), 'hex') || '\x10'::bytea, 'base64'), E'\n', ''))
     ) c(what, input),
     LATERAL error_of(format('SELECT %L::bloomfilter', input)) e;
-- the header rules are those of every way in: hostile headers (as in
-- errors.sql) with an empty payload in the sparse form are refused with the
-- detail the bytea cast gives (or accepted where the header is valid)
SELECT count(*) AS headers,
       count(*) FILTER (WHERE t.state = 'no error') AS accepted,
       count(*) FILTER (WHERE t.state <> 'no error' AND t.detail = c.detail
                          AND t.state = CASE c.state WHEN '22P03' THEN '22P02' ELSE c.state END) AS refused_alike
FROM (SELECT substr(b, 1, 64) AS h FROM io_sparse_base UNION ALL
      SELECT overlay(substr(b, 1, 64) PLACING x FROM o)
      FROM io_sparse_base, (VALUES ('\x00'::bytea, 5), ('\x09', 6), ('\x03', 7), ('\x01', 8), ('\x00000000', 9),
                                   ('\x41000000', 9), ('\x01', 13), ('\x0000000000000000', 25),
                                   ('\xe803000000000000', 25), ('\x0800000000000000', 57),
                                   ('\x0000000000000040', 49), ('\x0000000000000000', 41)) m(x, o)) hdr,
     LATERAL error_of(format('SELECT %L::bytea::bloomfilter', hdr.h || decode(repeat('00', 512), 'hex'))) c,
     LATERAL error_of(format('SELECT %L::bloomfilter',
                      '~' || translate(encode(hdr.h || '\x00'::bytea || '\x0000000000000000'::bytea, 'base64'), E'\n', ''))) t;
-- as psql prints them
-- ERROR:  invalid input syntax for type bloomfilter
SELECT '~hello'::bloomfilter;
-- ERROR:  invalid input syntax for type bloomfilter
SELECT ('~' || translate(encode(s || '\x00'::bytea, 'base64'), E'\n', ''))::bloomfilter FROM io_sparse_base;
-- a header that declares 1 GB needs no more than its sparse form: 54000 past
-- the limit, as for the other ways in
-- ERROR:  bloomfilter value declares a size past the 1 GB limit
SELECT ('~' || translate(encode(overlay(overlay(substr(c, 1, 64) PLACING '\xd8fdffff01000000' FROM 25)
        PLACING '\xc0ffff3f00000000' FROM 57) || '\x00'::bytea || '\x0000000000000000'::bytea, 'base64'), E'\n', ''))::bloomfilter
FROM io_sparse_base;

--
-- bytea casts: binary-coercible out, validated in, the same bytes both ways
--
SELECT id,
       f::bytea::bloomfilter::bytea = f::bytea AS bytea_round_trip,
       bloomfilter_send(f) = f::bytea AS send_is_the_bytes,
       octet_length(f::bytea) % 8 = 0 AS multiple_of_8
FROM io_filters ORDER BY id;
-- a cast from bytea read from a table (short varlena header) and back
CREATE TABLE io_bytes (id int, b bytea);
INSERT INTO io_bytes SELECT id, f::bytea FROM io_filters;
SELECT b.id, b.b::bloomfilter::bytea = f.f::bytea AS from_stored_bytea
FROM io_bytes b JOIN io_filters f USING (id) ORDER BY b.id;
-- the cast validates: this is a filter with one byte missing
-- ERROR:  invalid binary data for type bloomfilter
SELECT substr(f::bytea, 1, octet_length(f::bytea) - 1)::bloomfilter FROM io_filters WHERE id = 2;

--
-- binary COPY goes through bloomfilter_send and bloomfilter_recv.  \copy runs
-- in psql, which writes into pg_regress's results directory (the current
-- directory of psql); the server itself may not be allowed to write there.
--
\copy io_filters TO 'results/type_io_copy.bin' WITH (FORMAT binary)
CREATE TABLE io_copied (LIKE io_filters);
\copy io_copied FROM 'results/type_io_copy.bin' WITH (FORMAT binary)
SELECT s.id, d.f::bytea = s.f::bytea AS binary_copy_round_trip
FROM io_filters s JOIN io_copied d USING (id) ORDER BY s.id;
-- text COPY (what pg_dump writes) uses the base64 text form
TRUNCATE io_copied;
\copy io_filters TO 'results/type_io_copy.txt'
\copy io_copied FROM 'results/type_io_copy.txt'
SELECT s.id, d.f::bytea = s.f::bytea AS text_copy_round_trip
FROM io_filters s JOIN io_copied d USING (id) ORDER BY s.id;
-- the bytes of a binary-COPYed bytea column read back as bloomfilter: recv
-- takes exactly the bytes of f::bytea
TRUNCATE io_copied;
\copy (SELECT id, what, f::bytea FROM io_filters) TO 'results/type_io_copy_bytea.bin' WITH (FORMAT binary)
\copy io_copied FROM 'results/type_io_copy_bytea.bin' WITH (FORMAT binary)
SELECT s.id, d.f::bytea = s.f::bytea AS recv_of_bytea_bytes
FROM io_filters s JOIN io_copied d USING (id) ORDER BY s.id;

--
-- canonical bytes of elements
--
CREATE TABLE io_empty AS SELECT bloomfilter_create_bits(4096, 7, 'classic') AS e;

-- integers of every width are the same element: the 8-byte little-endian value
SELECT (e || 42::smallint)::bytea = (e || 42)::bytea AS int2_int4,
       (e || 42)::bytea = (e || 42::bigint)::bytea AS int4_int8,
       bloomfilter_add(e, 42::smallint)::bytea = bloomfilter_add(e, 42::bigint)::bytea AS add_int2_int8,
       bloomfilter_add_all(e, ARRAY[42::smallint])::bytea = (e || 42::bigint)::bytea AS add_all_int2_int8,
       (e || -1::smallint)::bytea = (e || -1::bigint)::bytea AS minus_one,
       (e || ARRAY[42]) @> ARRAY['\x2a00000000000000'::bytea] AS int_is_8_byte_le_in_containers,
       (e || 42) @> '\x2a00000000000000'::bytea AS scalar_by_its_own_mix
FROM io_empty;
-- each width found in each other width, through every operator and function
SELECT w_in, w_probe,
       CASE w_probe WHEN 'smallint' THEN f @> 42::smallint
                    WHEN 'integer' THEN f @> 42::integer
                    ELSE f @> 42::bigint END AS found,
       CASE w_probe WHEN 'smallint' THEN 42::smallint <@ f
                    WHEN 'integer' THEN 42::integer <@ f
                    ELSE 42::bigint <@ f END AS found_commuted,
       CASE w_probe WHEN 'smallint' THEN f @> 43::smallint
                    WHEN 'integer' THEN f @> 43::integer
                    ELSE f @> 43::bigint END AS other_found
FROM (SELECT w, CASE w WHEN 'smallint' THEN e || 42::smallint
                       WHEN 'integer' THEN e || 42::integer
                       ELSE e || 42::bigint END
      FROM io_empty, unnest(ARRAY['smallint', 'integer', 'bigint']) w) a(w_in, f),
     unnest(ARRAY['smallint', 'integer', 'bigint']) w_probe
ORDER BY 1, 2;
-- extremes of each width
SELECT (e || 32767::smallint) @> 32767::bigint AS int2_max,
       (e || (-32768)::smallint) @> (-32768)::bigint AS int2_min,
       (e || 2147483647) @> 2147483647::bigint AS int4_max,
       (e || (-2147483648)::integer) @> (-2147483648)::bigint AS int4_min,
       (e || 9223372036854775807) @> 9223372036854775807::numeric AS int8_max
FROM io_empty;
-- a domain over integer hashes as integer
CREATE DOMAIN io_posint AS integer CHECK (VALUE > 0);
SELECT (e || 42::io_posint) @> 42::bigint AS domain_as_base,
       bloomfilter_add_all(e, ARRAY[42::io_posint])::bytea = (e || 42)::bytea AS domain_array
FROM io_empty;

-- text and its relatives: the string's bytes
SELECT (e || 'abc') @> 'abc'::varchar AS text_as_varchar,
       (e || 'abc'::varchar) @> 'abc' AS varchar_as_text,
       (e || 'abc'::varchar)::bytea = (e || 'abc'::text)::bytea AS varchar_same_bytes,
       bloomfilter_add_all(e, ARRAY['abc'::varchar])::bytea = (e || 'abc')::bytea AS varchar_array,
       (e || 'abc'::char(5)) @> 'abc' AS bpchar_as_text,
       bloomfilter_add_all(e, ARRAY['abc'::char(5)])::bytea = (e || 'abc')::bytea AS bpchar_array,
       bloomfilter_add_all(e, ARRAY['abc'::char(3)])::bytea
         = bloomfilter_add_all(e, ARRAY['abc'::char(8)])::bytea AS bpchar_any_length,
       (e || 'abc ') @> 'abc' AS trailing_space_found_without,
       (e || 'abc') @> '\x616263'::bytea AS text_is_its_bytes,
       (e || 'abc') @> 'ABC' AS found_in_upper_case,
       (e || ''::text) @> ''::text AS empty_string,
       (e || ''::text) @> '\x'::bytea AS empty_string_no_bytes,
       (e || 'abc'::name) @> 'abc' AS name_as_text
FROM io_empty;
-- the server encoding's bytes: 'é' in UTF-8 is c3 a9
SELECT CASE WHEN getdatabaseencoding() = 'UTF8'
            THEN (e || U&'\00E9') @> '\xc3a9'::bytea
            ELSE true END AS utf8_bytes
FROM io_empty;

-- uuid: its 16 bytes
SELECT (e || 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid)
         @> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS uuid_found,
       (e || 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid)
         @> '\xa0eebc999c0b4ef8bb6d6bb9bd380a11'::bytea AS uuid_is_16_bytes,
       (e || 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid)
         @> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::text AS uuid_found_as_text,
       bloomfilter_add_all(e, ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid])::bytea
         = (e || 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid)::bytea AS uuid_array
FROM io_empty;

-- bytea: raw bytes
SELECT (e || '\x00ff'::bytea) @> '\x00ff'::bytea AS bytea_found,
       (e || '\x00ff'::bytea) @> '\x00fe'::bytea AS other_found,
       bloomfilter_add_all(e, ARRAY['\x00ff'::bytea])::bytea = (e || '\x00ff'::bytea)::bytea AS bytea_array
FROM io_empty;

-- the anyelement fallback (STORAGE.md, section 6): by the type's equality
-- where it is not equality of the send form, else the send form
SELECT (e || 1.5) @> 1.5 AS numeric_found,
       (e || 1.5) @> 2.5 AS numeric_other,
       (e || 42::numeric) @> 42::bigint AS integral_numeric_as_integer,
       (e || '2000-01-02'::date) @> '2000-01-02'::date AS date_found,
       (e || '2000-01-02'::date) @> '\x00000001'::bytea AS date_send_form,
       (e || 1.5::float8) @> '\x000000000000f83f'::bytea AS float8_little_endian,
       (e || true) @> '\x01'::bytea AS bool_send_form,
       (e || '10.0.0.1'::inet) @> '10.0.0.1'::inet AS inet_found
FROM io_empty;
-- values = calls equal are found (numeric scale, the sign of zero, jsonb key
-- order); json has no =, and hashes its text as typed
SELECT (e || 42) @> 42::numeric AS int_found_as_numeric,
       (e || 1.5) @> 1.50 AS found_as_1_50,
       (e || 0::float8) @> '-0'::float8 AS zero_found_as_minus_zero,
       (e || '{"a": 1, "b": 2}'::jsonb) @> '{"b":2,"a":1}'::jsonb AS jsonb_found_reordered,
       (e || '{"a": 1}'::json) @> '{"a":1}'::json AS json_found_respaced
FROM io_empty;
-- an enum hashes as its label
CREATE TYPE io_mood AS ENUM ('sad', 'happy');
SELECT (e || 'happy'::io_mood) @> 'happy'::text AS enum_is_its_label,
       (e || 'happy'::io_mood) @> 'sad'::io_mood AS other_label
FROM io_empty;
-- arrays and composites go through anyelement, by the canonical bytes of
-- their elements (integers of every width alike, so int4[] matches int8[])
SELECT (e || ARRAY[1, 2]) @> ARRAY[1, 2] AS array_found,
       (e || ARRAY[1, 2]) @> ARRAY[2, 1] AS array_found_reversed,
       (e || ARRAY[1, 2]) @> ARRAY[1, 2]::bigint[] AS found_as_int8_array,
       (e || ARRAY[1, 2]) @> 1 AS element_found,
       (e || ROW(1, 'a')) @> ROW(1, 'a') AS record_found,
       (e || ROW(1, 'a')) @> ROW(1, 'b') AS record_other
FROM io_empty;
-- an untyped NULL: f || NULL picks the text operator and keeps f as it was
SELECT pg_typeof(e || NULL) AS type, (e || NULL)::bytea = e::bytea AS unchanged
FROM io_empty;

DROP TABLE io_filters, io_bytes, io_copied, io_empty, io_sparse, io_sparse_copy, io_example, io_sparse_base;
DROP DOMAIN io_posint;
DROP TYPE io_mood;
