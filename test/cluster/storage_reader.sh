#!/usr/bin/env bash
# test/cluster/storage_reader.sh - STORAGE.md is enough to read a filter.
#
# test/reader/bloomfilter_reader.py was written from STORAGE.md alone.  This test builds
# filters of the blocked and classic variants in SQL over a few thousand text, bytea and uuid
# items (hashed alike by both hash schemes), integer (int2, int4, int8) items (scheme 2 hashes
# integer elements by two fmix64 finalisers, scheme 1 by XXH3-128 of their 8 bytes: STORAGE.md
# section 5; a few filters are of scheme 1, as releases 1.0 and 1.1 built them), and numeric,
# float8, float4, interval, inet, cidr, jsonb and hstore items (scheme 2's own forms, section
# 6.3), exports f::bytea, f::text and the extension's own @> answers, and checks with the
# reader that:
#   - the header fields it parses agree with what SQL built (variant, hash scheme, bits,
#     hashes, seed, items, expected_items, target_fpr, length; text form = base64 of the same
#     bytes);
#   - every member is found, and every value that = calls equal to a member though written
#     otherwise (1.000 for 1, an int8 for an integral numeric, -0 for 0, a float4 for a float8,
#     '30 days' for '1 mon', an inet for a cidr, jsonb with other numbers' scales); for every
#     other probe the reader's answer equals SQL's @> exactly (so the reader reproduces the
#     extension bit for bit, false positives included);
#   - the canonical-bytes tables of STORAGE.md (sections 10.6 to 10.8) are what the extension
#     hashes under the schemes each is for (every type class of section 6: scalars, text-form
#     types, send forms, and arrays, records, ranges and multiranges, whose bytes the reader
#     also composes from their parts by the rules of section 6.2, and scheme 2's forms, which
#     it composes by section 6.3), and so is its table of scheme 2's integer elements (10.9,
#     hashed from the value by section 5.3);
#   - the hex dumps of its worked examples are what the extension writes; built as scheme-1
#     filters, those of text alone differ in byte 6 alone, and the blocked and classic ones
#     hold exactly the bits the reader derives from their elements, by each scheme; its text
#     forms are the base64 of examples;
#   - the reader and the extension accept and reject the same crafted headers, for the same
#     reason (STORAGE.md section 3);
#   - the text forms of filters of every variant, base64 and sparse (section 15), decode to their
#     bytes, and so do the sparse text forms STORAGE.md gives.
#
# Runs against the server the PG* environment variables point at, where the extension is
# installed (CREATE EXTENSION is done here, in a UTF-8 database of its own, named after
# $PGDATABASE when that is set, and dropped at the end).  Needs /usr/bin/python3 with the
# xxhash module (Debian: python3-xxhash).
# Prints one PASS or FAIL line; exits non-zero on failure.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

