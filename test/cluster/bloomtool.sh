#!/usr/bin/env bash
# test/cluster/bloomtool.sh - bloomtool and the extension build, read and answer alike.
#
# Over 30,001 generated URL lines (among them the empty line, lines ending in a carriage
# return, lines with tabs and UTF-8) and 33,000 probe lines (30,000 strangers, 3,000 members),
# for every variant (and seeded classic and cuckoo filters, and one built from a bit count):
#   - bloomtool build gives exactly the bytes of bloomfilter_agg(url, n, p, variant) over the
#     same lines in the same order (md5 and cmp), also when scalable and cuckoo filters grow;
#     with a seed, which the aggregate does not take, those of bloomfilter_add_all over
#     bloomfilter_create(n, p, variant, seed), and for cuckoo those of adding, line by line,
#     only the lines the filter does not hold yet (as the aggregate does); for cuckoo that is
#     not bloomfilter_add_all even where no line repeats: seq 1 1000 at --items 1000 --seed 5
#     stores 997 items, add_all 1,000 (doc/bloomtool.md);
#   - SQL reads bloomtool's files (decode(hex)::bloomfilter, validated) and equals its filter;
#   - bloomtool check on the file SQL wrote prints exactly the probes for which SQL's @> is
#     true, in input order (false positives included, and there are some), and --invert
#     exactly those for which it is false; every member is found (--invert prints nothing,
#     exit status 1);
#   - bloomtool add of the second half of the lines to SQL's filter of the first half gives
#     SQL's filter of all lines;
#   - bloomtool info prints the values of bloomfilter_info(f), field by field;
#   - bloomtool union of two halves gives the bytes of SQL's a | b;
#   - bad files fail with exit status 2 and the message SQL gives as DETAIL for the same bytes,
#     I/O errors with 3, usage errors with 1; --help works;
#   - a C program compiled against the installed header and static library (or the build
#     tree's, when not installed) reads a bloomtool file and answers as bloomtool does.
#
# Run by scripts/server-tests.sh inside the throwaway cluster (PG* variables set, PGDATABASE an
# empty database of its own, BF_ROOT the repository root); tests build/bin/bloomtool, built by
# make (BLOOMTOOL=path overrides).  Needs perl and od (Debian base).  Prints one PASS or FAIL
# line; exits non-zero on failure.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

