#!/usr/bin/env bash
# test/cluster/dump_restore.sh - filters survive pg_dump / pg_restore and COPY byte for byte.
#
# Builds, in $PGDATABASE, a table of filters of every variant in every storage form that
# matters to a dump: empty and filled, seeds 0 and -1, a counting filter with saturated
# counters and one after removals, scalable and cuckoo filters that grew to several stages
# (and a cuckoo union that chained stages), large ones of about 2 MB stored out of line
# (TOASTed: filled ones as they are, empty ones compressed: the column is set to STORAGE
# EXTENDED), tiny ones stored inline with a short varlena header, and a NULL; next to it a
# table of elements of every element type (text, bytea, smallint, integer, bigint, uuid, and
# numeric, date, jsonb, inet through the anyelement fallback) and filters built from each of
# its columns in every variant (in a column of the type's own storage), of hash scheme 2 and
# of hash scheme 1 (as releases 1.0 and 1.1 built them).
#
# Then elements of every other type class (STORAGE.md section 6): an enum with a non-ASCII
# label, a domain, timestamps, arrays of each (multi-dimensional, non-default lower bounds,
# NULLs), composites holding enums and arrays, nested composites, anonymous records, ranges
# over integers and text, multiranges, jsonb and tsvector with non-ASCII text; a filter per
# column; a table whose CHECK constraint is  f @> ms  over  ms mood[]  and one whose stored
# generated column is  f @> r  over a composite.  Their canonical bytes embed no type OID and
# no client encoding, so in every copy each element is found, the constrained table restores
# every row and the generated column is true in every row.
#
# Then checks that every filter comes back with the same bytes (md5 and length of
# f::bytea, and md5 of the text form, row by row) after
#   1. pg_dump -Fc, then pg_restore -j 2 into a new database;
#   2. pg_dump in plain format with -E LATIN1 (the restoring session's client_encoding),
#      replayed by psql into a new database;
#   3. COPY ... TO / FROM a file in binary format (server side: bloomfilter_send / _recv);
#   4. COPY in text format (server side) and in CSV format through psql's \copy;
# and that, in every copy, each element is still found in the filters built from its
# column (no false negatives) and bloomfilter_info reads every filter.
#
# Run by scripts/server-tests.sh (PGDATABASE a fresh database, BF_TMPDIR a directory the
# server can write to); by hand, inside pg_virtualenv:
#     createdb x; PGDATABASE=x BF_TMPDIR=/tmp bash test/cluster/dump_restore.sh
# scripts/cross-version.sh runs it with BF_CROSS_EXPORT=DIR (build the source, write its
# pg_dump -Fc and fingerprint to DIR, stop) on one PostgreSQL version and BF_CROSS_IMPORT=DIR
# (restore that dump as the source, require the same fingerprint, then the same checks of
# elements and bloomfilter_info, stop) on another.
# Drops the databases it creates.  Prints one PASS or FAIL line; exits non-zero on failure.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

: "${PGDATABASE:?set PGDATABASE to an empty database}"
tmp=${BF_TMPDIR:-/tmp}
src=$PGDATABASE
dst_custom="bf_dr_custom_$$"
dst_plain="bf_dr_plain_$$"
work=$(mktemp -d -t bf-dump-restore.XXXXXX)
# server-side files: in BF_TMPDIR, which the server can write; removed at the end
srvfiles=("$tmp/bf_dr_$$.bin" "$tmp/bf_dr_$$.txt")

export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"

cleanup() {
	q -d postgres -c "DROP DATABASE IF EXISTS $dst_custom" -c "DROP DATABASE IF EXISTS $dst_plain" \
		>/dev/null 2>&1 || true
	rm -rf "$work"
	rm -f "${srvfiles[@]}" 2>/dev/null || true
}
trap cleanup EXIT


t0=$EPOCHREALTIME

# ---- the source database ----------------------------------------------------------------------

