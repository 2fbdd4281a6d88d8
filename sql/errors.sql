--
-- errors: every way a call can fail, with its SQLSTATE (never XX000),
-- message and detail.  Bad arguments to the constructors and sizing
-- functions; unknown and not-yet-available variants; sizes past the 1 GB
-- limit of a value; elements that are filters; invalid text input; and
-- hostile bytes, crafted from a valid filter one header field at a time,
-- through the bytea cast (22P03), text input (22P02) and binary COPY
-- (bloomfilter_recv).  A few errors are also shown the way psql prints them.
-- (error_of, from sql/setup.sql, says what a statement raises.)
--

--
-- bad arguments: 22023 invalid_parameter_value
--
SELECT stmt, e.state, e.message, e.detail
FROM unnest(ARRAY[
	'SELECT bloomfilter_create(0)',
	'SELECT bloomfilter_create(-1)',
	'SELECT bloomfilter_create(1000, 0)',
	'SELECT bloomfilter_create(1000, 1)',
	'SELECT bloomfilter_create(1000, 1.5)',
	'SELECT bloomfilter_create(1000, -0.5)',
	'SELECT bloomfilter_create(1000, ''NaN'')',
	'SELECT bloomfilter_create(1000, ''Infinity'')',
	'SELECT bloomfilter_create(1000, ''-Infinity'')',
	'SELECT bloomfilter_create_bits(0, 3)',
	'SELECT bloomfilter_create_bits(-512, 3)',
	'SELECT bloomfilter_create_bits(1000, 0)',
	'SELECT bloomfilter_create_bits(1000, 65)',
	'SELECT bloomfilter_create_bits(1000, -1)',
	'SELECT bloomfilter_optimal_bits(0, 0.01)',
	'SELECT bloomfilter_optimal_bits(1000, 0)',
	'SELECT bloomfilter_optimal_bits(1000, 1)',
	'SELECT bloomfilter_optimal_bits(1000, ''NaN'')',
	'SELECT bloomfilter_optimal_hashes(0, 1000)',
	'SELECT bloomfilter_optimal_hashes(1000, 0)',
	'SELECT bloomfilter_optimal_hashes(1000, -1)',
	'SELECT bloomfilter_false_positive_rate(0, 10, 3)',
	'SELECT bloomfilter_false_positive_rate(1000, -1, 3)',
	'SELECT bloomfilter_false_positive_rate(1000, 10, 0)',
	'SELECT bloomfilter_false_positive_rate(1000, 10, 65)',
	'SELECT bloomfilter_capacity(0, 0.01)',
	'SELECT bloomfilter_capacity(-1, 0.01)',
	'SELECT bloomfilter_capacity(1000, 0)',
	'SELECT bloomfilter_capacity(1000, ''Infinity'', ''blocked'')'
]) stmt, LATERAL error_of(stmt) e;
-- three of them as psql shows them
-- ERROR:  expected_items must be positive
SELECT bloomfilter_create(0);
-- ERROR:  false_positive_rate must lie strictly between 0 and 1
SELECT bloomfilter_create(1000, 'NaN');
-- ERROR:  hashes must be between 1 and 64
SELECT bloomfilter_create_bits(1000, 65);