ROOT=${BF_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
TOOL=${BLOOMTOOL:-$ROOT/build/bin/bloomtool}
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
export PGCLIENTENCODING=UTF8
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning -c search_path=bloomtool_test,public"

started=$(date +%s)
WORK=$(mktemp -d -t bf-bloomtool.XXXXXX)
cleanup() {
	rm -rf "$WORK"
	psql -X -q -c "DROP SCHEMA IF EXISTS bloomtool_test CASCADE" >/dev/null 2>&1 || true
}
trap cleanup EXIT


tohex() { od -An -v -tx1 | tr -d ' \n'; }
unhex() { perl -e 'local $/; $_ = <STDIN>; s/\s+//g; print pack("H*", $_)'; }
md5() { md5sum | cut -d' ' -f1; }

[ -x "$TOOL" ] || die "no bloomtool at $TOOL (run make)"
cd "$WORK"

# ---- the lines, and the filters SQL builds from them ------------------------------------

q <<'SQL' || die "could not set up the tables"
CREATE EXTENSION IF NOT EXISTS bloomfilter;
DROP SCHEMA IF EXISTS bloomtool_test CASCADE;
CREATE SCHEMA bloomtool_test;

CREATE TABLE urls AS
SELECT i AS id,
	'https://' || (ARRAY['example.com', 'www.example.org', 'shop.example.net', 'cdn.example.io'])[i % 4 + 1]
		|| '/' || md5('m' || i) || '/' || (i % 97)
		|| CASE WHEN i % 101 = 0 THEN E'\r' WHEN i % 103 = 0 THEN E'?q=a\tb c'
			WHEN i % 107 = 0 THEN '/ü/日本/😀' ELSE '' END AS url
FROM generate_series(1, 30000) i
UNION ALL SELECT 0, '';

-- 30,000 strangers, every 11th probe a member
CREATE TABLE probes AS
SELECT i AS id,
	CASE WHEN i % 11 = 0 THEN u.url
		ELSE 'https://example.com/' || md5('s' || i) || '/' || (i % 89) END AS url
FROM generate_series(1, 33000) i LEFT JOIN urls u ON i % 11 = 0 AND u.id = i / 11;

-- name, variant, n, p: scalable and cuckoo are planned small, so that they grow
CREATE TABLE cases (name text PRIMARY KEY, variant text, n bigint, p float8, seed bigint);
INSERT INTO cases VALUES
	('blocked', 'blocked', 30001, 0.01, 0),
	('classic', 'classic', 30001, 0.02, 0),
	('counting', 'counting', 20000, 0.01, 0),
	('scalable', 'scalable', 4000, 0.01, 0),
	('cuckoo', 'cuckoo', 8000, 0.01, 0),
	('seeded', 'classic', 30001, 0.01, -7),
	('seeded_cuckoo', 'cuckoo', 8000, 0.01, -7);

-- f with the lines a query gives added in turn, each only if f does not hold it yet: what
-- bloomtool does with a cuckoo filter (bloomfilter_agg too, and it takes no seed)
CREATE FUNCTION add_new_lines(f bloomfilter, lines text) RETURNS bloomfilter LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE lines LOOP
		IF NOT f @> line THEN
			f := f || line;
		END IF;
	END LOOP;
	RETURN f;
END
$$;

-- the filter of a case over the lines 'cond' selects, in line order: bloomfilter_agg, or
-- with a seed (which the aggregate does not take) bloomfilter_add_all, or for cuckoo
-- add_new_lines
CREATE FUNCTION build(c cases, cond text) RETURNS bloomfilter LANGUAGE plpgsql AS $$
DECLARE
	f bloomfilter;
BEGIN
	IF c.seed = 0 THEN
		EXECUTE format('SELECT bloomfilter_agg(url, %s, %s, %L ORDER BY id) FROM urls WHERE %s',
			c.n, c.p, c.variant, cond) INTO f;
	ELSIF c.variant = 'cuckoo' THEN
		f := add_new_lines(bloomfilter_create(c.n, c.p, c.variant, c.seed),
			format('SELECT url FROM urls WHERE %s ORDER BY id', cond));
	ELSE
		EXECUTE format('SELECT bloomfilter_add_all(bloomfilter_create(%s, %s, %L, %s), array_agg(url ORDER BY id)) FROM urls WHERE %s',
			c.n, c.p, c.variant, c.seed, cond) INTO f;
	END IF;
	RETURN f;
END
$$;

CREATE TABLE filters (name text PRIMARY KEY, f bloomfilter, first_half bloomfilter,
	odd bloomfilter, even bloomfilter);
INSERT INTO filters
SELECT c.name, build(c, 'true'), build(c, 'id <= 15000'), build(c, 'id % 2 = 1'),
	build(c, 'id % 2 = 0')
FROM cases c;
-- built from a bit count: no capacity, no target rate
INSERT INTO filters (name, f)
SELECT 'from_bits', bloomfilter_add_all(bloomfilter_create_bits(100000, 5, 'classic'),
	array_agg(url ORDER BY id)) FROM urls;
SQL

qa -c "SELECT url FROM urls ORDER BY id" >members.txt
qa -c "SELECT url FROM urls WHERE id <= 15000 ORDER BY id" >first_half.txt
qa -c "SELECT url FROM urls WHERE id > 15000 ORDER BY id" >second_half.txt
qa -c "SELECT url FROM urls WHERE id % 2 = 1 ORDER BY id" >odd.txt
qa -c "SELECT url FROM urls WHERE id % 2 = 0 ORDER BY id" >even.txt
qa -c "SELECT url FROM probes ORDER BY id" >probes.txt
# the lines psql wrote are the values, byte for byte (a \r survives, no escaping)
want=$(qa -c "SELECT md5(string_agg(url || E'\n', '' ORDER BY id)) FROM urls")
[ "$(md5 <members.txt)" = "$want" ] || die "members.txt is not the bytes of the urls table"
grep -q $'\r$' members.txt || die "no member line ends in a carriage return"
[ "$(wc -l <members.txt)" -eq 30001 ] || die "members.txt does not have 30001 lines"

export_sql() { # name column file
	qa -c "SELECT encode($2::bytea, 'hex') FROM filters WHERE name = '$1'" | unhex >"$3"
}

# ---- build, cross-reading, check, add, union, per case ---------------------------------

: >tool_files.tsv
: >tool_info.tsv
checked=0
while IFS='|' read -r name variant n p seed; do
	opts=(--items "$n" --fpr "$p")
	[ "$variant" = blocked ] || opts+=(--variant "$variant") # blocked is the default
	[ "$seed" = 0 ] || opts+=(--seed "$seed")

	# build = bloomfilter_agg, byte for byte
	"$TOOL" build "${opts[@]}" -o "tool_$name.bf" <members.txt ||
		die "$name: bloomtool build exited $?"
	export_sql "$name" f "sql_$name.bf"
	sql_md5=$(qa -c "SELECT md5(f::bytea) FROM filters WHERE name = '$name'")
	[ "$(md5 <"tool_$name.bf")" = "$sql_md5" ] ||
		die "$name: bloomtool build differs from SQL ($(wc -c <"tool_$name.bf") vs $(wc -c <"sql_$name.bf") bytes)"
	cmp -s "tool_$name.bf" "sql_$name.bf" || die "$name: the exported SQL filter differs from its md5"
	# "-o -" writes the same bytes to standard output
	"$TOOL" build "${opts[@]}" -o - <members.txt | cmp -s - "tool_$name.bf" ||
		die "$name: build -o - differs from build -o FILE"
	printf '%s\t%s\n' "$name" "$(tohex <"tool_$name.bf")" >>tool_files.tsv

	# check on SQL's file = SQL's @>, in input order; --invert = NOT @>
	rc=0
	"$TOOL" check "sql_$name.bf" <probes.txt >"got_$name.txt" || rc=$?
	[ $rc -eq 0 ] || die "$name: check exited $rc although lines matched"
	qa -c "SELECT p.url FROM probes p, filters f WHERE f.name = '$name' AND f.f @> p.url ORDER BY p.id" \
		>"want_$name.txt"
	cmp -s "got_$name.txt" "want_$name.txt" ||
		die "$name: check printed $(wc -l <"got_$name.txt") lines, SQL's @> finds $(wc -l <"want_$name.txt")"
	fp=$(qa -c "SELECT count(*) FROM probes p, filters f WHERE f.name = '$name' AND f.f @> p.url AND p.id % 11 <> 0")
	[ "$fp" -gt 0 ] || die "$name: no false positive among the strangers: the comparison proves little"
	"$TOOL" check --invert "sql_$name.bf" <probes.txt >"got_inv_$name.txt" ||
		die "$name: check --invert exited $?"
	qa -c "SELECT p.url FROM probes p, filters f WHERE f.name = '$name' AND NOT f.f @> p.url ORDER BY p.id" \
		>"want_inv_$name.txt"
	cmp -s "got_inv_$name.txt" "want_inv_$name.txt" ||
		die "$name: check --invert printed $(wc -l <"got_inv_$name.txt") lines, NOT @> finds $(wc -l <"want_inv_$name.txt")"
	[ "$("$TOOL" check --count "sql_$name.bf" <probes.txt)" -eq "$(wc -l <"want_$name.txt")" ] ||
		die "$name: check --count disagrees with check"
	# no member is certainly absent: nothing printed, exit status 1
	rc=0
	"$TOOL" check --invert "tool_$name.bf" members.txt >"absent_$name.txt" || rc=$?
	[ $rc -eq 1 ] && [ ! -s "absent_$name.txt" ] ||
		die "$name: check --invert on the members printed $(wc -l <"absent_$name.txt") lines, exit $rc (want none, exit 1)"
	checked=$((checked + $(wc -l <probes.txt)))

	# add to SQL's filter of the first half: SQL's filter of all lines
	export_sql "$name" first_half "add_$name.bf"
	"$TOOL" add "add_$name.bf" <second_half.txt || die "$name: bloomtool add exited $?"
	cmp -s "add_$name.bf" "sql_$name.bf" || die "$name: add of the second half differs from SQL's filter"
	# the same from bloomtool's own half, lines from an input file operand
	"$TOOL" build "${opts[@]}" -o "half_$name.bf" first_half.txt
	"$TOOL" add "half_$name.bf" second_half.txt
	cmp -s "half_$name.bf" "sql_$name.bf" || die "$name: build + add differs from SQL's filter"

	# union of the odd and even halves = SQL's odd | even
	"$TOOL" build "${opts[@]}" -o "odd_$name.bf" <odd.txt
	"$TOOL" build "${opts[@]}" -o "even_$name.bf" <even.txt
	"$TOOL" union "odd_$name.bf" "even_$name.bf" -o "union_$name.bf" || die "$name: bloomtool union exited $?"
	want=$(qa -c "SELECT md5((odd | even)::bytea) FROM filters WHERE name = '$name'")
	[ "$(md5 <"union_$name.bf")" = "$want" ] || die "$name: bloomtool union differs from SQL's |"
done < <(qa -c "SELECT name, variant, n, p, seed FROM cases ORDER BY name")

# doc/bloomtool.md: a seeded cuckoo build of lines that never repeat is still not
# bloomfilter_add_all of them: a line whose fingerprint another line left in its buckets is not
# stored again.  seq 1 1000 at --items 1000 --seed 5: 997 items, add_all's 1,000
seq 1 1000 | "$TOOL" build --items 1000 --variant cuckoo --seed 5 -o seq.bf || die "seq: build exited $?"
got=$("$TOOL" info seq.bf | awk '$1 == "items_added" { print $2 }')
want=$(qa -c "SELECT md5(add_new_lines(bloomfilter_create(1000, 0.01, 'cuckoo', 5),
		'SELECT g::text FROM generate_series(1, 1000) AS g')::bytea)")