if [ -z "${BF_CROSS_IMPORT:-}" ]; then
q -d "$src" <<'SQL'
CREATE EXTENSION bloomfilter;

-- elements of every element type; ids 1..2000, a few NULLs
CREATE TABLE elems (
	id int PRIMARY KEY,
	t text, b bytea, s smallint, i integer, l bigint, u uuid,
	n numeric, d date, j jsonb, a inet
);
INSERT INTO elems
SELECT g,
       CASE WHEN g % 97 = 0 THEN NULL ELSE 'item ' || md5(g::text) END,
       decode(md5(g::text), 'hex'),
       (g - 1000)::smallint,
       g * 7919,
       g::bigint * 1000000007,
       md5('u' || g)::uuid,
       g / 7.0,
       date '2000-01-01' + g,
       jsonb_build_object('k', g, 'v', md5(g::text)),
       ('10.0.' || (g / 256) || '.' || (g % 256))::inet
FROM generate_series(1, 2000) AS g;

CREATE TABLE filters (id serial PRIMARY KEY, what text NOT NULL, f bloomfilter);
-- whatever the type's default, this column may compress (the dump keeps the setting)
ALTER TABLE filters ALTER COLUMN f SET STORAGE EXTENDED;

-- every variant, empty and filled, in the forms that matter to a dump
INSERT INTO filters (what, f) VALUES
	('blocked, empty', bloomfilter_create(1000, 0.01)),
	('blocked, seed -1, filled', bloomfilter_add_all(bloomfilter_create(1000, 0.01, 'blocked', -1),
	                                                 ARRAY(SELECT generate_series(1, 1000)))),
	('classic, empty, bits not a multiple of 64', bloomfilter_create_bits(1000, 7, 'classic')),
	('classic, filled', bloomfilter_add_all(bloomfilter_create(1000, 0.001, 'classic'),
	                                        ARRAY(SELECT md5(g::text) FROM generate_series(1, 1000) g))),
	('counting, empty', bloomfilter_create(1000, 0.01, 'counting')),
	('counting, saturated counters', bloomfilter_add_all(bloomfilter_create(100, 0.01, 'counting'),
	                                   ARRAY(SELECT 'again'::text FROM generate_series(1, 20)) ||
	                                   ARRAY(SELECT g::text FROM generate_series(1, 100) g))),
	('counting, after removals', bloomfilter_remove(bloomfilter_remove(
	                                 bloomfilter_add_all(bloomfilter_create(100, 0.01, 'counting'),
	                                                     ARRAY[1, 2, 3, 4, 5]), 2), 4)),
	('scalable, one stage', bloomfilter_create(100, 0.01, 'scalable') || 'one'::text),
	('scalable, grown', bloomfilter_add_all(bloomfilter_create(100, 0.01, 'scalable'),
	                                        ARRAY(SELECT generate_series(1, 5000)))),
	('cuckoo, empty', bloomfilter_create(1000, 0.01, 'cuckoo')),
	('cuckoo, grown', bloomfilter_add_all(bloomfilter_create(100, 0.01, 'cuckoo'),
	                                      ARRAY(SELECT generate_series(1, 5000)))),
	('cuckoo, one element 8 times (all its buckets hold)', bloomfilter_add_all(bloomfilter_create(100, 0.01, 'cuckoo'),
	                                   ARRAY(SELECT 'x'::text FROM generate_series(1, 8)))),
	('cuckoo, after removals', bloomfilter_remove(bloomfilter_add_all(
	                               bloomfilter_create_bits(64, 8, 'cuckoo'), ARRAY[1, 2, 3]), 2)),
	('cuckoo, union chaining stages', bloomfilter_create_bits(64, 8, 'cuckoo') || 1
	                                  | bloomfilter_create_bits(1024, 8, 'cuckoo') || 2),
	-- tiny: stored inline, with a 1-byte varlena header on disk
	('tiny classic, 64 bits', bloomfilter_create_bits(64, 3, 'classic')),
	('tiny classic with two items', bloomfilter_create_bits(64, 3, 'classic') || 'a' || 'b'),
	('tiny blocked', bloomfilter_create_bits(512, 3, 'blocked') || 42),
	('tiny counting', bloomfilter_create_bits(20, 3, 'counting') || 'hello'::text || 42),
	('tiny cuckoo', bloomfilter_create_bits(16, 4, 'cuckoo') || 5),
	-- large: about 2 MB, stored out of line (filled: as is; empty: compressed)
	('large blocked, filled', bloomfilter_add_all(bloomfilter_create(1600000, 0.01),
	                                              ARRAY(SELECT generate_series(1, 1600000)))),
	('large blocked, empty', bloomfilter_create(1600000, 0.01)),
	('large classic, half filled', bloomfilter_add_all(bloomfilter_create(1600000, 0.01, 'classic'),
	                                                   ARRAY(SELECT generate_series(1, 800000)))),
	('large counting, filled', bloomfilter_add_all(bloomfilter_create(400000, 0.01, 'counting'),
	                                               ARRAY(SELECT generate_series(1, 400000)))),
	('large cuckoo, filled', bloomfilter_add_all(bloomfilter_create(1500000, 0.01, 'cuckoo'),
	                                             ARRAY(SELECT generate_series(1, 1500000)))),
	('NULL', NULL);