--
-- variants: unknown names are 22023, the planned ones 0A000
-- feature_not_supported; both hint at the available variants
--
SELECT stmt, e.state, e.message, e.hint
FROM unnest(ARRAY[
	'SELECT bloomfilter_create(1000, 0.01, ''bloom'')',
	'SELECT bloomfilter_create(1000, 0.01, '''')',
	'SELECT bloomfilter_create(1000, 0.01, ''Blocked'')',
	'SELECT bloomfilter_create(1000, 0.01, ''blocked '')',
	'SELECT bloomfilter_create(1000, 0.01, ''counting'')',
	'SELECT bloomfilter_create(1000, 0.01, ''scalable'')',
	'SELECT bloomfilter_create(1000, 0.01, ''cuckoo'')',
	'SELECT bloomfilter_create_bits(1000, 3, ''counting'')',
	'SELECT bloomfilter_create_bits(1000, 3, ''nope'')',
	'SELECT bloomfilter_optimal_bits(1000, 0.01, ''cuckoo'')',
	'SELECT bloomfilter_optimal_bits(1000, 0.01, ''nope'')',
	'SELECT bloomfilter_capacity(1000, 0.01, ''scalable'')',
	'SELECT bloomfilter_capacity(1000, 0.01, ''nope'')'
]) stmt, LATERAL error_of(stmt) e;
-- ERROR:  unknown bloomfilter variant "bloom"
SELECT bloomfilter_create(1000, 0.01, 'bloom');

--
-- sizes past the 1 GB limit of one value: 54000 program_limit_exceeded,
-- refused before anything is allocated, with the size in the detail and a
-- hint; a bit count past bigint in optimal_bits is 22003.  The size is that
-- of the whole value, 64 + payload_bytes (STORAGE.md, section 2), so at the
-- edge (8589934041 classic bits) it names a size past the limit; a bit
-- count past what a cuckoo filter's format can describe says so.
--
SELECT stmt, e.*
FROM unnest(ARRAY[
	'SELECT bloomfilter_create(10000000000, 0.0001)',
	'SELECT bloomfilter_create(10000000000, 0.0001, ''classic'')',
	'SELECT bloomfilter_create(9223372036854775807, 0.5)',
	'SELECT bloomfilter_create_bits(8589934041, 1, ''classic'')',
	'SELECT bloomfilter_create_bits(8589934592, 1, ''blocked'')',
	'SELECT bloomfilter_create_bits(9223372036854775807, 1)',
	'SELECT bloomfilter_create_bits(80000000000, 7, ''cuckoo'')',
	'SELECT bloomfilter_optimal_bits(1000000000000000000, 1e-300)',
	'SELECT bloomfilter_optimal_bits(1000000000000000000, 1e-300, ''blocked'')'
]) stmt, LATERAL error_of(stmt) e;
-- ERROR:  bloomfilter would exceed the 1 GB limit of one value
SELECT bloomfilter_create(10000000000, 0.0001);
-- (the models themselves answer for sizes no value could hold)
SELECT bloomfilter_optimal_bits(10000000000, 0.0001, 'blocked') AS bits,
       bloomfilter_capacity(9000000000000000000, 0.01, 'blocked') > 0 AS capacity_answers;

--
-- a filter is not an element: 42804 datatype_mismatch, hinting at union
--
CREATE TABLE err_f AS SELECT bloomfilter_create(100) AS f;
SELECT stmt, e.state, e.message, e.hint
FROM unnest(ARRAY[
	'SELECT f || f FROM err_f',
	'SELECT bloomfilter_add(f, f) FROM err_f',
	'SELECT f @> f FROM err_f',
	'SELECT f <@ f FROM err_f'
]) stmt, LATERAL error_of(stmt) e;
-- an array of filters is refused as elements too
SELECT e.state, e.message
FROM error_of('SELECT bloomfilter_add_all(f, ARRAY[f]) FROM err_f') e;
-- ERROR:  a bloomfilter cannot be an element of a bloomfilter
SELECT f || f FROM err_f;

--
-- text input: base64, white space only around it, '=' padding required (a
-- filter with enough bits set that its text form is base64; the sparse form's
-- errors are in type_io)
--
CREATE TABLE err_text AS
SELECT bloomfilter_add_all(bloomfilter_create(10, 0.01, 'blocked'), ARRAY(SELECT generate_series(1, 30)))::text AS t;
SELECT t LIKE 'QkxNRg%' AS base64 FROM err_text;
SELECT what, e.state, e.message, e.detail
FROM err_text,
     LATERAL (VALUES
	('not base64',            'hello, world!'),
	('hex of the bytes',      '\x424c4d4601010100'),
	('space inside',          left(t, 20) || ' ' || substr(t, 21)),
	('newline inside',        left(t, 76) || E'\n' || substr(t, 77)),
	('vertical tab around',   E'\v' || t),
	('padding missing',       rtrim(t, '=')),
	('one character short',   left(t, -2) || '='),
	('data after padding',    t || 'AAAA'),
	('empty',                 ''),
	('only white space',      E' \t\n'),
	('valid base64, 3 bytes', 'QUJD')
     ) c(what, input),
     LATERAL error_of(format('SELECT %L::bloomfilter', input)) e;
-- ERROR:  invalid input syntax for type bloomfilter
SELECT 'hello, world!'::bloomfilter;
-- ERROR:  invalid input syntax for type bloomfilter
SELECT ''::bloomfilter;

--
-- hostile bytes.  Valid filters to start from:
--   c: classic, 96 bits (so bits 96-127 are padding), 7 hashes, sized for
--      10 items at 1 % (expected_items 10, target_fpr 0.01), 80 bytes
--   b: blocked, one 512-bit block, 128 bytes
-- and each case corrupts one thing (byte offsets below are 1-based, as
-- overlay counts: magic 1, version 5, variant 6, hash scheme 7, flags 8,
-- hashes 9-12, reserved 13-16, seed 17-24, bits 25-32, items 33-40,
-- expected_items 41-48, target_fpr 49-56, payload_bytes 57-64, payload 65-).
--
CREATE TABLE err_base AS
	SELECT (bloomfilter_create(10, 0.01, 'classic') || 'x')::bytea AS c,
	       (bloomfilter_create(10, 0.01, 'blocked') || 'x')::bytea AS b;
SELECT octet_length(c) AS c_bytes, encode(substr(c, 1, 64), 'hex') AS c_header,
       octet_length(b) AS b_bytes
FROM err_base;
CREATE TABLE err_hostile (id int PRIMARY KEY, what text, bytes bytea);
INSERT INTO err_hostile
SELECT v.* FROM err_base, LATERAL (VALUES
	(1, 'valid classic (control)', c),
	(2, 'valid blocked (control)', b),
	(3, 'empty', '\x'::bytea),
	(4, '63 bytes', substr(c, 1, 63)),
	(5, 'header only', substr(c, 1, 64)),
	(6, 'magic BLMG', overlay(c PLACING '\x424c4d47' FROM 1)),
	(7, 'magic all zero', overlay(c PLACING '\x00000000' FROM 1)),
	(8, 'version 0', overlay(c PLACING '\x00' FROM 5)),
	(9, 'version 2', overlay(c PLACING '\x02' FROM 5)),
	(10, 'variant 0', overlay(c PLACING '\x00' FROM 6)),
	(11, 'variant 3', overlay(c PLACING '\x03' FROM 6)),
	(12, 'variant 9', overlay(c PLACING '\x09' FROM 6)),
	(13, 'classic bytes, blocked code', overlay(c PLACING '\x01' FROM 6)),
	(14, 'hash scheme 0', overlay(c PLACING '\x00' FROM 7)),
	(15, 'hash scheme 3', overlay(c PLACING '\x03' FROM 7)),
	(16, 'flags 01', overlay(c PLACING '\x01' FROM 8)),
	(17, 'flags 80', overlay(c PLACING '\x80' FROM 8)),
	(18, 'reserved, first byte', overlay(c PLACING '\x01' FROM 13)),
	(19, 'reserved, last byte', overlay(c PLACING '\x80' FROM 16)),
	(20, 'hashes 0', overlay(c PLACING '\x00000000' FROM 9)),
	(21, 'hashes 65', overlay(c PLACING '\x41000000' FROM 9)),
	(22, 'hashes 2^32 - 1', overlay(c PLACING '\xffffffff' FROM 9)),
	(23, 'hashes 64 (valid)', overlay(c PLACING '\x40000000' FROM 9)),
	(24, 'bits 0', overlay(c PLACING '\x0000000000000000' FROM 25)),
	(25, 'blocked bits 1000', overlay(b PLACING '\xe803000000000000' FROM 25)),
	(26, 'blocked bits 1024, payload 64', overlay(b PLACING '\x0004000000000000' FROM 25)),
	(27, 'classic bits 129, payload 16', overlay(c PLACING '\x8100000000000000' FROM 25)),
	(28, 'classic bits 97 (valid)', overlay(c PLACING '\x6100000000000000' FROM 25)),
	(29, 'payload_bytes 8', overlay(c PLACING '\x0800000000000000' FROM 57)),
	(30, 'payload_bytes 24', overlay(c PLACING '\x1800000000000000' FROM 57)),
	(31, 'payload_bytes 2^63', overlay(c PLACING '\x0000000000000080' FROM 57)),
	(32, 'bits 2^40', overlay(c PLACING '\x0000000000010000' FROM 25)),
	(33, 'bits 8589934041 (one past the largest)', overlay(overlay(c PLACING '\xd9fdffff01000000' FROM 25)
	                                    PLACING '\xc0ffff3f00000000' FROM 57)),
	(34, 'bits 8589934040, payload 1073741760 (past 1 GB)', overlay(overlay(c PLACING '\xd8fdffff01000000' FROM 25)
	                                    PLACING '\xc0ffff3f00000000' FROM 57)),
	(35, 'bits 8e9, payload 1e9, only 80 bytes', overlay(overlay(c PLACING '\x0050d6dc01000000' FROM 25)
	                                    PLACING '\x00ca9a3b00000000' FROM 57)),
	(36, 'padding bit 96 set', set_bit(c, 8 * 64 + 96, 1)),
	(37, 'padding bit 127 set', set_bit(c, 8 * 64 + 127, 1)),
	(38, 'last bit 95 set (valid)', set_bit(c, 8 * 64 + 95, 1)),
	(39, 'target_fpr 2.0', overlay(c PLACING '\x0000000000000040' FROM 49)),
	(40, 'target_fpr 1.0', overlay(c PLACING '\x000000000000f03f' FROM 49)),
	(41, 'target_fpr -0.5', overlay(c PLACING '\x000000000000e0bf' FROM 49)),
	(42, 'target_fpr -0.0', overlay(c PLACING '\x0000000000000080' FROM 49)),
	(43, 'target_fpr NaN', overlay(c PLACING '\x000000000000f87f' FROM 49)),
	(44, 'target_fpr Infinity', overlay(c PLACING '\x000000000000f07f' FROM 49)),
	(45, 'target_fpr 0, expected_items 10', overlay(c PLACING '\x0000000000000000' FROM 49)),
	(46, 'expected_items 0, target_fpr 0.01', overlay(c PLACING '\x0000000000000000' FROM 41)),
	(47, 'items 2^64 - 1 (valid)', overlay(c PLACING '\xffffffffffffffff' FROM 33)),
	(48, 'seed -1 (valid)', overlay(c PLACING '\xffffffffffffffff' FROM 17)),
	(49, 'truncated by one byte', substr(c, 1, octet_length(c) - 1)),
	(50, 'truncated by 8 bytes', substr(c, 1, octet_length(c) - 8)),
	(51, 'one trailing byte', c || '\x00'::bytea),
	(52, '8 trailing bytes', c || '\x0000000000000000'::bytea),
	(53, 'the filter twice', c || c)
) v(id, what, bytes);

-- the bytea cast: 22P03 invalid_binary_representation, with a detail that
-- says what is wrong (54000 for a header declaring more than 1 GB)
SELECT h.id, h.what, e.state, e.message, e.detail
FROM err_hostile h, LATERAL error_of(format('SELECT %L::bytea::bloomfilter', h.bytes)) e
ORDER BY h.id;
-- text input of the same bytes: 22P02 invalid_text_representation, same detail
SELECT h.id, t.state, t.message,
       t.detail IS NOT DISTINCT FROM c.detail AS same_detail_as_cast
FROM err_hostile h,
     LATERAL error_of(format('SELECT %L::bytea::bloomfilter', h.bytes)) c,
     LATERAL error_of(format('SELECT %L::bloomfilter',
                           translate(encode(h.bytes, 'base64'), E'\n', ''))) t
ORDER BY h.id;

-- binary input (bloomfilter_recv), reached through binary COPY: the bytes
-- are written by COPY of a bytea (server side, to a file of this backend's
-- own under /tmp, so the test needs a superuser) and read back into a
-- bloomfilter column.  recv must check everything the cast checks.
CREATE TABLE err_recv_into (f bloomfilter);
CREATE FUNCTION err_recv(bytes bytea, OUT state text, OUT message text, OUT detail text)
LANGUAGE plpgsql AS $$
DECLARE
	path text := '/tmp/bloomfilter_regress_errors_' || pg_backend_pid() || '.bin';
BEGIN
	EXECUTE format('COPY (SELECT %L::bytea) TO %L WITH (FORMAT binary)', bytes, path);
	BEGIN
		EXECUTE format('COPY err_recv_into FROM %L WITH (FORMAT binary)', path);
		state := 'no error';
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE,
		                        message = MESSAGE_TEXT,
		                        detail = PG_EXCEPTION_DETAIL;
	END;
END
$$;
SELECT h.id, r.state, r.message,
       r.detail IS NOT DISTINCT FROM c.detail AS same_detail_as_cast
FROM err_hostile h,
     LATERAL error_of(format('SELECT %L::bytea::bloomfilter', h.bytes)) c,
     LATERAL err_recv(h.bytes) r
ORDER BY h.id;
-- what recv accepted are exactly the valid cases, byte for byte
SELECT count(*) AS accepted,
       count(*) FILTER (WHERE f::bytea IN (SELECT bytes FROM err_hostile
                                            WHERE what LIKE '%valid%')) AS as_sent
FROM err_recv_into;

-- a few as psql prints them
-- ERROR:  invalid binary data for type bloomfilter
SELECT bytes::bloomfilter FROM err_hostile WHERE what = 'magic BLMG';
-- ERROR:  invalid binary data for type bloomfilter
SELECT bytes::bloomfilter FROM err_hostile WHERE what = 'padding bit 127 set';
-- ERROR:  invalid input syntax for type bloomfilter
SELECT translate(encode(bytes, 'base64'), E'\n', '')::bloomfilter
FROM err_hostile WHERE what = 'target_fpr NaN';
-- ERROR:  bloomfilter value declares a size past the 1 GB limit
SELECT bytes::bloomfilter FROM err_hostile WHERE what LIKE '%past 1 GB%';
-- and through binary COPY from psql (\copy)
CREATE TABLE err_recv_src AS SELECT bytes FROM err_hostile WHERE what = 'truncated by one byte';
\copy err_recv_src TO 'results/errors_recv.bin' WITH (FORMAT binary)
-- ERROR:  invalid binary data for type bloomfilter
\copy err_recv_into FROM 'results/errors_recv.bin' WITH (FORMAT binary)

-- remove the scratch file of err_recv
DO $$
BEGIN
	EXECUTE format('COPY (SELECT 1 WHERE false) TO PROGRAM %L',
	               'rm -f /tmp/bloomfilter_regress_errors_' || pg_backend_pid() || '.bin');
END
$$;

DROP TABLE err_f, err_text, err_base, err_hostile, err_recv_into, err_recv_src;
DROP FUNCTION err_recv(bytea);
