#!/usr/bin/env bash
# test/cluster/readme.sh - what README.md's tour and "Choosing parameters" show is what the
# extension does.
#
# In a database of its own, runs every ```sql block of the README sections "A five-minute tour",
# "Choosing parameters" and "Automatic join filters" in order, exactly as written, and checks:
#   - a block followed by an output block (``` without a language) prints that output, byte for
#     byte (psql's aligned format without the row-count footer);
#   - a line "SELECT ...;  -- value" prints value (its first word: "9585059 (classic)" is
#     9585059; true and false are t and f);
#   - the table of bits per item and k against the rate: every row from bloomfilter_optimal_bits
#     and bloomfilter_plan at a million items, and the lower bound log2(1/p);
#   - the figures in the prose: the bits per item of each variant at 0.1 %, the fingerprint
#     widths of cuckoo at 1 %, 0.1 % and 0.01 %, classic's capacity of 999,176, the measured
#     rate of a blocked filter sized by the classic formula (as the block of measured rates
#     prints it), the size of a cuckoo filter built from 150 rows of one value, and the tour's
#     sizes (the URLs' text, the filter in KB);
#   - the join filters' default (on) and the rows the join example's probe removes.
# Runs against the server the PG* environment variables point at, where the extension is
# installed.  Prints one PASS or FAIL line; exits non-zero on failure.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

ROOT=${BF_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
README=$ROOT/README.md
DB=bf_readme_test
t0=$EPOCHREALTIME

WORK=$(mktemp -d -t bf-readme.XXXXXX)
cleanup() {
	q -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true
	rm -rf "$WORK"
}
trap cleanup EXIT
cd "$WORK"

q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null
q -d "$DB" -c "CREATE EXTENSION bloomfilter" >/dev/null
rq() { q -d "$DB" -P footer=off "$@"; }
rv() { qa -d "$DB" "$@"; }

# The two sections, split into numbered files: block.N.sql, and block.N.out when an output
# block follows it
awk -v dir="$WORK" '
	/^## / { on = ($0 == "## A five-minute tour" || $0 == "## Choosing parameters" ||
	            $0 == "## Automatic join filters") }
	!on { next }
	/^```sql$/ { n++; file = dir "/block." n ".sql"; last = "sql"; inside = 1; next }
	/^```$/ && inside { inside = 0; next }
	/^```$/ && !inside && last == "sql" { file = dir "/block." n ".out"; inside = 1; last = "out"; next }
	/^```/ { last = ""; next }
	inside { print > file; next }
	NF { last = "" }
	END { print n > (dir "/blocks") }' "$README"
nblocks=$(cat blocks)
[ "$nblocks" -ge 6 ] || die "found $nblocks SQL blocks in the README's tour and Choosing parameters"

checked=0
for ((i = 1; i <= nblocks; i++)); do
	rq -f "block.$i.sql" >"raw.$i" 2>&1 || { fail=1; echo "FAIL: README block $i failed: $(head -c 300 "raw.$i")"; continue; }
	# as the README prints it: no white space at the ends of lines, no blank line at the end
	sed -e 's/[[:space:]]*$//' "raw.$i" | sed -e ':a' -e '/^\n*$/{$d;N;ba' -e '}' >"got.$i"
	if [ -f "block.$i.out" ]; then
		if cmp -s "got.$i" "block.$i.out"; then
			echo "ok:   README block $i prints what the README shows ($(head -1 "block.$i.sql"))"
		else
			echo "FAIL: README block $i ($(head -1 "block.$i.sql")) prints something else:"
			diff "block.$i.out" "got.$i" | head -20 || true
			fail=1
		fi
		checked=$((checked + 1))
	fi
	# one statement per line with the value it prints in a comment (true and false: t, f)
	while IFS= read -r line; do
		stmt=${line%%--*}
		want=${line##*-- }
		want=${want%% *}
		case $want in true) want=t ;; false) want=f ;; esac
		got=$(rv -c "$stmt")
		check "README: $stmt-- $want (got $got)" [ "$got" = "$want" ]
		checked=$((checked + 1))
	done < <(grep -E '^SELECT .*; +-- (true|false|-?[0-9][0-9.e+-]*)( |$)' "block.$i.sql" || true)
done
[ "$checked" -ge 10 ] || die "only $checked README results were compared"