-- a large scalable filter, grown by the count-free aggregate (first stage 16384 items)
INSERT INTO filters (what, f)
SELECT 'large scalable, grown by bloomfilter_agg', bloomfilter_agg(g) FROM generate_series(1, 600000) g;

-- filters built from each element column, in every variant
CREATE TABLE col_filters (col text, variant text, f bloomfilter, PRIMARY KEY (col, variant));
INSERT INTO col_filters
SELECT c.col, v.variant,
       CASE c.col
       WHEN 't' THEN (SELECT bloomfilter_agg(t, 2000, 0.01, v.variant) FROM elems)
       WHEN 'b' THEN (SELECT bloomfilter_agg(b, 2000, 0.01, v.variant) FROM elems)
       WHEN 's' THEN (SELECT bloomfilter_agg(s, 2000, 0.01, v.variant) FROM elems)
       WHEN 'i' THEN (SELECT bloomfilter_agg(i, 2000, 0.01, v.variant) FROM elems)
       WHEN 'l' THEN (SELECT bloomfilter_agg(l, 2000, 0.01, v.variant) FROM elems)
       WHEN 'u' THEN (SELECT bloomfilter_agg(u, 2000, 0.01, v.variant) FROM elems)
       WHEN 'n' THEN (SELECT bloomfilter_agg(n, 2000, 0.01, v.variant) FROM elems)
       WHEN 'd' THEN (SELECT bloomfilter_agg(d, 2000, 0.01, v.variant) FROM elems)
       WHEN 'j' THEN (SELECT bloomfilter_agg(j, 2000, 0.01, v.variant) FROM elems)
       WHEN 'a' THEN (SELECT bloomfilter_agg(a, 2000, 0.01, v.variant) FROM elems)
       END
FROM unnest('{t,b,s,i,l,u,n,d,j,a}'::text[]) AS c(col),
     unnest('{blocked,classic,counting,scalable,cuckoo}'::text[]) AS v(variant);