ROOT=${BF_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
PY=/usr/bin/python3
export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ in the source tree
READER_DIR=$ROOT/test/reader
# (after PGDATABASE, so that runs in different databases of one server do not collide)
DB=${PGDATABASE:+${PGDATABASE:0:40}_}bf_reader_test


if ! "$PY" -c 'import xxhash' 2>/dev/null; then
	die "$PY cannot import the xxhash module (Debian package python3-xxhash is not installed;" \
		"install it with: apt-get install python3-xxhash)"
fi

WORK=$(mktemp -d -t bf-storage-reader.XXXXXX)
cleanup() {
	rm -rf "$WORK"
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS \"$DB\"" >/dev/null 2>&1 || true
}
trap cleanup EXIT


# UTF-8 regardless of the cluster's default, so that non-ASCII text hashes as UTF-8
PGOPTIONS="-c client_min_messages=warning" q -d postgres \
	-c "DROP DATABASE IF EXISTS \"$DB\"" \
	-c "CREATE DATABASE \"$DB\" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'" ||
	die "could not create database $DB"
export PGDATABASE=$DB PGCLIENTENCODING=UTF8

# ---- 1. filters, probes and the extension's answers -----------------------------------------

{
	cat <<'SQL'
CREATE EXTENSION bloomfilter;

-- Members and strangers of every type; strangers never equal members of their own column.
-- (Integers are cast to text before ||: with the extension installed, 'literal' || integer
-- would resolve to the bloomfilter || integer operator.)
CREATE TABLE vals AS
SELECT r.role, i,
	CASE r.role WHEN 'member' THEN 'https://example.com/' ELSE 'https://example.org/' END
		|| md5(r.role || i::text) || (ARRAY['', '/ü', '/日本', '/😀', '?q=a b', '"x",y'])[i % 6 + 1]
		|| repeat('x', i % 13) AS t,
	(i * 7 - 1000 + CASE r.role WHEN 'member' THEN 0 ELSE 3 END)::smallint AS i2,
	(i * 7919 - 50000 + CASE r.role WHEN 'member' THEN 0 ELSE 1 END)::integer AS i4,
	(i::bigint * 1000003 * 1000003 * (1 - 2 * (i % 2))
		+ CASE r.role WHEN 'member' THEN 0 ELSE 1 END)::bigint AS i8,
	CASE r.role
		WHEN 'member' THEN decode(substr(md5('m' || i::text) || md5('n' || i::text), 1, 2 * (i % 32)), 'hex')
		ELSE decode(substr(md5('s' || i::text) || md5('t' || i::text), 1, 2 * (i % 32 + 1)), 'hex')
	END AS b,
	md5(r.role || ':' || i::text)::uuid AS u
FROM generate_series(1, 3000) i, (VALUES ('member'), ('stranger')) r(role);
-- one member that is the empty string, and one extreme integer of each width
UPDATE vals SET t = '', i2 = -32768, i4 = -2147483648, i8 = -9223372036854775808
	WHERE role = 'member' AND i = 1;
UPDATE vals SET i2 = 32767, i4 = 2147483647, i8 = 9223372036854775807
	WHERE role = 'member' AND i = 2;

CREATE TABLE cases (
	name text PRIMARY KEY,
	elem_type text,
	variant text,
	how text,					-- 'create' (n, p) or 'bits' (bits, hashes)
	n bigint,
	p float8,
	bits_req bigint,
	hashes_req integer,
	seed bigint,
	n_added bigint,
	f bloomfilter,
	scheme integer DEFAULT 2	-- the hash scheme it was built with
);

-- Hash scheme 2's own forms (STORAGE.md section 6.3).  A member is value_of(i) for i in 1 to
-- 3000, a stranger value_of(i + 3000) (some made equal to a member are left out below).
CREATE FUNCTION num_of(i integer) RETURNS numeric LANGUAGE sql IMMUTABLE AS $$
SELECT CASE WHEN i <= 8 THEN
		(ARRAY['NaN', 'Infinity', '-Infinity', '9223372036854775807', '-9223372036854775808',
			'9223372036854775808', '0.000', '-9223372036854775809.00'])[i]::numeric
	ELSE CASE i % 6
		WHEN 0 THEN round(i::numeric * 1000003 - 1500000000, 3)	-- integers written 1.000
		WHEN 1 THEN i::numeric / 8
		WHEN 2 THEN i::numeric * 1000000000000000000000 + 0.50	-- past int64
		WHEN 3 THEN i::numeric * 10000000000000000000		-- integers past int64
		WHEN 4 THEN -(i::numeric / 1000)
		ELSE 9223372036854775807 - i::numeric * 1000000007
	END END
$$;
CREATE FUNCTION f8_of(i integer) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
SELECT CASE WHEN i <= 8 THEN
		(ARRAY['NaN', 'Infinity', '-Infinity', '0', '1.5', '1e308', '5e-324', '-1e-310'])[i]::float8
	ELSE CASE i % 4
		WHEN 0 THEN i * 1.1::float8
		WHEN 1 THEN i::float8 / 1024
		WHEN 2 THEN -(i * 3.7e10::float8)
		ELSE 1 / i::float8
	END END
$$;
CREATE FUNCTION f4_of(i integer) RETURNS float4 LANGUAGE sql IMMUTABLE AS $$
SELECT CASE WHEN i <= 8 THEN
		(ARRAY['NaN', 'Infinity', '-Infinity', '0', '1.5', '3.4e38', '1e-45', '-1e-40'])[i]::float4
	ELSE f8_of(i)::float4 END
$$;
CREATE FUNCTION iv_of(i integer) RETURNS interval LANGUAGE sql IMMUTABLE AS $$
SELECT CASE WHEN i <= 3 THEN (ARRAY['1 mon', '-1 microsecond', '1 day 00:00:00.000001'])[i]::interval
	ELSE make_interval(months => i % 25 - 12, days => i * 7 % 61 - 30)
		+ (i::bigint * 123456789011 % 172800000000 - 86400000000) * interval '1 microsecond' END
$$;
CREATE FUNCTION inet_of(i integer) RETURNS inet LANGUAGE sql IMMUTABLE AS $$
SELECT CASE i % 3
	WHEN 0 THEN ('10.' || i / 256 % 256 || '.' || i % 256 || '.' || i * 7 % 256 || '/' || 8 + i % 25)::inet
	WHEN 1 THEN ('2001:db8::' || to_hex(i) || ':' || to_hex(i * 13 % 65536) || '/' || 32 + i % 97)::inet
	ELSE ('192.168.' || i % 256 || '.' || i / 256 % 256)::inet
END
$$;
-- scale 1 for members and strangers, 1.000 for the same values written otherwise
CREATE FUNCTION js_of(i integer, scale numeric) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
SELECT CASE i % 5
	WHEN 0 THEN jsonb_build_object('id', i * scale, 'price', i * scale / 4,
		'tags', jsonb_build_array('t' || i % 7, i % 3 = 0, NULL),
		'nested', jsonb_build_object('k' || i % 5, i * 1.5 * scale, 'ü', 'ß' || i))
	WHEN 1 THEN jsonb_build_array(i * scale, 'x' || i, jsonb_build_object('a', i * scale / 8))
	WHEN 2 THEN to_jsonb(i * 1.10 * scale)
	WHEN 3 THEN to_jsonb('s' || i || 'é')
	ELSE jsonb_build_object('a', i, 'bb', NULL, 'ccc', true, 'dd', false, 'e', '[]'::jsonb,
		'ff', '{}'::jsonb, 'big', 99999999999999999999 * i * scale, 'neg', -i * scale)
END
$$;
CREATE TABLE vals2 AS
SELECT r.role, i, num_of(j) AS n, f8_of(j) AS f8, f4_of(j) AS f4, iv_of(j) AS iv,
	CASE WHEN r.role = 'stranger' AND i % 2 = 0	-- a member's address with other bits
		THEN set_masklen(inet_of(i), (masklen(inet_of(i)) + 1) % (CASE family(inet_of(i)) WHEN 4 THEN 33 ELSE 129 END))
		ELSE inet_of(j) END AS ip,
	network(inet_of(j)) AS c, js_of(j, 1) AS j
FROM generate_series(1, 3000) i, (VALUES ('member'), ('stranger')) r(role),
	LATERAL (SELECT CASE r.role WHEN 'member' THEN i ELSE i + 3000 END) s(j);
-- strangers never equal members of their own column
UPDATE vals2 s SET n = NULL WHERE role = 'stranger' AND n IN (SELECT n FROM vals2 WHERE role = 'member');
UPDATE vals2 s SET f8 = NULL WHERE role = 'stranger' AND f8 IN (SELECT f8 FROM vals2 WHERE role = 'member');
UPDATE vals2 s SET f4 = NULL WHERE role = 'stranger' AND f4 IN (SELECT f4 FROM vals2 WHERE role = 'member');
UPDATE vals2 s SET iv = NULL WHERE role = 'stranger' AND iv IN (SELECT iv FROM vals2 WHERE role = 'member');
UPDATE vals2 s SET ip = NULL WHERE role = 'stranger' AND ip IN (SELECT ip FROM vals2 WHERE role = 'member');
UPDATE vals2 s SET c = NULL WHERE role = 'stranger' AND c IN (SELECT c FROM vals2 WHERE role = 'member');
UPDATE vals2 s SET j = NULL WHERE role = 'stranger' AND j IN (SELECT j FROM vals2 WHERE role = 'member');

-- a type of another extension, by its own hash (when hstore is there to be had)
SELECT count(*) > 0 AS have_hstore FROM pg_available_extensions WHERE name = 'hstore' \gset
\if :have_hstore
CREATE EXTENSION hstore;
CREATE TABLE vals_h AS
SELECT r.role, i, hstore(ARRAY['k' || j, 'v' || j % 7, 'n', j::text]) AS h,
	hstore(ARRAY['n', j::text, 'k' || j, 'v' || j % 7]) AS h_again	-- the same, written otherwise
FROM generate_series(1, 3000) i, (VALUES ('member'), ('stranger')) r(role),
	LATERAL (SELECT CASE r.role WHEN 'member' THEN i ELSE i + 3000 END) s(j);
\endif

-- bloomfilter_add through a plain aggregate over the || function (one copy per row)
SELECT bloomfilter_create_bits(10000, 3, 'classic')::text AS empty_text_form \gset
CREATE AGGREGATE add_text(text) (SFUNC = bloomfilter_add, STYPE = bloomfilter,
	INITCOND = :'empty_text_form');
SQL

	# type column probe-type
	types="text:t:text int2:i2:int2 int4:i4:int4 int8:i8:int8 bytea:b:bytea uuid:u:uuid"
	seeds=(0 987654321 -42 9223372036854775807 -9223372036854775808 1)
	s=0
	for spec in $types; do
		IFS=: read -r ty col _ <<<"$spec"
		for variant in blocked classic; do
			members="(SELECT array_agg($col ORDER BY i) FROM vals WHERE role = 'member')"
			seed=${seeds[s % ${#seeds[@]}]}
			s=$((s + 1))
			# sized for the members at 2 %
			echo "INSERT INTO cases SELECT '$ty/$variant/create', '$ty', '$variant', 'create', 3000, 0.02, NULL, NULL, $seed, 3000,
	bloomfilter_add_all(bloomfilter_create(3000, 0.02, '$variant', $seed), $members);"
			# crowded (many false positives); 12000 is not a multiple of 64 or 512
			seed=${seeds[s % ${#seeds[@]}]}
			s=$((s + 1))
			k=3
			[ "$variant" = blocked ] && k=5
			echo "INSERT INTO cases SELECT '$ty/$variant/bits', '$ty', '$variant', 'bits', NULL, NULL, 12000, $k, $seed, 3000,
	bloomfilter_add_all(bloomfilter_create_bits(12000, $k, '$variant', $seed), $members);"
		done
	done

	# scheme 2's own forms: table:column:type
	types2="vals2:n:numeric vals2:f8:float8 vals2:f4:float4 vals2:iv:interval vals2:ip:inet vals2:c:cidr vals2:j:jsonb vals_h:h:hstore"
	for spec in $types2; do
		IFS=: read -r tab col ty <<<"$spec"
		if [ "$ty" = hstore ]; then printf '%s\n' '\if :have_hstore'; fi
		for variant in blocked classic; do
			members="(SELECT array_agg($col ORDER BY i) FROM $tab WHERE role = 'member')"
			seed=${seeds[s % ${#seeds[@]}]}
			s=$((s + 1))
			echo "INSERT INTO cases SELECT '$ty/$variant/create', '$ty', '$variant', 'create', 3000, 0.02, NULL, NULL, $seed, 3000,
	bloomfilter_add_all(bloomfilter_create(3000, 0.02, '$variant', $seed), $members);"
			seed=${seeds[s % ${#seeds[@]}]}
			s=$((s + 1))
			k=3
			if [ "$variant" = blocked ]; then k=5; fi
			echo "INSERT INTO cases SELECT '$ty/$variant/bits', '$ty', '$variant', 'bits', NULL, NULL, 12000, $k, $seed, 3000,
	bloomfilter_add_all(bloomfilter_create_bits(12000, $k, '$variant', $seed), $members);"
		done
		if [ "$ty" = hstore ]; then printf '%s\n' '\endif'; fi
	done

	cat <<'SQL'
-- built one element at a time through bloomfilter_add (||), from a text-form initial state
INSERT INTO cases SELECT 'text/classic/add', 'text', 'classic', 'bits', NULL, NULL, 10000, 3, 0, 3000,
	(SELECT add_text(t ORDER BY i) FROM vals WHERE role = 'member');
-- sized for 100 times the members: the sparse text form
INSERT INTO cases SELECT 'text/blocked/sparse', 'text', 'blocked', 'create', 300000, 0.02, NULL, NULL, 77, 3000,
	bloomfilter_add_all(bloomfilter_create(300000, 0.02, 'blocked', 77),
		(SELECT array_agg(t ORDER BY i) FROM vals WHERE role = 'member'));
INSERT INTO cases SELECT 'int8/classic/sparse', 'int8', 'classic', 'create', 300000, 0.02, NULL, NULL, -77, 3000,
	bloomfilter_add_all(bloomfilter_create(300000, 0.02, 'classic', -77),
		(SELECT array_agg(i8 ORDER BY i) FROM vals WHERE role = 'member'));
-- a tiny classic filter: 1 bit, all padding after it
INSERT INTO cases SELECT 'int8/classic/1bit', 'int8', 'classic', 'bits', NULL, NULL, 1, 1, 5, 3000,
	bloomfilter_add_all(bloomfilter_create_bits(1, 1, 'classic', 5),
		(SELECT array_agg(i8 ORDER BY i) FROM vals WHERE role = 'member'));
-- hash scheme 1, as releases 1.0 and 1.1 built filters: the same bits for these types
INSERT INTO cases SELECT 'text/classic/scheme1', 'text', 'classic', 'bits', NULL, NULL, 12000, 3, 11, 3000,
	bloomfilter_add_all(set_byte(bloomfilter_create_bits(12000, 3, 'classic', 11)::bytea, 6, 1)::bloomfilter,
		(SELECT array_agg(t ORDER BY i) FROM vals WHERE role = 'member')), 1;
INSERT INTO cases SELECT 'int4/blocked/scheme1', 'int4', 'blocked', 'bits', NULL, NULL, 12000, 5, -11, 3000,
	bloomfilter_add_all(set_byte(bloomfilter_create_bits(12000, 5, 'blocked', -11)::bytea, 6, 1)::bloomfilter,
		(SELECT array_agg(i4 ORDER BY i) FROM vals WHERE role = 'member')), 1;

-- the aggregates and the union, where this version has them (in parallel when the planner
-- agrees: the combine function must give the same bytes)
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SQL

	for spec in $types; do
		IFS=: read -r ty col _ <<<"$spec"
		sqltype=$ty
		[ "$ty" = int2 ] && sqltype=smallint
		[ "$ty" = int4 ] && sqltype=integer
		[ "$ty" = int8 ] && sqltype=bigint
		cat <<SQL
SELECT to_regprocedure('bloomfilter_agg($sqltype, bigint, double precision, text)') IS NOT NULL AS have_agg \\gset
\\if :have_agg
INSERT INTO cases SELECT '$ty/blocked/agg', '$ty', 'blocked', 'create', 3000, 0.02, NULL, NULL, 0, 3000,
	(SELECT bloomfilter_agg($col, 3000, 0.02, 'blocked') FROM vals WHERE role = 'member');
INSERT INTO cases SELECT '$ty/classic/agg', '$ty', 'classic', 'create', 3000, 0.02, NULL, NULL, 0, 3000,
	(SELECT bloomfilter_agg($col, 3000, 0.02, 'classic') FROM vals WHERE role = 'member');
\\endif
SQL
	done

	cat <<'SQL'
RESET ALL;
SELECT to_regprocedure('bloomfilter_union(bloomfilter, bloomfilter)') IS NOT NULL AS have_union \gset
\if :have_union
-- items of a union are not checked (STORAGE.md: informational)
INSERT INTO cases SELECT 'uuid/' || variant || '/union', 'uuid', variant, 'create', 3000, 0.02, NULL, NULL, -3, NULL,
	bloomfilter_union(
		bloomfilter_add_all(bloomfilter_create(3000, 0.02, variant, -3),
			(SELECT array_agg(u) FROM vals WHERE role = 'member' AND i % 2 = 0)),
		bloomfilter_add_all(bloomfilter_create(3000, 0.02, variant, -3),
			(SELECT array_agg(u) FROM vals WHERE role = 'member' AND i % 2 = 1)))
FROM (VALUES ('blocked'), ('classic')) v(variant);
\endif

-- what SQL says about the sizes (bloomfilter_info is used when this version has it)
\copy (SELECT name, elem_type, variant, how, n, p, bits_req, hashes_req, seed, n_added, encode(f::bytea, 'hex'), f::text, octet_length(f::bytea), CASE how WHEN 'create' THEN bloomfilter_optimal_bits(n, p, variant) END, CASE WHEN how = 'create' AND variant = 'classic' THEN bloomfilter_optimal_hashes(bloomfilter_optimal_bits(n, p, variant), n) END, scheme, bloomfilter_hash_scheme(f), NULL FROM cases ORDER BY name) TO 'WORK/filters.csv' WITH (FORMAT csv)
SQL

	# probes: each case against the values of its own column; integer cases also against
	# the other integer widths (the same value hashes alike at any width, in either scheme)
	for spec in $types; do
		IFS=: read -r ty col ptype <<<"$spec"
		case $ty in
		bytea) repr="encode(v.b, 'hex')" ;;
		*) repr="v.$col::text" ;;
		esac
		echo "\\copy (SELECT c.name, v.role, '$ptype', $repr, c.f @> v.$col FROM cases c, vals v WHERE c.elem_type = '$ty' ORDER BY c.name, v.role, v.i) TO 'WORK/probes-$ty.csv' WITH (FORMAT csv)"
	done
	for ty in int2 int4 int8; do
		for spec in "i2:int2:smallint" "i4:int4:integer" "i8:int8:bigint"; do
			IFS=: read -r col ptype sqltype <<<"$spec"
			[ "$ptype" = "$ty" ] && continue
			echo "\\copy (SELECT c.name, 'other', '$ptype', v.$col::text, c.f @> v.$col FROM cases c, vals v WHERE c.elem_type = '$ty' ORDER BY c.name, v.role, v.i) TO 'WORK/probes-$ty-$ptype.csv' WITH (FORMAT csv)"
		done
		# members again, widened or narrowed where they fit
		for spec in "i2:int2:integer" "i2:int2:bigint" "i4:int4:bigint" "i4:int4:smallint"; do
			IFS=: read -r col from sqltype <<<"$spec"
			[ "$from" = "$ty" ] || continue
			echo "\\copy (SELECT c.name, 'member', '$from', v.$col::text, c.f @> v.$col::$sqltype FROM cases c, vals v WHERE c.elem_type = '$ty' AND v.role = 'member' AND v.$col BETWEEN -32768 AND 32767 ORDER BY c.name, v.i) TO 'WORK/probes-$ty-as-$sqltype.csv' WITH (FORMAT csv)"
		done
	done

	# scheme 2's forms: members and strangers (float4, float8 and interval as the hex of their
	# send form: their exact fields)
	probe2() { # table column type probe-type repr
		echo "\\copy (SELECT c.name, v.role, '$4', $5, c.f @> v.$2 FROM cases c, $1 v WHERE c.elem_type = '$3' AND v.$2 IS NOT NULL ORDER BY c.name, v.role, v.i) TO 'WORK/probes-$3.csv' WITH (FORMAT csv)"
	}
	# values that = calls equal to a member (COND says so in SQL), written otherwise: found
	equal() { # table type tag probe-type value repr cond
		echo "\\copy (SELECT c.name, 'equal', '$4', $6, c.f @> $5 FROM cases c, $1 v WHERE c.elem_type = '$2' AND v.role = 'member' AND ($7) ORDER BY c.name, v.i) TO 'WORK/probes-$2-equal-$3.csv' WITH (FORMAT csv)"
	}
	probe2 vals2 n numeric numeric "v.n::text"
	equal vals2 numeric scale numeric "v.n * 1.000" "(v.n * 1.000)::text" "v.n * 1.000 = v.n"
	equal vals2 numeric int8 int8 "v.n::bigint" "v.n::bigint::text" \
		"v.n = trunc(v.n) AND v.n BETWEEN -9223372036854775808 AND 9223372036854775807"
	equal vals2 numeric int4 int4 "v.n::integer" "v.n::integer::text" \
		"v.n = trunc(v.n) AND v.n BETWEEN -2147483648 AND 2147483647"
	probe2 vals2 f8 float8 float8 "encode(float8send(v.f8), 'hex')"
	z8="(CASE WHEN v.f8 = 0 THEN '-0'::float8 ELSE 'Infinity'::float8 - 'Infinity'::float8 END)"
	equal vals2 float8 zero-nan float8 "$z8" "encode(float8send($z8), 'hex')" "v.f8 = 0 OR v.f8 = 'NaN'"
	equal vals2 float8 float4 float4 "v.f8::float4" "encode(float4send(v.f8::float4), 'hex')" \
		"CASE WHEN v.f8 = 'NaN' OR v.f8 = 0 OR abs(v.f8) = 'Infinity' OR abs(v.f8) BETWEEN 1.2e-38 AND 3.4e38 THEN v.f8::float4 = v.f8 ELSE false END"
	probe2 vals2 f4 float4 float4 "encode(float4send(v.f4), 'hex')"
	z4="(CASE WHEN v.f4 = 0 THEN '-0'::float4 ELSE 'Infinity'::float4 - 'Infinity'::float4 END)"
	equal vals2 float4 zero-nan float4 "$z4" "encode(float4send($z4), 'hex')" "v.f4 = 0 OR v.f4 = 'NaN'"
	equal vals2 float4 float8 float8 "v.f4::float8" "encode(float8send(v.f4::float8), 'hex')" "v.f4::float8 = v.f4"
	probe2 vals2 iv interval interval "encode(interval_send(v.iv), 'hex')"
	for e in "justify justify_interval(v.iv)" "hours justify_hours(v.iv)" \
		"days (v.iv + interval '1 mon' - interval '30 days')"; do
		read -r tag value <<<"$e"
		equal vals2 interval "$tag" interval "$value" "encode(interval_send($value), 'hex')" "$value = v.iv"
	done
	probe2 vals2 ip inet inet "v.ip::text"
	equal vals2 inet cidr cidr "network(v.ip)" "network(v.ip)::text" "network(v.ip) = v.ip"
	probe2 vals2 c cidr cidr "v.c::text"
	equal vals2 cidr inet inet "v.c::inet" "v.c::inet::text" "v.c::inet = v.c"
	probe2 vals2 j jsonb jsonb "v.j::text"
	equal vals2 jsonb scale jsonb "js_of(v.i, 1.000)" "js_of(v.i, 1.000)::text" "js_of(v.i, 1.000) = v.j"
	printf '%s\n' '\if :have_hstore'
	probe2 vals_h h hstore typehash "hstore_hash_extended(v.h, 0)::text"
	equal vals_h hstore order typehash "v.h_again" "hstore_hash_extended(v.h_again, 0)::text" "v.h_again = v.h"
	printf '%s\n' '\endif'

	# the text forms of every variant, sparse (few items for their size) and base64 (full)
	cat <<'SQL'
\copy (SELECT v || '/' || fill, f::text, encode(f::bytea, 'hex') FROM unnest(ARRAY['blocked', 'classic', 'counting', 'scalable', 'cuckoo']) v, LATERAL (VALUES ('empty', bloomfilter_create(20000, 0.01, v)), ('few', bloomfilter_add_all(bloomfilter_create(20000, 0.01, v, 3), ARRAY(SELECT md5(i::text) FROM generate_series(1, 50) i))), ('full', bloomfilter_add_all(bloomfilter_create(500, 0.01, v, -3), ARRAY(SELECT i FROM generate_series(1, 500) i))), ('grown', bloomfilter_add_all(bloomfilter_create(50, 0.01, v), ARRAY(SELECT i FROM generate_series(1, 3000) i)))) c(fill, f)) TO 'WORK/texts.csv' WITH (FORMAT csv)
SQL

	# valid bases for the crafted-header checks
	cat <<'SQL'
\copy (SELECT 'classic 200', encode(bloomfilter_add_all(bloomfilter_create_bits(200, 3, 'classic', 7), ARRAY[1, 2, 3, 4, 5])::bytea, 'hex') UNION ALL SELECT 'blocked 1024', encode(bloomfilter_add_all(bloomfilter_create_bits(1024, 4, 'blocked', -7), ARRAY['a', 'b', 'c'])::bytea, 'hex') UNION ALL SELECT 'classic 200 scheme 1', encode(bloomfilter_add_all(set_byte(bloomfilter_create_bits(200, 3, 'classic', 7)::bytea, 6, 1)::bloomfilter, ARRAY[1, 2, 3, 4, 5])::bytea, 'hex')) TO 'WORK/bases.csv' WITH (FORMAT csv)
SQL
} | sed "s|WORK/|$WORK/|g" >"$WORK/build.sql"

q -f "$WORK/build.sql" || die "building and exporting the filters failed (see above)"
cat "$WORK"/probes-*.csv >"$WORK/probes.csv"

# bloomfilter_info, when this version has it: fill the last column of filters.csv
if [ "$(q -At -c "SELECT to_regproc('bloomfilter_info') IS NOT NULL")" = t ]; then
	q -c "\\copy (SELECT name, to_jsonb(bloomfilter_info(f))::text FROM cases ORDER BY name) TO '$WORK/info.csv' WITH (FORMAT csv)" ||
		die "bloomfilter_info failed"
	"$PY" - "$WORK" <<'PY' || die "could not merge bloomfilter_info"
import csv, sys
csv.field_size_limit(1 << 30)
w = sys.argv[1]
info = dict(csv.reader(open(w + "/info.csv", newline="")))
rows = list(csv.reader(open(w + "/filters.csv", newline="")))
with open(w + "/filters.csv", "w", newline="") as fh:
    out = csv.writer(fh)
    for r in rows:
        r[-1] = info.get(r[0], "")
        out.writerow(r)
PY
fi

# ---- 2. STORAGE.md's canonical-bytes vectors and worked examples ----------------------------

"$PY" "$READER_DIR/check_storage.py" vectors-sql "$ROOT/STORAGE.md" "$WORK" ||
	die "could not read the canonical-vectors tables of STORAGE.md"
q -f "$WORK/vectors.sql" || die "adding STORAGE.md's canonical-vector elements failed"
"$PY" "$READER_DIR/check_storage.py" examples-sql "$ROOT/STORAGE.md" "$WORK" ||
	die "could not read the worked examples of STORAGE.md"
q -f "$WORK/examples.sql" || die "running the queries of STORAGE.md's worked examples failed"

# ---- 3. crafted headers: accepted or rejected, and why ---------------------------------------

"$PY" "$READER_DIR/check_storage.py" mutations "$WORK" || die "could not craft headers"
q <<SQL || die "validating the crafted headers failed"
CREATE TABLE mutations (label text, hex text);
\\copy mutations FROM '$WORK/mutations.csv' WITH (FORMAT csv, FORCE_NOT_NULL (hex))
CREATE FUNCTION try_cast(h text) RETURNS text LANGUAGE plpgsql AS \$\$
DECLARE
	detail text;
BEGIN
	PERFORM decode(h, 'hex')::bloomfilter;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
	RETURN coalesce(nullif(detail, ''), SQLERRM);
END
\$\$;
\\copy (SELECT label, try_cast(hex) FROM mutations) TO '$WORK/validation.csv' WITH (FORMAT csv)
SQL

# ---- 4. compare ------------------------------------------------------------------------------

echo "storage_reader: checking the extension's bytes with test/reader/bloomfilter_reader.py"
if "$PY" "$READER_DIR/check_storage.py" check "$ROOT/STORAGE.md" "$WORK"; then
	echo "PASS storage_reader: the reader written from STORAGE.md agrees with the extension bit for bit"
else
	die "the reader written from STORAGE.md disagrees with the extension (MISMATCH lines above)"
fi