# The table of bits per item: | rate | blocked bits/item | blocked k | classic bits/item |
# classic k | lower bound |
rows=0
while IFS='|' read -r _ rate bb bk cb ck lb _; do
	rate=$(echo "$rate" | tr -d ' ')
	case $rate in
		*%) p=$(awk -v r="${rate%\%}" 'BEGIN { printf "%.10g", r / 100 }') ;;
		*) p=$rate ;;
	esac
	want="$(echo "$bb|$bk|$cb|$ck|$lb" | tr -d ' ')"
	got=$(rv -c "SELECT round(bloomfilter_optimal_bits(1000000, $p, 'blocked') / 1e6, 2),
			(SELECT hashes FROM bloomfilter_plan(1000000, $p) WHERE variant = 'blocked'),
			round(bloomfilter_optimal_bits(1000000, $p, 'classic') / 1e6, 2),
			(SELECT hashes FROM bloomfilter_plan(1000000, $p) WHERE variant = 'classic'),
			round((ln(1 / $p::numeric) / ln(2))::numeric, 2)")
	check "README bits-per-item table at $rate: $want" [ "$got" = "$want" ]
	rows=$((rows + 1))
done < <(grep -E '^\| [0-9.]+ ?(%|e-[0-9]+) +\|' "$README" || true)
[ "$rows" -ge 8 ] || die "found $rows rows of the bits-per-item table"

# The figures in the prose, read a paragraph at a time
awk 'BEGIN { RS = "" } { gsub(/\n */, " "); print }' "$README" >paragraphs
line=$(grep -m1 '^At 0.1 % the bits per item are' paragraphs) || die "the README lacks its 0.1 % figures"
for v in blocked classic counting scalable cuckoo; do
	want=$(echo "$line" | grep -oE "$v [0-9]+(\.[0-9]+)?" | cut -d' ' -f2) || die "the 0.1 % figures lack $v"
	got=$(rv -c "SELECT round(bits_per_item::numeric, 2) FROM bloomfilter_plan(1000000, 0.001)
			WHERE variant = '$v'")
	check "README: at 0.1 % $v needs $want bits per item (got $got)" [ "$got" = "$want" ]
done
grep -qF 'f bits, f chosen from the rate (10 bits at 1 %, 13 at 0.1 %, 17 at 0.01 %)' paragraphs ||
	die "the README lacks the cuckoo widths this test checks"
got=$(rv -c "SELECT string_agg(hashes::text, ',' ORDER BY p DESC)
		FROM unnest(ARRAY[0.01, 0.001, 0.0001]) AS p,
			 LATERAL (SELECT hashes FROM bloomfilter_plan(1000000, p) WHERE variant = 'cuckoo') c")
check "README: cuckoo fingerprints of 10, 13 and 17 bits at 1 %, 0.1 %, 0.01 % (got $got)" [ "$got" = "10,13,17" ]
grep -qF '(999,176 for a 1,000,000-item filter at 1 %)' paragraphs || die "the README lacks its capacity example"
got=$(rv -c "SELECT capacity FROM bloomfilter_info(bloomfilter_create(1000000, 0.01, 'classic'))")
check "README: a classic filter for 1,000,000 items at 1 % has capacity 999,176 (got $got)" [ "$got" = 999176 ]
# the prose's rate of a blocked filter sized by the classic formula is the measured-rates
# block's (whose output the loop above compared)
grep -qF 'sized that way (9,585,059 bits, and classic'"'"'s k = 7) measures 1.167 %' paragraphs ||
	die "the README lacks the measured rate of a blocked filter sized by the classic formula"
grep -qE '^ blocked, 9585059 bits, k = 7 \| +1\.167$' "$README" ||
	die "the README's measured rates do not show 1.167 for the blocked filter sized by the classic formula"
grep -qF "150 rows of one value, \`bloomfilter_agg(1, 1000, 0.01, 'cuckoo')\`, give the 1,416-byte filter of a single addition" paragraphs ||
	die "the README lacks the size of its cuckoo filter of one repeated value"
got=$(rv -c "SELECT octet_length(f::bytea) || ' ' || (f::bytea = (bloomfilter_create(1000, 0.01, 'cuckoo') || 1)::bytea)
		FROM (SELECT bloomfilter_agg(1, 1000, 0.01, 'cuckoo') AS f FROM generate_series(1, 150)) AS s")
check "README: 150 rows of one value give the 1,416-byte cuckoo filter of one addition (got $got)" [ "$got" = "1416 true" ]
grep -qF '100,000 URLs (about 3.3 MB of text) fit in 121 KB' paragraphs || die "the README lacks its size sentence"
got=$(rv -c "SELECT round(sum(octet_length(url)) / 1e6, 1) || ' ' || round(bytes / 1024.0)
		FROM urls, seen, bloomfilter_info(f) WHERE crawl = 1 GROUP BY bytes")
check "README: the URLs are 3.3 MB of text and the filter 121 KB (got $got)" [ "$got" = "3.3 121" ]

# Automatic join filters: the default, the rows the example's probe removes
got=$(qa -d "$DB" -c "LOAD 'bloomfilter'" -c "SHOW bloomfilter.join_filter")
check "README: bloomfilter.join_filter is on by default (got $got)" [ "$got" = on ]
grep -qF 'the 22,200 of the 111 hosts whose name starts with `example1`' paragraphs ||
	die "the README lacks its join example's sizes"
got=$(rv -c "SELECT count(*) FROM hot")
check "README: the join example's hot table has 22,200 URLs (got $got)" [ "$got" = 22200 ]
grep -qF '(77,040 of the 77,800 URLs of other hosts here: the other 760 are the 1 % false positives)' paragraphs ||
	die "the README lacks the rows its join example removes"
got=$(qa -d "$DB" -c "LOAD 'bloomfilter'" -c "SET max_parallel_workers_per_gather = 0" \
	-c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) SELECT count(*) FROM urls u JOIN hot h ON h.url = u.url" |
	sed -n 's/.*"Rows Removed by Bloom Join Filter": \([0-9]*\).*/\1/p')
check "README: the join example's probe removes 77,040 rows (got $got)" [ "$got" = 77040 ]

t1=$EPOCHREALTIME
finish "the README's tour and parameters, $checked results and $rows table rows as written" \
	"the README's tour and parameters differ from what the extension does"