-- the same of hash scheme 1, as releases 1.0 and 1.1 built them (a scheme-1 header: what
-- sql/hash_schemes.sql checks gives their bytes)
INSERT INTO col_filters
SELECT c.col, v.variant || ' scheme 1',
       CASE c.col
       WHEN 't' THEN (SELECT bloomfilter_add_all(o.f, array_agg(t)) FROM elems)
       WHEN 'b' THEN (SELECT bloomfilter_add_all(o.f, array_agg(b)) FROM elems)
       WHEN 's' THEN (SELECT bloomfilter_add_all(o.f, array_agg(s)) FROM elems)
       WHEN 'i' THEN (SELECT bloomfilter_add_all(o.f, array_agg(i)) FROM elems)
       WHEN 'l' THEN (SELECT bloomfilter_add_all(o.f, array_agg(l)) FROM elems)
       WHEN 'u' THEN (SELECT bloomfilter_add_all(o.f, array_agg(u)) FROM elems)
       WHEN 'n' THEN (SELECT bloomfilter_add_all(o.f, array_agg(n)) FROM elems)
       WHEN 'd' THEN (SELECT bloomfilter_add_all(o.f, array_agg(d)) FROM elems)
       WHEN 'j' THEN (SELECT bloomfilter_add_all(o.f, array_agg(j)) FROM elems)
       WHEN 'a' THEN (SELECT bloomfilter_add_all(o.f, array_agg(a)) FROM elems)
       END
FROM unnest('{t,b,s,i,l,u,n,d,j,a}'::text[]) AS c(col),
     unnest('{blocked,classic,counting,scalable,cuckoo}'::text[]) AS v(variant),
     LATERAL (SELECT set_byte(bloomfilter_create(2000, 0.01, v.variant)::bytea, 6, 1)::bloomfilter) AS o(f);
SQL

# elements of every other type class, and filters of them; only characters LATIN1 has
q -d "$src" <<'SQL'
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy', U&'caf\00e9');
CREATE DOMAIN posint AS integer CHECK (VALUE > 0);
CREATE TYPE pair AS (n integer, t text, m mood);
CREATE TYPE nest AS (p pair, ms mood[], ds posint[]);
CREATE TYPE textrange AS RANGE (subtype = text, collation = "C");

CREATE TABLE typed_elems AS
SELECT g AS id,
       g::numeric / 3 AS num,
       timestamptz '2000-01-01 00:00:00+00' + g * interval '1 hour 1 second' AS tstz,
       timestamp '2000-01-01' + g * interval '1 minute' AS ts,
       (enum_range(NULL::mood))[g % 4 + 1] AS m,
       g::posint AS d,
       ARRAY['t' || g, U&'caf\00e9 ' || g, NULL] AS ta,
       ARRAY[decode(md5(g::text), 'hex'), NULL] AS ba,
       ARRAY[md5('u' || g)::uuid] AS ua,
       ARRAY[g / 7.0, NULL, -g] AS na,
       ARRAY[timestamptz '2020-02-29 12:00:00+00' + g * interval '1 day'] AS tsa,
       ARRAY[(enum_range(NULL::mood))[g % 4 + 1], U&'caf\00e9'::mood] AS ms,
       ARRAY[g, g + 1]::posint[] AS ds,
       ('[0:1][-1:1]={{' || g || ',NULL,' || -g || '},{1,2,' || g * 2 || '}}')::int[] AS md,
       ROW(g, U&'cr\00e8me ' || g, (enum_range(NULL::mood))[g % 4 + 1])::pair AS r,
       ROW(ROW(g, 'x', 'ok')::pair, ARRAY[U&'caf\00e9'::mood, NULL], ARRAY[g]::posint[])::nest AS nr,
       int4range(g, g + 10) AS rg,
       textrange('a' || g, U&'\00fcber' || g) AS trg,
       int8multirange(int8range(g, g + 1), int8range(g + 5, NULL)) AS mr,
       jsonb_build_object(U&'cl\00e9', g, 'v', ARRAY[g, NULL]) AS j,
       to_tsvector('simple', U&'caf\00e9 cr\00e8me br\00fbl\00e9e ' || g) AS tv
FROM generate_series(1, 2000) AS g;

