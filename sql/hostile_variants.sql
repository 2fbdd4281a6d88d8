--
-- hostile_variants: crafted bytes for every header field and every stage
-- record field of the counting, scalable and cuckoo variants (STORAGE.md
-- sections 3, 11 to 13): wrong variant codes and variant words, stage
-- counts that overflow or disagree, fingerprint widths out of range, bucket
-- and bit counts that overflow, stage records that disagree with the
-- payload, padding bits, truncated values and trailing bytes.  Each is
-- built from a small valid filter with overlay() and sent through the bytea
-- cast (22P03), text input (22P02, the same detail) and binary input
-- (bloomfilter_recv through binary COPY); a refusal names what is wrong,
-- never XX000.  What is accepted must then work with every function.
--
-- n as 'width' little-endian bytes
CREATE FUNCTION hv_le(n numeric, width int) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg(set_byte('\x00'::bytea, 0, mod(div(n, 256::numeric ^ i), 256)::int), ''::bytea ORDER BY i)
	FROM generate_series(0, width - 1) AS i
$$;
-- what a statement raises (error_of, sql/setup.sql): 'accepted', or the SQLSTATE and the detail
CREATE FUNCTION hv_try(stmt text) RETURNS text
LANGUAGE sql AS $$
	SELECT CASE state WHEN 'no error' THEN 'accepted' ELSE state || ' ' || coalesce(detail, '(no detail)') END
	FROM error_of(stmt)
$$;