add_all=$(qa -c "SELECT (bloomfilter_info(bloomfilter_add_all(bloomfilter_create(1000, 0.01, 'cuckoo', 5),
		ARRAY(SELECT g::text FROM generate_series(1, 1000) AS g)))).items_added")
[ "$(md5 <seq.bf)" = "$want" ] || die "seq: the seeded cuckoo build is not the filter of add_new_lines"
[ "$got" = 997 ] && [ "$add_all" = 1000 ] ||
	die "seq 1 1000 into a seeded cuckoo filter: bloomtool stores $got items, bloomfilter_add_all $add_all (doc/bloomtool.md: 997 and 1000)"

# the filter built from a bit count only comes from SQL
export_sql from_bits f tool_from_bits.bf
printf '%s\t%s\n' from_bits "$(tohex <tool_from_bits.bf)" >>tool_files.tsv

# ---- SQL reads bloomtool's files; info agrees with bloomfilter_info ----------------------

for f in tool_*.bf; do
	name=${f#tool_}
	name=${name%.bf}
	"$TOOL" info "$f" >"info_$name.txt" || die "$name: bloomtool info exited $?"
	awk -v n="$name" '{ print n "\t" $1 "\t" $2 }' "info_$name.txt" >>tool_info.tsv
	"$TOOL" info - <"$f" | cmp -s - "info_$name.txt" || die "$name: info - (standard input) differs"
done
grep -q $'^from_bits\tcapacity\tnull$' tool_info.tsv || die "info of a filter built from a bit count shows a capacity"

mismatch=$(
	q -A -t <<'SQL'
CREATE TABLE tool_files (name text, hex text);
CREATE TABLE tool_info (name text, k text, v text);
\copy tool_files FROM 'tool_files.tsv'
\copy tool_info FROM 'tool_info.tsv'
-- each file is a valid bloomfilter, equal to and with the bytes of SQL's
SELECT 'file ' || t.name || ' differs from SQL''s filter'
FROM tool_files t LEFT JOIN filters f USING (name)
WHERE f.f IS NULL OR decode(t.hex, 'hex')::bloomfilter <> f.f
	OR decode(t.hex, 'hex')::bloomfilter::bytea <> f.f::bytea;
-- every field of bloomfilter_info, by value (floats as float8: bloomtool prints them exactly)
WITH s AS (
	SELECT f.name, x.k, x.v, x.is_float
	FROM filters f, LATERAL bloomfilter_info(f.f) i,
		LATERAL (VALUES
			('variant', i.variant, false), ('bits', i.bits::text, false),
			('bytes', i.bytes::text, false), ('hashes', i.hashes::text, false),
			('seed', i.seed::text, false), ('items_added', i.items_added::text, false),
			('bits_set', i.bits_set::text, false), ('fill_ratio', i.fill_ratio::text, true),
			('estimated_items', i.estimated_items::text, true),
			('estimated_fpr', i.estimated_fpr::text, true),
			('capacity', coalesce(i.capacity::text, 'null'), false),
			('target_fpr', coalesce(i.target_fpr::text, 'null'), true),
			('stages', i.stages::text, false),
			('saturated_counters', i.saturated_counters::text, false)) x(k, v, is_float))
SELECT format('info %s %s: bloomtool %s, SQL %s', coalesce(s.name, t.name), coalesce(s.k, t.k),
	coalesce(t.v, '(missing)'), coalesce(s.v, '(missing)'))
FROM s FULL JOIN tool_info t ON t.name = s.name AND t.k = s.k
WHERE s.v IS DISTINCT FROM t.v
	AND NOT (s.is_float AND s.v <> 'null' AND t.v <> 'null' AND s.v::float8 = t.v::float8);
SQL
) || die "SQL could not read bloomtool's files"
[ -z "$mismatch" ] || die "$mismatch"
nfilters=$(qa -c "SELECT count(*) FROM filters")
[ "$(wc -l <tool_info.tsv)" -eq $((14 * nfilters)) ] || die "bloomtool info did not print 14 fields per filter"

# ---- errors ------------------------------------------------------------------------------

# bad files: status 2, and the DETAIL SQL gives for the same bytes
good=tool_blocked.bf
head -c 10 "$good" >short.bf
head -c 100 "$good" >truncated.bf
cat "$good" short.bf >trailing.bf
head -c 200 /dev/zero >zeros.bf
{ head -c 4 "$good"; printf '\x09'; tail -c +6 "$good"; } >version.bf
{ head -c 5 "$good"; printf '\x63'; tail -c +7 "$good"; } >variant.bf
{ head -c 8 "$good"; printf '\0\0\0\0'; tail -c +13 "$good"; } >hashes.bf
for bad in short truncated trailing zeros version variant hashes; do
	rc=0
	"$TOOL" check "$bad.bf" <probes.txt >out.txt 2>err.txt || rc=$?
	[ $rc -eq 2 ] || die "check $bad.bf exited $rc, not 2: $(cat err.txt)"
	[ ! -s out.txt ] || die "check $bad.bf printed lines"
	sql_detail=$(printf "SELECT decode('%s', 'hex')::bloomfilter;\n" "$(tohex <"$bad.bf")" |
		psql -X -q -v ON_ERROR_STOP=1 2>&1 | sed -n 's/^DETAIL:  //p') || true # psql must fail
	[ -n "$sql_detail" ] || die "SQL accepted $bad.bf"
	grep -qF -- "is not a valid bloomfilter: $sql_detail" err.txt ||
		die "$bad.bf: bloomtool says \"$(cat err.txt)\", SQL \"$sql_detail\""
	expect 2 "$sql_detail" "$TOOL" info "$bad.bf"
done
expect 2 "not a valid bloomfilter" "$TOOL" add truncated.bf
cmp -s truncated.bf <(head -c 100 "$good") || die "a failed add changed the file"
expect 2 "cannot combine bloomfilters of different parameters" "$TOOL" union tool_blocked.bf tool_classic.bf -o x.bf
[ ! -e x.bf ] || die "a failed union wrote its output"
# I/O errors: 3
expect 3 "could not open" "$TOOL" info no_such_file.bf
expect 3 "could not open" "$TOOL" check "$good" no_such_input.txt
expect 3 "could not create a temporary file" "$TOOL" build --items 10 -o no_such_dir/x.bf
# usage errors: 1
expect 1 "Usage:" "$TOOL"
expect 1 "unknown command" "$TOOL" frobnicate
expect 1 "--items is required" "$TOOL" build -o x.bf
expect 1 "--items must be positive" "$TOOL" build --items 0 -o x.bf
expect 1 "--fpr must lie strictly between 0 and 1" "$TOOL" build --items 10 --fpr 1.5 -o x.bf
expect 1 "unknown variant \"bogus\"" "$TOOL" build --items 10 --variant bogus -o x.bf
expect 1 "does not apply to check" "$TOOL" check --items 10 "$good"
expect 1 "missing filter FILE" "$TOOL" info
# --help
"$TOOL" --help >help.txt || die "--help exited $?"
grep -q "bloomtool build --items N" help.txt || die "--help does not show the usage"
"$TOOL" check --help | cmp -s - help.txt || die "check --help differs from --help"

# ---- the installed library and header ---------------------------------------------------

incdir=$("$PG_CONFIG" --includedir-server 2>/dev/null)/extension/bloomfilter
libdir=$("$PG_CONFIG" --pkglibdir 2>/dev/null)
where=installed
if [ ! -f "$incdir/bf.h" ] || [ ! -f "$libdir/libbloomfilter.a" ]; then
	incdir=$ROOT/src/core libdir=$ROOT/build/lib where="build tree"
fi
cat >app.c <<'C'
/* reads a filter file and prints the lines of standard input it may contain */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include "bf.h"

int
main(int argc, char **argv)
{
	static unsigned char buf[1 << 22];
	FILE	   *fp = argc == 2 ? fopen(argv[1], "rb") : NULL;
	size_t		len = fp ? fread(buf, 1, sizeof(buf), fp) : 0;
	bf_filter	f;
	char	   *line = NULL;
	size_t		cap = 0;
	ssize_t		n;

	if (bf_open(buf, len, &f) != BF_OK)
		return 2;
	while ((n = getline(&line, &cap, stdin)) > 0)
	{
		if (line[n - 1] == '\n')
			n--;
		if (bf_contains(&f, bf_hash_bytes(line, (size_t) n, f.seed)))
			printf("%.*s\n", (int) n, line);
	}
	return 0;
}
C
cc -std=c99 -Wall -I"$incdir" app.c -L"$libdir" -lbloomfilter -lm -o app ||
	die "a program could not be built against the $where header and library"
for name in blocked cuckoo; do
	./app "tool_$name.bf" <probes.txt | cmp -s - "got_$name.txt" ||
		die "$name: a program linked against libbloomfilter.a answers differently"
done

echo "PASS bloomtool: $((nfilters - 1)) filters x 33000 probes (${checked} checks) equal to SQL; build, add, union, info, errors; library ($where); $(($(date +%s) - started)) s"