CREATE TABLE typed_filters (col text PRIMARY KEY, f bloomfilter);
INSERT INTO typed_filters
SELECT 'num', bloomfilter_agg(num, 2000, 0.01) FROM typed_elems UNION ALL
SELECT 'tstz', bloomfilter_agg(tstz, 2000, 0.01) FROM typed_elems UNION ALL
SELECT 'ts', bloomfilter_agg(ts, 2000, 0.01) FROM typed_elems UNION ALL
SELECT 'm', bloomfilter_agg(m, 2000, 0.01) FROM typed_elems UNION ALL
SELECT 'd', bloomfilter_agg(d, 2000, 0.01) FROM typed_elems UNION ALL
SELECT 'ta', bloomfilter_agg(ta, 2000, 0.01) FROM typed_elems UNION ALL
SELECT 'ba', bloomfilter_agg(ba, 2000, 0.01) FROM typed_elems UNION ALL
SELECT 'ua', bloomfilter_agg(ua, 2000, 0.01) FROM typed_elems UNION ALL
SELECT 'na', bloomfilter_agg(na, 2000, 0.01) FROM typed_elems UNION ALL
SELECT 'tsa', bloomfilter_agg(tsa, 2000, 0.01) FROM typed_elems UNION ALL
SELECT 'ms', bloomfilter_agg(ms, 2000, 0.01) FROM typed_elems UNION ALL
SELECT 'ds', bloomfilter_agg(ds, 2000, 0.01) FROM typed_elems UNION ALL
SELECT 'md', bloomfilter_agg(md, 2000, 0.01) FROM typed_elems UNION ALL
SELECT 'r', bloomfilter_agg(r, 2000, 0.01) FROM typed_elems UNION ALL
SELECT 'nr', bloomfilter_agg(nr, 2000, 0.01) FROM typed_elems UNION ALL
SELECT 'anon', bloomfilter_agg(ROW(id, ms, ROW(r, ta)), 2000, 0.01) FROM typed_elems UNION ALL
SELECT 'rg', bloomfilter_agg(rg, 2000, 0.01) FROM typed_elems UNION ALL
SELECT 'trg', bloomfilter_agg(trg, 2000, 0.01) FROM typed_elems UNION ALL
SELECT 'mr', bloomfilter_agg(mr, 2000, 0.01) FROM typed_elems UNION ALL
SELECT 'j', bloomfilter_agg(j, 2000, 0.01) FROM typed_elems UNION ALL
SELECT 'tv', bloomfilter_agg(tv, 2000, 0.01) FROM typed_elems;

-- a filter in each row that must hold the row's own enum array, and a stored generated
-- column that asks whether the row's filter holds its composite
CREATE TABLE checked (id int PRIMARY KEY, ms mood[], f bloomfilter, CHECK (f @> ms));
INSERT INTO checked SELECT id, ms, bloomfilter_create(10, 0.01) || ms FROM typed_elems WHERE id <= 200;
CREATE TABLE generated (id int PRIMARY KEY, r pair, f bloomfilter,
                        found boolean GENERATED ALWAYS AS (f @> r) STORED);
INSERT INTO generated (id, r, f) SELECT id, r, bloomfilter_create(10, 0.01) || r FROM typed_elems WHERE id <= 200;
SQL
else
	# a dump made by another PostgreSQL version (scripts/cross-version.sh) is the source
	"$bindir/pg_restore" --exit-on-error -d "$src" "$BF_CROSS_IMPORT/dump.custom"
fi

# one line per filter: table, key, length, md5 of the bytes, md5 of the text form
fingerprint() { # database [table suffix]
	local sfx=${2:-}
	q -d "$1" -At <<SQL
SELECT 'filters', id, what, octet_length(f::bytea), md5(f::bytea), md5(f::text)
FROM filters$sfx ORDER BY id;
SELECT 'col_filters', col || '/' || variant, octet_length(f::bytea), md5(f::bytea), md5(f::text)
FROM col_filters$sfx ORDER BY col, variant;
SQL
	[ -n "$sfx" ] || q -d "$1" -At -c "SELECT 'typed_filters', col, octet_length(f::bytea), md5(f::bytea) FROM typed_filters ORDER BY col"
}