--
-- the valid filters the cases start from (STORAGE.md's worked examples):
--   cnt   counting, 20 counters, k 3, 'hello' twice and 42: 80 bytes
--   cnt21 counting, 21 counters, empty: 80 bytes (counters 21-31 padding)
--   scl   scalable, n0 1 at 10 %, 'hello' then 42: two stages, 320 bytes
--   scl1  the same with 'hello' only: one stage, 192 bytes
--   ck    cuckoo, 2 buckets of 8-bit fingerprints, 'hello' and 42: 88 bytes
--   ck2   cuckoo, 1 bucket of 4-bit fingerprints, 1 to 5: grown to a second
--         stage of 2 buckets, 112 bytes (each stage has 48 or 32 padding bits)
-- Offsets below are 1-based, as overlay counts them.  Header: magic 1,
-- version 5, variant 6, hash scheme 7, flags 8, hashes 9-12, variant word
-- 13-16, seed 17-24, bits 25-32, items 33-40, expected_items 41-48,
-- target_fpr 49-56, payload_bytes 57-64, payload from 65.
-- Scalable stage record at 65 (stage 1 of scl at 193): bits +0, capacity
-- +8, held +16, hashes +24, level +28, reserved +32 to +63, blocks +64.
-- Cuckoo stage record at 65 (stage 1 of ck2 at 89): buckets +0, used +8,
-- slots +16.
--
CREATE TABLE hv_base AS
SELECT (bloomfilter_create_bits(20, 3, 'counting') || 'hello'::text || 'hello'::text || 42)::bytea AS cnt,
       bloomfilter_create_bits(21, 3, 'counting')::bytea AS cnt21,
       (bloomfilter_create(1, 0.1, 'scalable') || 'hello'::text || 42)::bytea AS scl,
       (bloomfilter_create(1, 0.1, 'scalable') || 'hello'::text)::bytea AS scl1,
       (bloomfilter_create_bits(64, 8, 'cuckoo') || 'hello'::text || 42)::bytea AS ck,
       bloomfilter_add_all(bloomfilter_create_bits(16, 4, 'cuckoo'), ARRAY[1, 2, 3, 4, 5])::bytea AS ck2;
SELECT octet_length(cnt) AS cnt, octet_length(cnt21) AS cnt21, octet_length(scl) AS scl,
       octet_length(scl1) AS scl1, octet_length(ck) AS ck, octet_length(ck2) AS ck2
FROM hv_base;
SELECT encode(substr(cnt, 1, 64), 'hex') AS counting_header,
       encode(substr(scl, 1, 64), 'hex') AS scalable_header,
       encode(substr(ck2, 1, 64), 'hex') AS cuckoo_header
FROM hv_base;

CREATE TABLE hv_case (id int PRIMARY KEY, variant text, what text, bytes bytea);

-- counting
INSERT INTO hv_case
SELECT 100 + row_number() OVER (), 'counting', what, bytes FROM hv_base, LATERAL (VALUES
	('valid (control)', cnt),
	('valid: counters 20 to 31 made real (bits 32)', overlay(cnt PLACING hv_le(32, 8) FROM 25)),
	('valid: counter 20 of 21 at 15', overlay(cnt21 PLACING '\x0f'::bytea FROM 65 + 10)),
	('valid: items 2^64 - 1', overlay(cnt PLACING hv_le(2::numeric ^ 64 - 1, 8) FROM 33)),
	('magic "blmf"', overlay(cnt PLACING '\x626c6d66'::bytea FROM 1)),
	('version 0', overlay(cnt PLACING '\x00'::bytea FROM 5)),
	('version 255', overlay(cnt PLACING '\xff'::bytea FROM 5)),
	('variant 0', overlay(cnt PLACING '\x00'::bytea FROM 6)),
	('variant 6', overlay(cnt PLACING '\x06'::bytea FROM 6)),
	('variant 255', overlay(cnt PLACING '\xff'::bytea FROM 6)),
	('variant 1 (blocked): 20 bits', overlay(cnt PLACING '\x01'::bytea FROM 6)),
	('variant 2 (classic): payload of 20 counters', overlay(cnt PLACING '\x02'::bytea FROM 6)),
	('variant 4 (scalable) with variant word 0', overlay(cnt PLACING '\x04'::bytea FROM 6)),
	('variant 5 (cuckoo): f = 3', overlay(cnt PLACING '\x05'::bytea FROM 6)),
	('hash scheme 0', overlay(cnt PLACING '\x00'::bytea FROM 7)),
	('hash scheme 3', overlay(cnt PLACING '\x03'::bytea FROM 7)),
	('flags 1', overlay(cnt PLACING '\x01'::bytea FROM 8)),
	('variant word 1', overlay(cnt PLACING hv_le(1, 4) FROM 13)),
	('variant word 2^32 - 1', overlay(cnt PLACING hv_le(2::numeric ^ 32 - 1, 4) FROM 13)),
	('hashes 0', overlay(cnt PLACING hv_le(0, 4) FROM 9)),
	('hashes 65', overlay(cnt PLACING hv_le(65, 4) FROM 9)),
	('hashes 2^32 - 1', overlay(cnt PLACING hv_le(2::numeric ^ 32 - 1, 4) FROM 9)),
	('bits 0', overlay(cnt PLACING hv_le(0, 8) FROM 25)),
	('bits 33 (needs 24 payload bytes)', overlay(cnt PLACING hv_le(33, 8) FROM 25)),
	('bits 2^63', overlay(cnt PLACING hv_le(2::numeric ^ 63, 8) FROM 25)),
	('bits 2^64 - 1', overlay(cnt PLACING hv_le(2::numeric ^ 64 - 1, 8) FROM 25)),
	('bits 8589934041, one past the largest', overlay(cnt PLACING hv_le(8589934041, 8) FROM 25)),
	('bits 2147483520 with payload to match (past 1 GB)',
	 overlay(overlay(cnt PLACING hv_le(2147483520, 8) FROM 25) PLACING hv_le(1073741760, 8) FROM 57)),
	('payload_bytes 8', overlay(cnt PLACING hv_le(8, 8) FROM 57)),
	('payload_bytes 24', overlay(cnt PLACING hv_le(24, 8) FROM 57)),
	('payload_bytes 2^64 - 8 (wraps when 64 is added)', overlay(cnt PLACING hv_le(2::numeric ^ 64 - 8, 8) FROM 57)),
	('target_fpr 0.01 with expected_items 0', overlay(cnt PLACING '\x7b14ae47e17a843f'::bytea FROM 49)),
	('expected_items 10 with target_fpr 0', overlay(cnt PLACING hv_le(10, 8) FROM 41)),
	('padding counter 20 set', overlay(cnt PLACING '\x01'::bytea FROM 65 + 10)),
	('padding counter 31 set', overlay(cnt PLACING '\xf0'::bytea FROM 65 + 15)),
	('padding counter 21 of 21 set', overlay(cnt21 PLACING '\x10'::bytea FROM 65 + 10)),
	('truncated by 1 byte', substr(cnt, 1, 79)),
	('truncated to the header', substr(cnt, 1, 64)),
	('1 trailing byte', cnt || '\x00'::bytea),
	('8 trailing bytes', cnt || '\x0000000000000000'::bytea)
) AS t(what, bytes);

-- scalable
INSERT INTO hv_case
SELECT 200 + row_number() OVER (), 'scalable', what, bytes FROM hv_base, LATERAL (VALUES
	('valid (control), 2 stages', scl),
	('valid (control), 1 stage', scl1),
	('valid: items and stage 1''s held changed', overlay(overlay(scl PLACING hv_le(12345, 8) FROM 33) PLACING hv_le(0, 8) FROM 209)),
	('version 2', overlay(scl PLACING '\x02'::bytea FROM 5)),
	('variant 1 (blocked) with variant word 2', overlay(scl PLACING '\x01'::bytea FROM 6)),
	('variant 5 (cuckoo): f = 34', overlay(scl PLACING '\x05'::bytea FROM 6)),
	('flags 128', overlay(scl PLACING '\x80'::bytea FROM 8)),
	('stages 0', overlay(scl PLACING hv_le(0, 4) FROM 13)),
	('stages 1 (payload of 2)', overlay(scl PLACING hv_le(1, 4) FROM 13)),
	('stages 3 (payload of 2)', overlay(scl PLACING hv_le(3, 4) FROM 13)),
	('stages 3, bits and payload to match, only 2 records',
	 overlay(overlay(overlay(scl PLACING hv_le(3, 4) FROM 13) PLACING hv_le(1536, 8) FROM 25) PLACING hv_le(384, 8) FROM 57)),
	('stages 65', overlay(scl PLACING hv_le(65, 4) FROM 13)),
	('stages 2^32 - 1', overlay(scl PLACING hv_le(2::numeric ^ 32 - 1, 4) FROM 13)),
	('stages 2^26 (64 x S wraps 32 bits)', overlay(scl PLACING hv_le(2::numeric ^ 26, 4) FROM 13)),
	('hashes 0', overlay(scl PLACING hv_le(0, 4) FROM 9)),
	('hashes 65', overlay(scl PLACING hv_le(65, 4) FROM 9)),
	('hashes 33 (not stage 0''s 34)', overlay(scl PLACING hv_le(33, 4) FROM 9)),
	('bits 0', overlay(scl PLACING hv_le(0, 8) FROM 25)),
	('bits 512 (less than 512 x stages)', overlay(scl PLACING hv_le(512, 8) FROM 25)),
	('bits 1000 (not whole blocks)', overlay(scl PLACING hv_le(1000, 8) FROM 25)),
	('bits 1536, payload 320 (stages add up to 1024)',
	 overlay(overlay(scl PLACING hv_le(1536, 8) FROM 25) PLACING hv_le(320, 8) FROM 57)),
	('bits 2^63', overlay(scl PLACING hv_le(2::numeric ^ 63, 8) FROM 25)),
	('bits 2^64 - 512', overlay(scl PLACING hv_le(2::numeric ^ 64 - 512, 8) FROM 25)),
	('payload_bytes 255', overlay(scl PLACING hv_le(255, 8) FROM 57)),
	('payload_bytes 2^64 - 64', overlay(scl PLACING hv_le(2::numeric ^ 64 - 64, 8) FROM 57)),
	('expected_items 0', overlay(scl PLACING hv_le(0, 8) FROM 41)),
	('expected_items 2 (stages planned for 1)', overlay(scl PLACING hv_le(2, 8) FROM 41)),
	('expected_items 2^62', overlay(scl PLACING hv_le(2::numeric ^ 62, 8) FROM 41)),
	('expected_items 2^62, stage capacities to match',
	 overlay(overlay(overlay(scl PLACING hv_le(2::numeric ^ 62, 8) FROM 41) PLACING hv_le(2::numeric ^ 62, 8) FROM 73)
	         PLACING hv_le(2::numeric ^ 63, 8) FROM 201)),
	('expected_items 2^64 - 1, stage capacities to match',
	 overlay(overlay(overlay(scl PLACING hv_le(2::numeric ^ 64 - 1, 8) FROM 41) PLACING hv_le(2::numeric ^ 64 - 1, 8) FROM 73)
	         PLACING hv_le(2::numeric ^ 64 - 2, 8) FROM 201)),
	('target_fpr 0', overlay(scl PLACING hv_le(0, 8) FROM 49)),
	('target_fpr 1.0', overlay(scl PLACING '\x000000000000f03f'::bytea FROM 49)),
	('target_fpr NaN', overlay(scl PLACING '\x000000000000f87f'::bytea FROM 49)),
	('valid: target_fpr 0.2 (n0 = 1 plans the same stages)', overlay(scl PLACING '\x9a9999999999c93f'::bytea FROM 49)),
	('target_fpr 1e-300', overlay(scl PLACING '\x9c7500883ce4371e'::bytea FROM 49)),
	('stage 0: bits 0', overlay(scl PLACING hv_le(0, 8) FROM 65)),
	('stage 0: bits 1024 (more than its record)', overlay(scl PLACING hv_le(1024, 8) FROM 65)),
	('stage 0: bits 2^64 - 512', overlay(scl PLACING hv_le(2::numeric ^ 64 - 512, 8) FROM 65)),
	('stage 0: bits 520 (not whole blocks)', overlay(scl PLACING hv_le(520, 8) FROM 65)),
	('stage 0: capacity 2', overlay(scl PLACING hv_le(2, 8) FROM 73)),
	('stage 0: capacity 0', overlay(scl PLACING hv_le(0, 8) FROM 73)),
	('stage 0: held 2 of capacity 1', overlay(scl PLACING hv_le(2, 8) FROM 81)),
	('stage 0: held 2^64 - 1', overlay(scl PLACING hv_le(2::numeric ^ 64 - 1, 8) FROM 81)),
	('stage 0: hashes 0', overlay(scl PLACING hv_le(0, 4) FROM 89)),
	('stage 0: hashes 65', overlay(scl PLACING hv_le(65, 4) FROM 89)),
	('stage 0: hashes 33 (header says 34)', overlay(scl PLACING hv_le(33, 4) FROM 89)),
	('stage 0: level 1', overlay(scl PLACING hv_le(1, 4) FROM 93)),
	('stage 0: reserved byte 32', overlay(scl PLACING '\x01'::bytea FROM 97)),
	('stage 0: reserved byte 63', overlay(scl PLACING '\x80'::bytea FROM 128)),
	('stage 1: bits 0', overlay(scl PLACING hv_le(0, 8) FROM 193)),
	('stage 1: bits 1024 (past the payload)', overlay(scl PLACING hv_le(1024, 8) FROM 193)),
	('stage 1: capacity 4', overlay(scl PLACING hv_le(4, 8) FROM 201)),
	('stage 1: held 3 of capacity 2', overlay(scl PLACING hv_le(3, 8) FROM 209)),
	('stage 1: hashes 34 (level 1 plans 30)', overlay(scl PLACING hv_le(34, 4) FROM 217)),
	('stage 1: level 0 (capacity 2 is not 1)', overlay(scl PLACING hv_le(0, 4) FROM 221)),
	('stage 1: level 2 (capacity 2 is not 4)', overlay(scl PLACING hv_le(2, 4) FROM 221)),
	('stage 1: level 63, capacity 2^63', overlay(overlay(scl PLACING hv_le(63, 4) FROM 221) PLACING hv_le(2::numeric ^ 63, 8) FROM 201)),
	('stage 1: level 64, capacity 0', overlay(overlay(scl PLACING hv_le(64, 4) FROM 221) PLACING hv_le(0, 8) FROM 201)),
	('stage 1: level 2^32 - 1', overlay(scl PLACING hv_le(2::numeric ^ 32 - 1, 4) FROM 221)),
	('stage 1: reserved byte 40', overlay(scl PLACING '\xff'::bytea FROM 233)),
	('valid: stage 1 replaced by a copy of stage 0 (levels may repeat)', overlay(scl PLACING substr(scl, 65, 128) FROM 193)),
	('truncated by 8 bytes', substr(scl, 1, 312)),
	('truncated inside stage 1''s header', substr(scl, 1, 200)),
	('truncated to the header, payload_bytes 0', overlay(substr(scl, 1, 64) PLACING hv_le(0, 8) FROM 57)),
	('8 trailing bytes', scl || '\x0000000000000000'::bytea),
	('a third stage record appended (header unchanged)', scl || substr(scl, 193, 128))
) AS t(what, bytes);

-- cuckoo
INSERT INTO hv_case
SELECT 300 + row_number() OVER (), 'cuckoo', what, bytes FROM hv_base, LATERAL (VALUES
	('valid (control), 1 stage', ck),
	('valid (control), 2 stages', ck2),
	('valid: any slot bytes', overlay(ck PLACING '\xffffffffffffffff'::bytea FROM 81)),
	('valid: used 0 (informational)', overlay(ck PLACING hv_le(0, 8) FROM 73)),
	('valid: used 8, all slots', overlay(ck PLACING hv_le(8, 8) FROM 73)),
	('version 0', overlay(ck PLACING '\x00'::bytea FROM 5)),
	('variant 3 (counting) with variant word 1', overlay(ck PLACING '\x03'::bytea FROM 6)),
	('variant 4 (scalable): 64 bits', overlay(ck PLACING '\x04'::bytea FROM 6)),
	('hash scheme 9', overlay(ck PLACING '\x09'::bytea FROM 7)),
	('flags 2', overlay(ck PLACING '\x02'::bytea FROM 8)),
	('f = 0', overlay(ck PLACING hv_le(0, 4) FROM 9)),
	('f = 3', overlay(ck PLACING hv_le(3, 4) FROM 9)),
	('f = 33', overlay(ck PLACING hv_le(33, 4) FROM 9)),
	('f = 2^32 - 1', overlay(ck PLACING hv_le(2::numeric ^ 32 - 1, 4) FROM 9)),
	('f = 4 (slots add up to 32 of 64 bits)', overlay(ck PLACING hv_le(4, 4) FROM 9)),
	('f = 16 (2 buckets need 16 slot bytes)', overlay(ck PLACING hv_le(16, 4) FROM 9)),
	('f = 32 (64 bits is not whole buckets)', overlay(ck PLACING hv_le(32, 4) FROM 9)),
	('stages 0', overlay(ck PLACING hv_le(0, 4) FROM 13)),
	('stages 2 (payload of 1)', overlay(ck PLACING hv_le(2, 4) FROM 13)),
	('stages 3 (more than bits / 4f = 2)', overlay(ck PLACING hv_le(3, 4) FROM 13)),
	('stages 2^32 - 1', overlay(ck PLACING hv_le(2::numeric ^ 32 - 1, 4) FROM 13)),
	('stages 2^28 (16 x S wraps 32 bits)', overlay(ck PLACING hv_le(2::numeric ^ 28, 4) FROM 13)),
	('2 stages declared as 1', overlay(ck2 PLACING hv_le(1, 4) FROM 13)),
	('bits 0', overlay(ck PLACING hv_le(0, 8) FROM 25)),
	('bits 48 (not whole buckets)', overlay(ck PLACING hv_le(48, 8) FROM 25)),
	('bits 96 (3 buckets, payload of 2)', overlay(ck PLACING hv_le(96, 8) FROM 25)),
	('bits 32 (slots add up to 64)', overlay(ck PLACING hv_le(32, 8) FROM 25)),
	('bits 2^63', overlay(ck PLACING hv_le(2::numeric ^ 63, 8) FROM 25)),
	('bits 2^64 - 32', overlay(ck PLACING hv_le(2::numeric ^ 64 - 32, 8) FROM 25)),
	('bits 8589934016, payload to match (past 1 GB)',
	 overlay(overlay(ck PLACING hv_le(8589934016, 8) FROM 25) PLACING hv_le(1073741768, 8) FROM 57)),
	('payload_bytes 20 (not a multiple of 8)', overlay(ck PLACING hv_le(20, 8) FROM 57)),
	('payload_bytes 16 (less than a stage)', overlay(ck PLACING hv_le(16, 8) FROM 57)),
	('payload_bytes 32 (room for padding, value shorter)', overlay(ck PLACING hv_le(32, 8) FROM 57)),
	('payload_bytes 40 (more than stages and padding)', overlay(ck PLACING hv_le(40, 8) FROM 57)),
	('payload_bytes 2^64 - 8', overlay(ck PLACING hv_le(2::numeric ^ 64 - 8, 8) FROM 57)),
	('target_fpr -0.0', overlay(ck PLACING '\x0000000000000080'::bytea FROM 49)),
	('target_fpr 0.01 with expected_items 0', overlay(ck PLACING '\x7b14ae47e17a843f'::bytea FROM 49)),
	('stage 0: buckets 0', overlay(ck PLACING hv_le(0, 8) FROM 65)),
	('stage 0: buckets 1 (slots add up to 32 of 64)', overlay(ck PLACING hv_le(1, 8) FROM 65)),
	('stage 0: buckets 3 (past the payload)', overlay(ck PLACING hv_le(3, 8) FROM 65)),
	('stage 0: buckets 2^56', overlay(ck PLACING hv_le(2::numeric ^ 56, 8) FROM 65)),
	('stage 0: buckets 2^61 (4 f buckets wraps 64 bits)', overlay(ck PLACING hv_le(2::numeric ^ 61, 8) FROM 65)),
	('stage 0: buckets 2^64 - 1', overlay(ck PLACING hv_le(2::numeric ^ 64 - 1, 8) FROM 65)),
	('stage 0: used 9 of 8 slots', overlay(ck PLACING hv_le(9, 8) FROM 73)),
	('stage 0: used 2^64 - 1', overlay(ck PLACING hv_le(2::numeric ^ 64 - 1, 8) FROM 73)),
	('2 stages: stage 0 used 5 of 4', overlay(ck2 PLACING hv_le(5, 8) FROM 73)),
	('2 stages: stage 0 padding bit 16', overlay(ck2 PLACING '\x01'::bytea FROM 81 + 2)),
	('2 stages: stage 0 last padding bit', overlay(ck2 PLACING '\x80'::bytea FROM 81 + 7)),
	('2 stages: stage 1 padding bit 32', overlay(ck2 PLACING '\x01'::bytea FROM 105 + 4)),
	('2 stages: stage 1 buckets 1 (slots add up to 32 of 48)', overlay(ck2 PLACING hv_le(1, 8) FROM 89)),
	('2 stages: stage 1 buckets 3 (past the payload)', overlay(ck2 PLACING hv_le(3, 8) FROM 89)),
	('2 stages: stage 1 buckets 0', overlay(ck2 PLACING hv_le(0, 8) FROM 89)),
	('2 stages: stage 1 used 9 of 8', overlay(ck2 PLACING hv_le(9, 8) FROM 97)),
	('2 stages: stage 0 buckets 2 (stage 1 cut short)', overlay(ck2 PLACING hv_le(2, 8) FROM 65)),
	('truncated by 8 bytes', substr(ck, 1, 80)),
	('2 stages, truncated by 8 bytes', substr(ck2, 1, 104)),
	('2 stages, truncated to the first stage, header unchanged', substr(ck2, 1, 88)),
	('8 trailing bytes', ck || '\x0000000000000000'::bytea),
	('a second stage record appended (header unchanged)', ck || substr(ck, 65, 24))
) AS t(what, bytes);

--
-- the bytea cast: accepted, or 22P03 (54000 for a size past 1 GB) with a
-- detail that says what is wrong
--
SELECT id, variant, what, hv_try(format('SELECT %L::bytea::bloomfilter', bytes)) AS cast
FROM hv_case ORDER BY id;

-- text input of the same bytes: 22P02 (or the cast's 54000) with the same
-- detail; nothing accepted that the cast refuses
SELECT id, substr(t, 1, 5) AS text_state,
       substr(t, 7) IS NOT DISTINCT FROM substr(c, 7) AS same_detail
FROM hv_case,
     LATERAL hv_try(format('SELECT %L::bytea::bloomfilter', bytes)) AS c,
     LATERAL hv_try(format('SELECT %L::bloomfilter', translate(encode(bytes, 'base64'), E'\n', ''))) AS t
WHERE substr(t, 1, 5) NOT IN ('22P02', 'accep') OR substr(c, 1, 5) NOT IN ('22P03', 'accep')
   OR substr(t, 7) IS DISTINCT FROM substr(c, 7)
ORDER BY id;
SELECT count(*) AS cases,
       count(*) FILTER (WHERE c = 'accepted') AS accepted,
       count(*) FILTER (WHERE substr(t, 1, 5) = '22P02' AND substr(c, 1, 5) = '22P03'
                        AND substr(t, 7) = substr(c, 7)) AS text_refused_alike,
       count(*) FILTER (WHERE c LIKE 'XX%' OR t LIKE 'XX%') AS internal_errors
FROM hv_case,
     LATERAL hv_try(format('SELECT %L::bytea::bloomfilter', bytes)) AS c,
     LATERAL hv_try(format('SELECT %L::bloomfilter', translate(encode(bytes, 'base64'), E'\n', ''))) AS t;

--
-- binary input (bloomfilter_recv), through binary COPY of a file that this
-- backend writes under /tmp (so the test needs a superuser): recv accepts
-- and refuses exactly what the cast does, with the same detail
--
CREATE TABLE hv_recv_into (f bloomfilter);
CREATE FUNCTION hv_recv(bytes bytea) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	path text := '/tmp/bloomfilter_regress_hostile_' || pg_backend_pid() || '.bin';
BEGIN
	EXECUTE format('COPY (SELECT %L::bytea) TO %L WITH (FORMAT binary)', bytes, path);
	RETURN hv_try(format('COPY hv_recv_into FROM %L WITH (FORMAT binary)', path));
END
$$;
SELECT id, r AS recv, c AS cast
FROM hv_case,
     LATERAL hv_try(format('SELECT %L::bytea::bloomfilter', bytes)) AS c,
     LATERAL hv_recv(bytes) AS r
WHERE substr(r, 7) IS DISTINCT FROM substr(c, 7)
   OR (r = 'accepted') <> (c = 'accepted')
ORDER BY id;
SELECT count(*) AS recv_accepted,
       count(*) FILTER (WHERE f::bytea IN (SELECT bytes FROM hv_case WHERE what LIKE 'valid%')) AS as_sent
FROM hv_recv_into;
DO $$
BEGIN
	EXECUTE format('COPY (SELECT 1 WHERE false) TO PROGRAM %L',
	               'rm -f /tmp/bloomfilter_regress_hostile_' || pg_backend_pid() || '.bin');
END
$$;

--
-- what is accepted works: every function on it gives a result.  member_found
-- says whether 'hello', 42 or 1 still answers present (not where a case
-- changed the bits, the slots or the number of counters)
--
SELECT h.id, h.what,
       f @> 'hello'::text OR f @> 42 OR f @> 1 AS member_found,
       (bloomfilter_info(f)).bytes = octet_length(h.bytes) AS info,
       bloomfilter_cardinality(f) >= 0 AS cardinality,
       (f || 'new'::text) @> 'new'::text AS add,
       -- a cuckoo element whose fingerprint fills both its buckets (all
       -- slots alike) cannot be stored once more: refused with 54000
       CASE WHEN hv_try(format('SELECT bloomfilter_add_all(%L::bytea::bloomfilter, ARRAY(SELECT generate_series(1, 50)))',
                               h.bytes)) LIKE '54000 %' THEN h.variant = 'cuckoo'
            ELSE bloomfilter_add_all(f, ARRAY(SELECT generate_series(1, 50))) @> 50 END AS add_all_grows,
       bloomfilter_contains_any(f, ARRAY[1, 42]) IS NOT NULL AS contains_any,
       (f | f) @> 'new'::text IS NOT NULL AS self_union,
       f::text::bloomfilter = f AS text_round_trip,
       CASE WHEN h.variant <> 'scalable' THEN bloomfilter_remove(f, 42) IS NOT NULL END AS remove
FROM hv_case AS h, LATERAL (SELECT h.bytes::bloomfilter AS f) AS s
WHERE hv_try(format('SELECT %L::bytea::bloomfilter', h.bytes)) = 'accepted'
ORDER BY h.id;

-- as psql prints them
-- ERROR:  invalid binary data for type bloomfilter
SELECT bytes::bloomfilter FROM hv_case WHERE what = 'f = 33';
-- ERROR:  invalid binary data for type bloomfilter
SELECT bytes::bloomfilter FROM hv_case WHERE what = 'stages 65';
-- ERROR:  invalid input syntax for type bloomfilter
SELECT translate(encode(bytes, 'base64'), E'\n', '')::bloomfilter FROM hv_case WHERE what = 'padding counter 20 set';

DROP TABLE hv_base, hv_case, hv_recv_into;
DROP FUNCTION hv_le(numeric, int), hv_try(text), hv_recv(bytea);