# every element found in the filters of its column; bloomfilter_info reads every filter.
# Prints the number of false negatives, then the number of filters info could read.
semantics() { # database [table suffix]
	local sfx=${2:-}
	q -d "$1" -At <<SQL
SELECT count(*) FILTER (WHERE NOT found) FROM (
	SELECT CASE cf.col
	       WHEN 't' THEN e.t IS NULL OR cf.f @> e.t
	       WHEN 'b' THEN cf.f @> e.b
	       WHEN 's' THEN cf.f @> e.s
	       WHEN 'i' THEN cf.f @> e.i
	       WHEN 'l' THEN cf.f @> e.l
	       WHEN 'u' THEN cf.f @> e.u
	       WHEN 'n' THEN cf.f @> e.n
	       WHEN 'd' THEN cf.f @> e.d
	       WHEN 'j' THEN cf.f @> e.j
	       WHEN 'a' THEN cf.f @> e.a
	       END AS found
	FROM col_filters$sfx cf, elems e) s;
SELECT (SELECT count(*) FROM filters$sfx, bloomfilter_info(f) i WHERE i.bytes = octet_length(f::bytea))
     + (SELECT count(*) FROM col_filters$sfx, bloomfilter_info(f) i WHERE i.bytes = octet_length(f::bytea));
SQL
}

# elements of the other type classes: one line per column, 'column false-negatives
# probed'; then 'checked rows', then 'generated rows-true rows'
typed_semantics() { # database
	q -d "$1" -At -F ' ' <<'SQL'
SELECT tf.col, count(*) FILTER (WHERE NOT CASE tf.col
	WHEN 'num' THEN tf.f @> e.num WHEN 'tstz' THEN tf.f @> e.tstz WHEN 'ts' THEN tf.f @> e.ts
	WHEN 'm' THEN tf.f @> e.m WHEN 'd' THEN tf.f @> e.d WHEN 'ta' THEN tf.f @> e.ta
	WHEN 'ba' THEN tf.f @> e.ba WHEN 'ua' THEN tf.f @> e.ua WHEN 'na' THEN tf.f @> e.na
	WHEN 'tsa' THEN tf.f @> e.tsa WHEN 'ms' THEN tf.f @> e.ms WHEN 'ds' THEN tf.f @> e.ds
	WHEN 'md' THEN tf.f @> e.md WHEN 'r' THEN tf.f @> e.r WHEN 'nr' THEN tf.f @> e.nr
	WHEN 'anon' THEN tf.f @> ROW(e.id, e.ms, ROW(e.r, e.ta))
	WHEN 'rg' THEN tf.f @> e.rg WHEN 'trg' THEN tf.f @> e.trg WHEN 'mr' THEN tf.f @> e.mr
	WHEN 'j' THEN tf.f @> e.j WHEN 'tv' THEN tf.f @> e.tv END), count(*)
FROM typed_filters tf, typed_elems e GROUP BY tf.col ORDER BY tf.col;
SELECT 'checked', count(*) FROM checked;
SELECT 'generated', count(*), count(*) FILTER (WHERE found) FROM generated;
SQL
}
typed_check() { # label, database
	local label=$1 out
	out=$work/typed_$(printf '%s' "$label" | tr -c 'A-Za-z0-9' '_').txt
	typed_semantics "$2" >"$out" 2>&1 || true
	if awk '$1 == "checked" { c = $2; next }
	        $1 == "generated" { g = $2 " " $3; next }
	        NF == 3 { n++; if ($2 != 0 || $3 != 2000) bad++ }
	        END { exit !(n == 21 && !bad && c == 200 && g == "200 200") }' "$out"; then
		echo "ok:   $label: every element of 21 type classes found; CHECK (f @> ms) table complete, generated f @> r true in all rows"
	else
		echo "FAIL: $label: type classes (column, false negatives, probed; checked rows; generated rows, true):"
		cat "$out"
		fail=1
	fi
}

fingerprint "$src" >"$work/src.txt"
nfilters=$(wc -l <"$work/src.txt")
read -r -d '' src_fn src_info < <(semantics "$src"; printf '\0') || true
nonnull=$(q -d "$src" -At -c "SELECT (SELECT count(f) FROM filters) + (SELECT count(f) FROM col_filters)")

# how the source stores them: some inline with a short header, some compressed, some out of line
read -r inline compressed toast_bytes < <(q -d "$src" -At -F ' ' <<'SQL'
SELECT count(*) FILTER (WHERE pg_column_size(f) < 100),
       count(*) FILTER (WHERE pg_column_size(f) < octet_length(f::bytea) / 2),
       (SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE oid = 'filters'::regclass)
FROM filters;
SQL
)
echo "source: $nfilters filters ($nonnull not NULL), $inline inline under 100 bytes," \
	"$compressed compressed, TOAST table $((toast_bytes / 1024)) kB"
check "the source has what the test needs: tiny, compressed and out-of-line filters" \
	test "$inline" -ge 3 -a "$compressed" -ge 2 -a "$toast_bytes" -gt $((4 * 1024 * 1024))
check "in the source every element is found ($src_fn false negatives)" test "$src_fn" -eq 0
check "in the source bloomfilter_info reads all $nonnull filters ($src_info)" test "$src_info" -eq "$nonnull"
typed_check "source" "$src"

# scripts/cross-version.sh: the dump of this source made by one PostgreSQL version is restored
# by another, whose copy must have the same bytes (the format does not depend on the server)
if [ -n "${BF_CROSS_EXPORT:-}" ]; then
	mkdir -p "$BF_CROSS_EXPORT"
	"$bindir/pg_dump" -Fc -d "$src" -f "$BF_CROSS_EXPORT/dump.custom"
	cp "$work/src.txt" "$BF_CROSS_EXPORT/fingerprint.txt"
	"$bindir/psql" -X -At -d "$src" -c 'SELECT version()' >"$BF_CROSS_EXPORT/version.txt"
	[ "$fail" -eq 0 ] || { echo "FAIL: dump_restore: the source for other versions is not right"; exit 1; }
	echo "PASS: dump_restore: $nfilters filters dumped for other versions into $BF_CROSS_EXPORT"
	exit 0
fi
if [ -n "${BF_CROSS_IMPORT:-}" ]; then
	from=$(cut -d' ' -f1-2 "$BF_CROSS_IMPORT/version.txt")
	to=$("$bindir/psql" -X -At -d "$src" -c 'SELECT version()' | cut -d' ' -f1-2)
	if diff "$BF_CROSS_IMPORT/fingerprint.txt" "$work/src.txt" >"$work/cross.diff"; then
		echo "ok:   $from dump restored into $to: all $nfilters filters byte for byte the same"
	else
		echo "FAIL: $from dump restored into $to: filters differ (< $from, > $to):"
		head -20 "$work/cross.diff"
		fail=1
	fi
	[ "$fail" -eq 0 ] || { echo "FAIL: dump_restore: $from -> $to"; exit 1; }
	echo "PASS: dump_restore: a $from pg_dump of $nfilters filters of every variant restores into $to byte for byte, every element found"
	exit 0
fi

same_as_source() { # label, database, [table suffix]
	local label=$1 db=$2 suffix=${3:-} fn info out
	out=$work/$(printf '%s' "$label" | tr -c 'A-Za-z0-9' '_')
	fingerprint "$db" "$suffix" >"$out.txt"
	# (the COPY round trips copy the filters tables only)
	if [ -n "$suffix" ]; then grep -v '^typed_filters|' "$work/src.txt"; else cat "$work/src.txt"; fi >"$out.want"
	if diff "$out.want" "$out.txt" >"$out.diff"; then
		echo "ok:   $label: all $nfilters filters byte for byte the same (md5 of bytes and text form)"
	else
		echo "FAIL: $label: filters differ from the source (< source, > copy):"
		head -20 "$out.diff"
		fail=1
	fi
	read -r -d '' fn info < <(semantics "$db" "$suffix"; printf '\0') || true
	check "$label: every element found ($fn false negatives)" test "$fn" -eq 0
	check "$label: bloomfilter_info reads all $nonnull filters ($info)" test "$info" -eq "$nonnull"
}

# ---- 1. pg_dump -Fc, pg_restore into a new database -------------------------------------------

q -d postgres -c "DROP DATABASE IF EXISTS $dst_custom" -c "CREATE DATABASE $dst_custom"
"$bindir/pg_dump" -Fc -d "$src" -f "$work/dump.custom"
"$bindir/pg_restore" --exit-on-error -j 2 -d "$dst_custom" "$work/dump.custom" ||
	{ echo "FAIL: pg_restore -j 2 stopped on an error"; fail=1; }
echo "pg_dump -Fc: $(($(stat -c %s "$work/dump.custom") / 1024)) kB"
same_as_source "pg_dump -Fc / pg_restore -j 2" "$dst_custom"
typed_check "pg_dump -Fc / pg_restore -j 2" "$dst_custom"

# ---- 2. pg_dump plain format through psql -----------------------------------------------------

q -d postgres -c "DROP DATABASE IF EXISTS $dst_plain" -c "CREATE DATABASE $dst_plain"
"$bindir/pg_dump" -Fp -E LATIN1 -d "$src" -f "$work/dump.sql"
q -d "$dst_plain" -f "$work/dump.sql" >/dev/null ||
	{ echo "FAIL: replaying the plain dump stopped on an error"; fail=1; }
same_as_source "pg_dump plain -E LATIN1 / psql" "$dst_plain"
typed_check "pg_dump plain -E LATIN1 / psql" "$dst_plain"

# ---- 3. binary COPY to and from a file (bloomfilter_send and bloomfilter_recv) -----------------

q -d "$src" <<SQL
CREATE TABLE filters_bin (LIKE filters);
CREATE TABLE col_filters_bin (LIKE col_filters);
COPY filters TO '${srvfiles[0]}' WITH (FORMAT binary);
COPY filters_bin FROM '${srvfiles[0]}' WITH (FORMAT binary);
COPY col_filters TO '${srvfiles[0]}' WITH (FORMAT binary);
COPY col_filters_bin FROM '${srvfiles[0]}' WITH (FORMAT binary);
SQL
same_as_source "binary COPY" "$src" _bin

# ---- 4. text COPY (server side) and CSV through \copy -----------------------------------------

q -d "$src" <<SQL
CREATE TABLE filters_txt (LIKE filters);
CREATE TABLE col_filters_txt (LIKE col_filters);
COPY filters TO '${srvfiles[1]}';
COPY filters_txt FROM '${srvfiles[1]}';
COPY col_filters TO '${srvfiles[1]}';
COPY col_filters_txt FROM '${srvfiles[1]}';
SQL
same_as_source "text COPY" "$src" _txt

q -d "$src" <<SQL
CREATE TABLE filters_csv (LIKE filters);
CREATE TABLE col_filters_csv (LIKE col_filters);
\\copy filters TO '$work/filters.csv' WITH (FORMAT csv)
\\copy filters_csv FROM '$work/filters.csv' WITH (FORMAT csv)
\\copy col_filters TO '$work/col_filters.csv' WITH (FORMAT csv)
\\copy col_filters_csv FROM '$work/col_filters.csv' WITH (FORMAT csv)
SQL
same_as_source "CSV \\copy" "$src" _csv

t1=$EPOCHREALTIME
finish "$nfilters filters of every variant identical after pg_dump -Fc/pg_restore -j 2, plain pg_dump -E LATIN1, binary, text and CSV COPY; elements of 21 type classes found in both restores" \
	"some filter changed in a round trip"
