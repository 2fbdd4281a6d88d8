#!/usr/bin/env bash
# scripts/bench_server.sh - the SQL half of "make bench", run by scripts/bench.sh inside a
# throwaway cluster (pg_virtualenv sets PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE).
# To run it against some other server, set those yourself (it creates and drops a database
# bench_bloomfilter there, and sets session_preload_libraries on it, which needs a superuser):
#     BENCH_ROWS=1000000 bash scripts/bench_server.sh
# or run it in a throwaway cluster of your own, against the installed extension:
#     BENCH_ONLY=join BENCH_JOIN_SCALE=0.1 BENCH_REPEAT=3 pg_virtualenv -t -v 15 \
#         -o shared_buffers=2GB bash scripts/bench_server.sh
#
# Every figure is a ratio of two statements A and B measured alternately in this run, R
# times, with the median of the per-pair ratios beside its target.  Timing never fails the
# run: it exits non-zero only when something broke (an error, or a parallel build whose
# bytes differ from the serial one).
#
# Environment (optional):
#   BENCH_ROWS          rows of the URL table (default 10000000)
#   BENCH_REPEAT        pairs per comparison (default 7)
#   BENCH_LOOP_SECONDS  most seconds one single-add PL/pgSQL loop may take (default 20)
#   BENCH_JOIN_SCALE    size of the tables of the join-filter comparisons against the issue's
#                       (default 1: 3 million probe rows, a 4-million-row fact table, a
#                       3-million-row dimension...); e.g. 0.1 for a quick run
#   BENCH_TPCH_SCALE    TPC-H scale factor of the TPC-H-shaped part (default 0.1: 600,000
#                       lineitem rows)
#   BENCH_TPCH_REPEAT   rounds per TPC-H query and setting (default BENCH_REPEAT if set, else 5)
#   BENCH_ONLY          one part alone: "urls" (everything on the URL table), "join" (the
#                       automatic join filters) or "tpch" (the join filters on TPC-H-shaped
#                       tables and queries); default all three
#   BENCH_REPORT        file the report is appended to as well

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$BF_ROOT"

ROWS=${BENCH_ROWS:-10000000}
REPEAT=${BENCH_REPEAT:-7}
LOOP_SECONDS=${BENCH_LOOP_SECONDS:-20}
JOIN_SCALE=${BENCH_JOIN_SCALE:-1}
TPCH_SCALE=${BENCH_TPCH_SCALE:-0.1}
TPCH_REPEAT=${BENCH_TPCH_REPEAT:-${BENCH_REPEAT:-5}}
ONLY=${BENCH_ONLY:-}
DB=bench_bloomfilter
[[ $ROWS =~ ^[0-9]+$ ]] && [ "$ROWS" -ge 10000 ] || bf_die "BENCH_ROWS must be a number >= 10000 (got '$ROWS')"
[[ $REPEAT =~ ^[0-9]+$ ]] && [ "$REPEAT" -ge 1 ] || bf_die "BENCH_REPEAT must be a number >= 1 (got '$REPEAT')"
[[ $JOIN_SCALE =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)$ ]] && awk -v s="$JOIN_SCALE" 'BEGIN { exit !(s > 0) }' ||
	bf_die "BENCH_JOIN_SCALE must be a number > 0 (got '$JOIN_SCALE')"
[[ $TPCH_REPEAT =~ ^[0-9]+$ ]] && [ "$TPCH_REPEAT" -ge 1 ] || bf_die "BENCH_TPCH_REPEAT must be a number >= 1 (got '$TPCH_REPEAT')"
[[ $TPCH_SCALE =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)$ ]] && awk -v s="$TPCH_SCALE" 'BEGIN { exit !(s >= 0.001) }' ||
	bf_die "BENCH_TPCH_SCALE must be a number >= 0.001 (got '$TPCH_SCALE')"
case $ONLY in
"" | urls | join | tpch) ;;
*) bf_die "BENCH_ONLY must be urls, join or tpch (got '$ONLY')" ;;
esac

# Serial comparisons: no parallel workers, no JIT (its compile time would land on one side)
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning -c jit=off -c max_parallel_workers_per_gather=0"
DEFAULT_PARALLEL="max_parallel_workers_per_gather=2"
PARALLEL="max_parallel_workers_per_gather=2,parallel_setup_cost=0,parallel_tuple_cost=0,min_parallel_table_scan_size=0,parallel_leader_participation=on"

failures=0
declare -a summary=()
errf=$(mktemp -t bench-psql-err.XXXXXX)
trap 'rm -f "$errf"' EXIT

psql_db() { psql -X -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -d "$DB" "$@"; }
psql_at() { psql_db -At -F '|' "$@"; }

now() { date +%s.%N; }
secs_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

heading() { printf '\n== %s\n' "$*"; }

# An error of psql: "skipped" when the extension lacks what the step needs (an undefined
# function or object, a feature not supported), otherwise a failure of the run.
# what, then psql's stderr
report_error() {
	local what=$1 err=$2 code
	code=$(sed -n 's/^ERROR:  \([0-9A-Z]\{5\}\): .*/\1/p' <<<"$err" | head -1)
	case $code in
	42883 | 42704 | 0A000)
		echo "  skipped: $(sed -n 's/^ERROR:  [0-9A-Z]\{5\}: //p' <<<"$err" | head -1)"
		summary+=("$(printf '%-40s skipped (the extension lacks it)' "$what")")
		;;
	*)
		echo "  ERROR in $what:"
		sed 's/^/    /' <<<"$err"
		summary+=("$(printf '%-40s ERROR' "$what")")
		failures=$((failures + 1))
		;;
	esac
}

# verdict RATIO OP TARGET
verdict() {
	awk -v r="$1" -v op="$2" -v t="$3" 'BEGIN {
		ok = (op == "<") ? (r < t) : (r <= t)
		print ok ? "meets target" : "above target" }'
}

# compare NAME OP TARGET QUERY_A QUERY_B [SETTINGS_A [SETTINGS_B]]
# prints the two statements and one result line, adds a line to the summary, and sets
# CMP_A_MS CMP_B_MS CMP_RATIO CMP_A_WORKERS CMP_B_WORKERS.  With CMP_ROWS set (both
# statements scan that many rows), also prints (A - B) per row.
compare() {
	local name=$1 op=$2 target=$3 qa=$4 qb=$5 sa=${6:-} sb=${7:-}
	local out err t0 v
	CMP_RATIO=
	echo
	echo "$name"
	echo "  A: $qa${sa:+   [with $sa]}"
	echo "  B: $qb${sb:+   [with $sb]}"
	t0=$(now)
	if ! out=$(psql_at -v name="$name" -v qa="$qa" -v qb="$qb" -v sa="$sa" -v sb="$sb" \
		-v reps="$REPEAT" 2>"$errf" <<'SQL'
SELECT round(a_ms::numeric, 1), round(b_ms::numeric, 1), round(ratio::numeric, 3),
       a_workers, b_workers
FROM bench.compare(:'name', :'qa', :'qb', :reps, :'sa', :'sb');
SQL
	); then
		err=$(cat "$errf")
		report_error "$name" "$err"
		return 1
	fi
	IFS='|' read -r CMP_A_MS CMP_B_MS CMP_RATIO CMP_A_WORKERS CMP_B_WORKERS <<<"$out"
	v=$(verdict "$CMP_RATIO" "$op" "$target")
	printf '  A %s ms, B %s ms (medians of %d); A/B = %s (median of %d pairs); target %s %s: %s   (workers launched: A %s, B %s; %s s)\n' \
		"$CMP_A_MS" "$CMP_B_MS" "$REPEAT" "$CMP_RATIO" "$REPEAT" "$op" "$target" "$v" \
		"$CMP_A_WORKERS" "$CMP_B_WORKERS" "$(secs_since "$t0")"
	if [ -n "${CMP_ROWS:-}" ]; then
		awk -v a="$CMP_A_MS" -v b="$CMP_B_MS" -v n="$CMP_ROWS" \
			'BEGIN { printf "  (A - B) / rows = %.1f ns per row\n", (a - b) * 1e6 / n }'
	fi
	summary+=("$(printf '%-40s %10s %10s %7s   %-2s %-8s  %s' "$name" "$CMP_A_MS" "$CMP_B_MS" \
		"$CMP_RATIO" "$op" "$target" "$v")")
}

# step DESCRIPTION SQL...: runs the statements (psql -c each, unaligned output, printed
# indented) and says how long they took
step() {
	local what=$1 out t0 s args=()
	shift
	t0=$(now)
	for s in "$@"; do args+=(-c "$s"); done
	if ! out=$(psql_at "${args[@]}" 2>"$errf"); then
		report_error "$what" "$(cat "$errf")"
		return 1
	fi
	[ -z "$out" ] || sed 's/^/  /' <<<"$out"
	echo "  ($what: $(secs_since "$t0") s)"
}

# table DESCRIPTION QUERY: prints the result as an aligned table, indented
table() {
	local what=$1 out
	if ! out=$(psql_db -P footer=off -c "$2" 2>"$errf"); then
		report_error "$what" "$(cat "$errf")"
		return 1
	fi
	sed 's/^/  /' <<<"$out"
}

main() {
	local t_all
	t_all=$(now)
	if [ -n "${BENCH_STARTED:-}" ]; then touch "$BENCH_STARTED"; fi

	heading "Set-up: database $DB"
	# Every later session loads the library when it starts, so that the planner hook of the
	# join filters sees a session's first statement too (a superuser's setting)
	psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" \
		-c "ALTER DATABASE $DB SET session_preload_libraries = 'bloomfilter'"
	psql_db -c "CREATE EXTENSION bloomfilter" -c "CREATE EXTENSION pg_prewarm" -f scripts/bench_setup.sql
	echo "  server: $(psql_at -c 'SELECT version()')"
	echo "  shared_buffers $(psql_at -c 'SHOW shared_buffers'), work_mem $(psql_at -c 'SHOW work_mem'), jit $(psql_at -c 'SHOW jit'), max_parallel_workers_per_gather $(psql_at -c 'SHOW max_parallel_workers_per_gather') (serial comparisons)"
	echo "  parts: ${ONLY:-urls, join and tpch} (BENCH_ONLY)"

	if [ -z "$ONLY" ] || [ "$ONLY" = urls ]; then url_benchmarks; fi
	if [ -z "$ONLY" ] || [ "$ONLY" = join ]; then join_benchmarks; fi
	if [ -z "$ONLY" ] || [ "$ONLY" = tpch ]; then tpch_benchmarks; fi

	heading "Summary (A and B: median ms; ratio: median of per-pair A/B)"
	printf '%-40s %10s %10s %7s   %-11s  %s\n' "comparison" "A ms" "B ms" "ratio" "target" "verdict"
	printf '%s\n' "${summary[@]}"
	echo
	echo "SQL part: $(secs_since "$t_all") s"
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true
	[ $failures -eq 0 ]
}

# Everything on the table urls of BENCH_ROWS generated URLs: building, probing, stored
# filters, parallel builds, space, the false-positive rate, adding in a loop, row estimates
url_benchmarks() {
	local t0 N=$ROWS have_hll=0

	heading "Set-up: $N generated URLs"
	if [ "$(psql_at -c "SELECT count(*) FROM pg_available_extensions WHERE name = 'hll'")" = 1 ]; then
		psql_db -c "CREATE EXTENSION hll" && have_hll=1
	fi

	# Two sessions fill the table, one half each (this machine has two cores); the table is
	# unlogged, so that neither the load nor the runs wait on WAL or checkpoints.
	t0=$(now)
	psql_db -c "CREATE UNLOGGED TABLE urls (url text NOT NULL)"
	local half=$((N / 2)) pids=() pid rc=0
	psql_db -c "INSERT INTO urls SELECT bench.url(i) FROM generate_series(1, $half) AS i" &
	pids+=($!)
	psql_db -c "INSERT INTO urls SELECT bench.url(i) FROM generate_series($half + 1, $N) AS i" &
	pids+=($!)
	for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
	[ $rc = 0 ] || bf_die "could not fill the table urls"
	echo "  INSERT of $N rows, two sessions: $(secs_since "$t0") s"
	step "VACUUM (FREEZE, ANALYZE)" "VACUUM (FREEZE, ANALYZE) urls"
	step "pg_prewarm and a first scan" \
		"SELECT format('pg_prewarm: %s blocks of urls read into shared buffers', pg_prewarm('urls'))" \
		"SELECT format('table urls: %s rows, %s bytes per URL on average, %s (unlogged)', count(url),
		        round(avg(octet_length(url)), 1), pg_size_pretty(pg_table_size('urls'))) FROM urls"
	psql_at -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) SELECT count(url) FROM urls" |
		grep -m1 'Buffers:' | sed 's/^ */  a scan of urls after warming: /; s/$/ (no reads: all in shared buffers)/; /read=/s/ (no reads.*//'

	heading "Stored filters (table bench_filters; the default storage of the type)"
	local n1 n100 tenth=$((N / 10))
	n1=$(psql_at -c "SELECT bench.items_for_bytes(1024 * 1024)")
	n100=$(psql_at -c "SELECT bench.items_for_bytes(100 * 1024 * 1024)")
	echo "  1 MB blocked filter at 1 %: sized for $n1 items; 100 MB: for $n100 items"
	step "building the stored filters" \
		"CREATE UNLOGGED TABLE bench_filters (id int PRIMARY KEY, what text, f bloomfilter)" \
		"INSERT INTO bench_filters SELECT 1, 'all $N URLs, sized for $N', bloomfilter_agg(url, $N, 0.01) FROM urls" \
		"INSERT INTO bench_filters SELECT 2, 'all $N URLs, 1 MB (sized for $n1)', bloomfilter_agg(url, $n1, 0.01) FROM urls" \
		"INSERT INTO bench_filters SELECT 3, 'all $N URLs, 100 MB (sized for $n100)', bloomfilter_agg(url, $n100, 0.01) FROM urls" \
		"INSERT INTO bench_filters SELECT 4, '1000000 other URLs, 100 MB (sized for $n100)', bloomfilter_agg(bench.url(i), $n100, 0.01) FROM generate_series($N + 1, $N + 1000000) AS i" \
		"INSERT INTO bench_filters SELECT 5, 'URLs 1..$tenth, sized for $tenth', bloomfilter_agg(bench.url(i), $tenth, 0.01) FROM generate_series(1, $tenth) AS i" \
		"VACUUM ANALYZE bench_filters" \
		"SELECT format('pg_prewarm: %s + %s blocks of bench_filters and its TOAST table', pg_prewarm('bench_filters'), pg_prewarm(reltoastrelid)) FROM pg_class WHERE relname = 'bench_filters'"
	table "stored filters" "SELECT id, what, octet_length(f::bytea) AS bytes, pg_column_size(f) AS stored_bytes,
		        CASE WHEN pg_column_size(f) < octet_length(f::bytea) THEN 'compressed (pglz)' ELSE 'not compressed' END AS toast
		 FROM bench_filters ORDER BY id"
	echo "  (storage of the type: $(psql_at -c "SELECT CASE typstorage WHEN 'x' THEN 'extended: a filter that compresses is stored compressed, and a query decompresses it' WHEN 'e' THEN 'external: out of line, never compressed' WHEN 'm' THEN 'main' ELSE 'plain' END FROM pg_type WHERE typname = 'bloomfilter'"))"

	# The set-up's after-effects (dirty buffers written back, the kernel compacting memory
	# after the large filters were freed) would land on the first comparison: let them settle
	psql_at -c "CHECKPOINT" >/dev/null
	for _ in 1 2 3; do psql_at -c "SELECT count(url) FROM urls" >/dev/null; done

	heading "Comparisons (each: $REPEAT pairs, alternating AB / BA after one warm-up of each)"
	echo "  times: clock_timestamp() around EXECUTE of the statement in a PL/pgSQL function in the"
	echo "  server (planning included, nothing sent to the client); ratio = median of per-pair A/B"

	local build_a="SELECT x IS NOT NULL FROM (SELECT bloomfilter_agg(url, $N, 0.01) AS x FROM urls) s"
	CMP_ROWS=$N compare "build: agg vs count(url)" "<=" 1.3 "$build_a" \
		"SELECT x IS NOT NULL FROM (SELECT count(url) AS x FROM urls) s" || true

	if [ $have_hll = 1 ]; then
		CMP_ROWS=$N compare "build: agg vs hll_add_agg" "<" 1.0 "$build_a" \
			"SELECT x IS NOT NULL FROM (SELECT hll_add_agg(hll_hash_text(url)) AS x FROM urls) s" || true
	else
		echo
		echo "build: agg vs hll_add_agg"
		echo "  skipped: extension hll (Debian package postgresql-$PG_MAJOR-hll) is not installed"
		summary+=("$(printf '%-40s skipped (hll not installed)' "build: agg vs hll_add_agg")")
	fi

	CMP_ROWS=$N compare "probe: f @> url vs url <> ''" "<=" 1.3 \
		"SELECT count(*) FROM urls WHERE (SELECT f FROM bench_filters WHERE id = 1) @> url" \
		"SELECT count(*) FROM urls WHERE url <> ''" || true

	# The same two ratios under the server's default parallel settings (2 workers per
	# Gather), where the planner makes both sides parallel: each side's workers split the
	# table, and each adds what parallel query costs it (the workers' filters gathered and
	# merged; each worker's own copy of the probed filter)
	CMP_ROWS=$N compare "build, parallel: agg vs count(url)" "<=" 1.3 "$build_a" \
		"SELECT x IS NOT NULL FROM (SELECT count(url) AS x FROM urls) s" \
		"$DEFAULT_PARALLEL" "$DEFAULT_PARALLEL" || true
	CMP_ROWS=$N compare "probe, parallel: f @> url vs <> ''" "<=" 1.3 \
		"SELECT count(*) FROM urls WHERE (SELECT f FROM bench_filters WHERE id = 1) @> url" \
		"SELECT count(*) FROM urls WHERE url <> ''" "$DEFAULT_PARALLEL" "$DEFAULT_PARALLEL" || true

	CMP_ROWS=$N compare "probe: stored 100 MB vs 1 MB filter" "<=" 2 \
		"SELECT count(*) FROM urls WHERE (SELECT f FROM bench_filters WHERE id = 3) @> url" \
		"SELECT count(*) FROM urls WHERE (SELECT f FROM bench_filters WHERE id = 2) @> url" || true

	local d100 d1
	if d100=$(psql_at -c "SELECT round(bench.median_ms('SELECT octet_length(f::bytea || ''\\x''::bytea) FROM bench_filters WHERE id = 3', $REPEAT)::numeric, 1)") &&
		d1=$(psql_at -c "SELECT round(bench.median_ms('SELECT octet_length(f::bytea || ''\\x''::bytea) FROM bench_filters WHERE id = 2', $REPEAT)::numeric, 1)"); then
		echo "  for reference, fetching (detoasting) and copying the stored filter once, f::bytea || '\\x':"
		echo "  100 MB: $d100 ms, 1 MB: $d1 ms (medians of $REPEAT)"
	fi

	compare "union of two 100 MB vs bytes concat" "<=" 2 \
		"SELECT octet_length((a.f | b.f)::bytea) FROM bench_filters a, bench_filters b WHERE a.id = 3 AND b.id = 4" \
		"SELECT octet_length(a.f::bytea || b.f::bytea) FROM bench_filters a, bench_filters b WHERE a.id = 3 AND b.id = 4" || true

	if compare "parallel build (2 workers) vs serial" "<" 1.0 "$build_a" "$build_a" "$PARALLEL" ""; then
		[ "$CMP_A_WORKERS" -ge 1 ] ||
			echo "  note: no parallel worker was launched for A (max_worker_processes, or a plan without Gather)"
		local md5_serial md5_parallel md5_stored
		md5_serial=$(psql_at -c "SELECT md5(bloomfilter_agg(url, $N, 0.01)::bytea) FROM urls")
		md5_parallel=$(psql_at -c "SET max_parallel_workers_per_gather = 2" -c "SET parallel_setup_cost = 0" \
			-c "SET parallel_tuple_cost = 0" -c "SET min_parallel_table_scan_size = 0" \
			-c "SELECT md5(bloomfilter_agg(url, $N, 0.01)::bytea) FROM urls")
		md5_stored=$(psql_at -c "SELECT md5(f::bytea) FROM bench_filters WHERE id = 1")
		echo "  md5(f::bytea): parallel $md5_parallel, serial $md5_serial, stored (serial) $md5_stored"
		if [ -n "$md5_serial" ] && [ "$md5_serial" = "$md5_parallel" ] && [ "$md5_serial" = "$md5_stored" ]; then
			echo "  same bytes"
			summary+=("$(printf '%-40s same bytes' "parallel build: bytes vs serial")")
		else
			echo "  DIFFERENT BYTES"
			summary+=("$(printf '%-40s DIFFERENT BYTES' "parallel build: bytes vs serial")")
			failures=$((failures + 1))
		fi
	fi

	heading "Space: bits per item from bloomfilter_plan(1000000, p), against log2(1/p)"
	table "plan" "SELECT r AS p, p.variant, p.bits, p.bytes, p.hashes, round(p.bits_per_item::numeric, 2) AS bits_per_item,
		        round((ln(1 / r) / ln(2))::numeric, 2) AS lower_bound, round((p.bits_per_item / (ln(1 / r) / ln(2)))::numeric, 2) AS over_bound,
		        round(p.expected_fpr::numeric, 6) AS expected_fpr, p.supports_remove, p.supports_union
		 FROM (VALUES (0.01::float8), (0.001)) AS v(r), bloomfilter_plan(1000000, r) AS p
		 ORDER BY r DESC, p.variant" || true
	local bpi
	if bpi=$(psql_at -c "SELECT round(bits_per_item::numeric, 2) FROM bloomfilter_plan(1000000, 0.01) WHERE variant = 'blocked'" 2>/dev/null) && [ -n "$bpi" ]; then
		echo "  blocked at 1 %: $bpi bits per item; target <= 10.6: $(verdict "$bpi" "<=" 10.6)"
		summary+=("$(printf '%-40s %10s %10s %7s   %-2s %-8s  %s' "space: blocked bits/item at 1 %" "" "" "$bpi" "<=" 10.6 "$(verdict "$bpi" "<=" 10.6)")")
	fi

	heading "Measured false-positive rate of the blocked filter: 1,000,000 items, 1,000,000 strangers"
	local p fpr limit
	for p in 0.01 0.001; do
		t0=$(now)
		if fpr=$(psql_at -c "
			WITH f AS (SELECT bloomfilter_agg(bench.url(i), 1000000, $p) AS f FROM generate_series(1, 1000000) AS i)
			SELECT count(*) FILTER (WHERE f.f @> bench.url(i))::float8 / count(*)
			FROM f, generate_series($N + 1, $N + 1000000) AS i" 2>"$errf"); then
			limit=$(awk -v p="$p" 'BEGIN { printf "%.6f", p + 3 * sqrt(p * (1 - p) / 1000000) }')
			echo "  p = $p: measured $fpr; target <= $p (allowing 3 sigma of sampling: <= $limit): $(verdict "$fpr" "<=" "$limit")   ($(secs_since "$t0") s)"
			summary+=("$(printf '%-40s %10s %10s %7s   %-2s %-8s  %s' "fpr: blocked, n = 1e6, p = $p" "" "" "$(printf '%.5f' "$fpr")" "<=" "$limit" "$(verdict "$fpr" "<=" "$limit")")")
		else
			report_error "measured fpr at $p" "$(cat "$errf")"
		fi
	done

	heading "Adding in a loop: 10,000 single adds f := f || x in PL/pgSQL, against the fast paths"
	local server_num
	server_num=$(psql_at -c "SHOW server_version_num")
	if [ "$server_num" -ge 180000 ]; then
		echo "  PostgreSQL $((server_num / 10000)) changes the variable's filter in place (bloomfilter_modify_support):"
		echo "  the first || copies it once, the others add to it.  Target: a loop add into the 100 MB"
		echo "  filter costs at most 3 x bloomfilter_add_all's per-item cost (the same bytes required)."
	else
		echo "  PostgreSQL $((server_num / 10000)) copies the filter on every ||: PL/pgSQL updates a variable in place"
		echo "  only for array_append/array_prepend (PostgreSQL 18 opens this to extensions, and there"
		echo "  the loop meets its target: make bench PG_MAJOR=18).  The fast paths are"
		echo "  bloomfilter_add_all(f, array) and the aggregate."
	fi
	echo "  Each loop stops after $LOOP_SECONDS s (BENCH_LOOP_SECONDS); add_all and agg: medians of $REPEAT."
	printf '  %-7s %11s %7s %9s %10s %10s %12s %10s %s\n' "filter" "bytes" "adds" "seconds" "us/add" "loop us" "add_all us" "agg us" "same filter"
	local label items out
	for label in "100 KB:$((100 * 1024))" "100 MB:$((100 * 1024 * 1024))"; do
		t0=$(now)
		items=$(psql_at -c "SELECT bench.items_for_bytes(${label#*:})")
		if out=$(psql_at -c "SELECT bytes, adds, round(seconds::numeric, 2), round(us_per_add::numeric, 2),
				round(loop_us::numeric, 3), round(add_all_us::numeric, 3), round(agg_us::numeric, 3),
				coalesce(same_filter::text, 'n/a (loop stopped early)')
				FROM bench.loop_add($items, 10000, $LOOP_SECONDS, $REPEAT)" 2>"$errf"); then
			IFS='|' read -r b a s u l aa ag same <<<"$out"
			printf '  %-7s %11s %7s %9s %10s %10s %12s %10s %s\n' "${label%%:*}" "$b" "$a" "$s" "$u" "$l" "$aa" "$ag" "$same"
			summary+=("$(printf '%-40s %s us per add; add_all %s, agg %s us per item (single add = %s x add_all)' \
				"loop add: ${label%%:*} filter" "$u" "$aa" "$ag" "$(awk -v u="$u" -v a="$aa" 'BEGIN { printf "%.2f", u / a }')")")
			[ "$same" != false ] || { echo "  the loop, add_all and the aggregate built DIFFERENT filters"; failures=$((failures + 1)); }
			if [ "${label%%:*}" = "100 MB" ] && [ "$server_num" -ge 180000 ]; then
				local ratio
				ratio=$(awk -v u="$u" -v a="$aa" 'BEGIN { printf "%.3f", u / a }')
				echo "  loop add per item / add_all per item, 100 MB filter: $ratio (target <= 3: $(verdict "$ratio" "<=" 3))"
				summary+=("$(printf '%-40s %10s %10s %7s   %-2s %-8s  %s' "loop add vs add_all: 100 MB, per item" \
					"$u" "$aa" "$ratio" "<=" 3 "$(verdict "$ratio" "<=" 3)")")
			fi
		else
			report_error "loop add ${label%%:*}" "$(cat "$errf")"
		fi
	done
	echo "  (us/add: per f := f || x; loop us: the same loop with y := x instead, per item;"
	echo "   add_all us and agg us: per item, one call over the 10,000-item array)"

	heading "Row estimates of WHERE f @> url against the actual rows (printed only)"
	local q est actual filt
	printf '  %-58s %12s %12s\n' "filter" "estimated" "actual"
	for filt in "(SELECT f FROM bench_filters WHERE id = 1)|scalar subquery: all $N URLs" \
		"(SELECT f FROM bench_filters WHERE id = 5)|scalar subquery: URLs 1..$tenth"; do
		q="SELECT url FROM urls WHERE ${filt%%|*} @> url"
		if est=$(psql_at -v q="$q" 2>"$errf" <<<"SELECT round(bench.estimated_rows(:'q'));") &&
			actual=$(psql_at -c "SELECT count(*) FROM urls WHERE ${filt%%|*} @> url" 2>"$errf"); then
			printf '  %-58s %12s %12s\n' "${filt#*|}" "$est" "$actual"
		else
			report_error "row estimate, ${filt#*|}" "$(cat "$errf")"
		fi
	done
	# the same filter as a constant in the query text
	if est=$(psql_at -c "SELECT round(bench.estimated_rows(format('SELECT url FROM urls WHERE %L::bloomfilter @> url', f::text))) FROM bench_filters WHERE id = 5" 2>"$errf"); then
		printf '  %-58s %12s %12s\n' "constant (the same filter as a literal)" "$est" "${actual:-?}"
	else
		report_error "row estimate, constant filter" "$(cat "$errf")"
	fi

	# shared buffers for the join tables
	psql_at -c "DROP TABLE IF EXISTS urls, bench_filters" >/dev/null
}

# scaled N: N rows at BENCH_JOIN_SCALE (at least 100)
scaled() {
	awk -v n="$1" -v s="$JOIN_SCALE" 'BEGIN { v = int(n * s + 0.5); print (v < 100 ? 100 : v) }'
}

# The tables of the join comparisons, filled by two sessions at once (this machine has two
# cores).  Unlogged and without indexes: the plans are the hash joins over sequential scans
# that the join filters are for.  Keys come from bench.rnd, the same on every run.
join_tables() {
	local pids=() pid rc=0 i cols='' plan_tables='' tables=jf_plan0
	# Each session adds half of jf_urls, the URLs of doc/performance.md's join pre-filter.
	# The first makes jf_probe, 5 % of whose rows have a partner among jf_build's keys
	# 1..build and the others a key above them (jf_build carries a 33-byte note, so that its
	# hash table outgrows work_mem), and the large dimensions jf_customer and jf_supplier.
	psql_db -c "CREATE UNLOGGED TABLE jf_urls (url text NOT NULL)"
	psql_db -v probe="$J_PROBE" -v build="$J_BUILD" -v customers="$J_CUSTOMERS" \
		-v suppliers="$J_SUPPLIERS" -v urls="$J_URLS" >/dev/null <<'SQL' &
CREATE UNLOGGED TABLE jf_build AS
SELECT k, md5(k::text) AS note FROM generate_series(1, :build) AS k;
CREATE UNLOGGED TABLE jf_probe AS
SELECT (CASE WHEN bench.rnd(i, 1) % 100 < 5 THEN 1 + bench.rnd(i, 2) % :build
             ELSE :build + 1 + bench.rnd(i, 2) % (9 * :build) END)::int AS k,
       (bench.rnd(i, 3) % 1000)::int AS amount
FROM generate_series(1, :probe) AS i;
CREATE UNLOGGED TABLE jf_customer AS
SELECT i AS id, (bench.rnd(i, 4) % 25)::int AS segment FROM generate_series(1, :customers) AS i;
CREATE UNLOGGED TABLE jf_supplier AS
SELECT i AS id, (bench.rnd(i, 5) % 5)::int AS region FROM generate_series(1, :suppliers) AS i;
VACUUM (FREEZE, ANALYZE) jf_build, jf_probe, jf_customer, jf_supplier;
INSERT INTO jf_urls SELECT bench.url(i) FROM generate_series(1, :urls / 2) AS i;
SQL
	pids+=($!)
	# The second: jf_sales, the fact table of both star joins (a day of the two years of
	# jf_date, a customer and a supplier of the large dimensions and of the small ones), the
	# small dimensions and jf_date, and jf_hot, a tenth of whose URLs are in jf_urls
	psql_db -v sales="$J_SALES" -v customers="$J_CUSTOMERS" -v suppliers="$J_SUPPLIERS" \
		-v small_customers="$J_SMALL_CUSTOMERS" -v small_suppliers="$J_SMALL_SUPPLIERS" \
		-v urls="$J_URLS" -v hot="$J_HOT" >/dev/null <<'SQL' &
CREATE UNLOGGED TABLE jf_sales AS
SELECT (1 + bench.rnd(i, 6) % :customers)::int AS customer_id,
       (1 + bench.rnd(i, 7) % :suppliers)::int AS supplier_id,
       (1 + bench.rnd(i, 8) % :small_customers)::int AS small_customer_id,
       (1 + bench.rnd(i, 9) % :small_suppliers)::int AS small_supplier_id,
       (1 + bench.rnd(i, 10) % 731)::int AS date_id,
       (bench.rnd(i, 11) % 1000)::int AS amount
FROM generate_series(1, :sales) AS i;
CREATE UNLOGGED TABLE jf_date AS
SELECT i AS id, date '2022-12-31' + i AS day FROM generate_series(1, 731) AS i;
CREATE UNLOGGED TABLE jf_small_customer AS
SELECT i AS id, (bench.rnd(i, 4) % 25)::int AS segment FROM generate_series(1, :small_customers) AS i;
CREATE UNLOGGED TABLE jf_small_supplier AS
SELECT i AS id, (bench.rnd(i, 5) % 5)::int AS region FROM generate_series(1, :small_suppliers) AS i;
CREATE UNLOGGED TABLE jf_hot AS
SELECT bench.url(i * 10) AS url FROM generate_series(1, :hot / 10) AS i
UNION ALL
SELECT bench.url(:urls + i) FROM generate_series(1, :hot - :hot / 10) AS i;
VACUUM (FREEZE, ANALYZE) jf_sales, jf_date, jf_small_customer, jf_small_supplier, jf_hot;
INSERT INTO jf_urls SELECT bench.url(i) FROM generate_series(:urls / 2 + 1, :urls) AS i;
SQL
	pids+=($!)
	for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
	[ $rc = 0 ] || return 1
	psql_db -c "VACUUM (FREEZE, ANALYZE) jf_urls"

	# ten small tables for the planning time: jf_plan0 (100 rows) with a key of each of
	# jf_plan1 .. jf_plan9 (10 rows each)
	for i in 1 2 3 4 5 6 7 8 9; do
		cols+="${cols:+, }(1 + bench.rnd(i, $((20 + i))) % 10)::int AS d$i"
		plan_tables+="CREATE UNLOGGED TABLE jf_plan$i AS SELECT i AS id, 'item ' || i AS name FROM generate_series(1, 10) AS i; "
		tables+=", jf_plan$i"
	done
	psql_db -c "CREATE UNLOGGED TABLE jf_plan0 AS SELECT $cols FROM generate_series(1, 100) AS i; $plan_tables" \
		-c "VACUUM (FREEZE, ANALYZE) $tables"
}

# join_plan QUERY: the plan of QUERY with join filters on, with the rows each node returned
# (and removed)
join_plan() {
	local out
	if ! out=$(psql_at -v q="$1" -v s="$JF_ON" 2>"$errf" <<'SQL'
SELECT * FROM bench.explain(:'q', 'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF', :'s');
SQL
	); then
		report_error "plan of $1" "$(cat "$errf")"
		return 1
	fi
	echo "  plan of A (EXPLAIN ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF):"
	sed 's/^/    /' <<<"$out"
}

# join_rows NAME QUERY_A QUERY_B: do QUERY_A with join filters on and QUERY_B with them off
# return the same rows?  A difference is a failure of the run.
join_rows() {
	local out same a_rows b_rows a_first b_first
	if ! out=$(psql_at -v qa="$2" -v qb="$3" -v sa="$JF_ON" -v sb="$JF_OFF" 2>"$errf" <<'SQL'
SELECT same, a_rows, b_rows, a_first, b_first FROM bench.same_rows(:'qa', :'qb', :'sa', :'sb');
SQL
	); then
		report_error "$1: rows" "$(cat "$errf")"
		return 1
	fi
	IFS='|' read -r same a_rows b_rows a_first b_first <<<"$out"
	JOIN_CHECKED=$((JOIN_CHECKED + 1))
	if [ "$same" = t ]; then
		echo "  rows: the same with A and B ($a_rows; the first in text order: $a_first)"
	else
		echo "  DIFFERENT ROWS: A $a_rows (the first in text order: $a_first), B $b_rows (the first: $b_first)"
		JOIN_DIFFERENT+=("$1")
		failures=$((failures + 1))
	fi
}

# join_compare NAME TARGET QUERY_A QUERY_B [plan]: compare with join filters on for A and
# off for B, then the rows of both; with "plan", also A's plan
join_compare() {
	compare "$1" "<=" "$2" "$3" "$4" "$JF_ON" "$JF_OFF" || return 0
	if [ "${5:-}" = plan ]; then join_plan "$3" || true; fi
	join_rows "$1" "$3" "$4" || true
}

# Automatic Bloom join filters (doc/join-filters-design.md): the same query with
# bloomfilter.join_filter on (A) and off (B), serial, at the default work_mem; the targets
# are the issue's
join_benchmarks() {
	local t0 i q10 from where
	J_PROBE=$(scaled 3000000)
	J_BUILD=$(scaled 300000)
	J_SALES=$(scaled 4000000)
	J_CUSTOMERS=$(scaled 3000000)
	J_SUPPLIERS=$(scaled 200000)
	J_SMALL_CUSTOMERS=$(scaled 30000)
	J_SMALL_SUPPLIERS=$(scaled 2000)
	J_URLS=$(scaled 3000000)
	J_HOT=$(scaled 300000)
	JOIN_CHECKED=0
	JOIN_DIFFERENT=()

	heading "Set-up: the tables of the join comparisons (BENCH_JOIN_SCALE=$JOIN_SCALE)"
	t0=$(now)
	join_tables || bf_die "could not make the tables of the join comparisons"
	echo "  CREATE TABLE AS and VACUUM (FREEZE, ANALYZE), two sessions: $(secs_since "$t0") s"
	step "pg_prewarm" "SELECT format('pg_prewarm: %s blocks of the jf_ tables read into shared buffers', sum(pg_prewarm(oid)))
		 FROM pg_class WHERE relname LIKE 'jf\_%' AND relkind = 'r'"
	table "join tables" "SELECT relname AS table, bench.count_rows(oid) AS rows, pg_size_pretty(pg_table_size(oid)) AS size
		 FROM pg_class WHERE relname LIKE 'jf\_%' AND relkind = 'r' AND relname NOT LIKE 'jf\_plan_' ORDER BY relname"
	echo "  and jf_plan0 (100 rows) .. jf_plan9 (10 rows each)"
	echo "  (set-up of the join tables: $(secs_since "$t0") s)"
	psql_at -c "CHECKPOINT" >/dev/null

	heading "Automatic join filters (each: $REPEAT pairs, A: bloomfilter.join_filter = on, B: off)"
	if [ "$(psql_at -c "SELECT count(*) FROM pg_settings WHERE name = 'bloomfilter.join_filter'")" = 1 ]; then
		JF_ON="bloomfilter.join_filter=on"
		JF_OFF="bloomfilter.join_filter=off"
	else
		echo "  note: the installed extension has no setting bloomfilter.join_filter (the join filters"
		echo "  are not built yet): A and B run with the same settings, and should take the same time"
		JF_ON=
		JF_OFF=
	fi
	echo "  serial plans, work_mem $(psql_at -c 'SHOW work_mem') (hash joins may use $(psql_at -c 'SHOW hash_mem_multiplier') x that); times taken in the"
	echo "  server around EXECUTE of the statement, planning included; ratio = median of per-pair A/B"

	join_compare "join filter: spilling hash join" 0.4 \
		"SELECT count(*), sum(p.amount), sum(length(b.note)) FROM jf_probe p JOIN jf_build b ON b.k = p.k" \
		"SELECT count(*), sum(p.amount), sum(length(b.note)) FROM jf_probe p JOIN jf_build b ON b.k = p.k" plan

	local star="SELECT count(*), sum(f.amount) FROM jf_sales f
		JOIN jf_customer c ON c.id = f.customer_id JOIN jf_supplier s ON s.id = f.supplier_id
		JOIN jf_date d ON d.id = f.date_id
		WHERE c.segment = 7 AND s.region = 2 AND d.day >= date '2024-01-01'"
	star=$(printf '%s' "$star" | tr -s '\t\n' ' ')
	join_compare "join filter: star, large dimensions" 0.5 "$star" "$star" plan

	star=${star//jf_customer c ON c.id = f.customer_id/jf_small_customer c ON c.id = f.small_customer_id}
	star=${star//jf_supplier s ON s.id = f.supplier_id/jf_small_supplier s ON s.id = f.small_supplier_id}
	join_compare "join filter: star, small dimensions" 1.03 "$star" "$star"

	local fk="SELECT c.segment, count(*), sum(f.amount) FROM jf_sales f JOIN jf_customer c ON c.id = f.customer_id GROUP BY c.segment"
	join_compare "join filter: FK join, every row matches" 1.03 "$fk" "$fk"

	local hot="SELECT count(*) FROM jf_urls v JOIN jf_hot h USING (url)"
	join_compare "join filter: urls/hot vs hand pre-filter" 1.10 "$hot" \
		"$hot WHERE (SELECT bloomfilter_agg(url, $J_HOT, 0.01) FROM jf_hot) @> v.url"

	from="jf_plan0 f"
	where=
	for i in 1 2 3 4 5 6 7 8 9; do
		from+=", jf_plan$i d$i"
		where+="${where:+ AND }d$i.id = f.d$i"
	done
	q10="SELECT count(*), sum(length(d1.name || d9.name)) FROM $from WHERE $where"
	if compare "join filter: planning, 10-table join" "<=" 1.10 "EXPLAIN $q10" "EXPLAIN $q10" "$JF_ON" "$JF_OFF"; then
		join_rows "join filter: planning, 10-table join" "$q10" "$q10" || true
	fi

	if [ ${#JOIN_DIFFERENT[@]} = 0 ]; then
		summary+=("$(printf '%-40s same rows in %d queries' "join filter: rows, on vs off" "$JOIN_CHECKED")")
	else
		summary+=("$(printf '%-40s DIFFERENT ROWS: %s' "join filter: rows, on vs off" "${JOIN_DIFFERENT[*]}")")
	fi
}

# median_of NUMBER...: their median (empty for none)
median_of() {
	[ $# -gt 0 ] || return 0
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
		END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# The TPC-H-shaped part: the eight tables of scripts/bench_tpch_schema.sql at scale factor
# BENCH_TPCH_SCALE, in two sessions; primary keys, foreign keys and their indexes; ANALYZE
tpch_tables() {
	local pids=() pid rc=0
	psql_db -f scripts/bench_tpch_schema.sql -c "SELECT bench.tpch_create_tables()" >/dev/null || return 1
	psql_db -c "CALL bench.tpch_load_orders($TPCH_SCALE)" &
	pids+=($!)
	psql_db -c "CALL bench.tpch_load_parts($TPCH_SCALE)" &
	pids+=($!)
	for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
	[ $rc = 0 ] || return 1
	echo "  generated (two sessions): $(secs_since "$t0") s"
	pids=()
	psql_db -c "SELECT bench.tpch_add_keys('orders')" >/dev/null &
	pids+=($!)
	psql_db -c "SELECT bench.tpch_add_keys('parts')" >/dev/null &
	pids+=($!)
	for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
	[ $rc = 0 ] || return 1
	psql_db -c "SELECT bench.tpch_add_keys('foreign')" >/dev/null || return 1
	echo "  primary keys, indexes and foreign keys: $(secs_since "$t0") s"
	psql_db -c "VACUUM (FREEZE, ANALYZE) region, nation, supplier, customer, part, partsupp, orders, lineitem" || return 1
	psql_db -v scale="$TPCH_SCALE" -f scripts/bench_tpch_queries.sql >/dev/null
}

# tpch_setting LABEL SHORT SETTINGS TARGET: the 22 queries under SETTINGS (work_mem and
# parallel workers) with the join filters off, on and always; a line per query, the sums,
# and the targets: the sum of on within TARGET x off, and no query's on/off above 1.03
tpch_setting() {
	local label=$1 short=$2 base=$3 target=$4 n out t0
	local off on always r_on r_always f_on f_always on_is_off timed rows same_on same_always replanned
	local sum_off=0 sum_on=0 sum_always=0 slow=() noise=0 rows_note mark replans=()

	heading "TPC-H, $label: bloomfilter.join_filter off, on and always ($TPCH_REPEAT rounds each)"
	printf '  %-5s %10s %10s %7s %10s %7s  %-9s %s\n' "query" "off ms" "on ms" "on/off" \
		"always ms" "alw/off" "filters" "rows (with on and always, against off)"
	t0=$(now)
	for n in $(seq 1 22); do
		if ! out=$(psql_at -v n="$n" -v base="$base" -v reps="$TPCH_REPEAT" 2>"$errf" <<'SQL'
SELECT round(off_ms::numeric, 1), round(on_ms::numeric, 1), round(always_ms::numeric, 1),
       round(on_ratio::numeric, 3), round(always_ratio::numeric, 3),
       filters_on, filters_always, on_is_off, always_run, nrows, same_on, same_always,
       on_replanned
FROM bench.tpch_query(:n, :'base', :reps);
SQL
		); then
			report_error "TPC-H Q$n, $label" "$(cat "$errf")"
			continue
		fi
		IFS='|' read -r off on always r_on r_always f_on f_always on_is_off timed rows same_on same_always \
			replanned <<<"$out"
		if [ "$same_on" = t ] && [ "$same_always" = t ]; then
			rows_note="same ($rows)"
		else
			rows_note="MISMATCH: on $([ "$same_on" = t ] && echo same || echo DIFFERENT), always $([ "$same_always" = t ] && echo same || echo DIFFERENT) ($rows rows off)"
			TPCH_MISMATCH+=("Q$n, $label")
			failures=$((failures + 1))
		fi
		[ "$timed" = t ] || always="(= on)"
		mark=
		if [ "$on_is_off" = t ]; then mark=" (on's plan is off's)"; fi
		if [ "$replanned" = t ]; then
			mark=" (on chose another plan)"
			replans+=("Q$n")
		fi
		if awk -v r="$r_on" 'BEGIN { exit !(r > 1.03) }'; then
			slow+=("Q$n $r_on")
			mark=" *$mark"
			[ "$on_is_off" != t ] || noise=$((noise + 1))
		fi
		printf '  %-5s %10s %10s %7s %10s %7s  %-9s %s%s\n' "Q$n" "$off" "$on" "$r_on" "$always" \
			"$r_always" "$f_on / $f_always" "$rows_note" "$mark"
		[ "$timed" = t ] || always=$on
		sum_off=$(awk -v a="$sum_off" -v b="$off" 'BEGIN { print a + b }')
		sum_on=$(awk -v a="$sum_on" -v b="$on" 'BEGIN { print a + b }')
		sum_always=$(awk -v a="$sum_always" -v b="$always" 'BEGIN { print a + b }')
		if [ "$f_always" -gt "$f_on" ]; then
			[ -n "${TPCH_LEAD_SETTING[$n]:-}" ] || TPCH_LEAD_SETTING[$n]="$short|$base"
			TPCH_LEADS+=("$(printf '%-5s %-14s filters on %s, always %s; on/off %s, always/off %s%s' "Q$n" "$short" \
				"$f_on" "$f_always" "$r_on" "$r_always" \
				"$(awk -v a="$r_always" -v o="$r_on" 'BEGIN { if (a < o - 0.05) print "  (always gains)" }')")")
		fi
	done
	local r_sum r_sum_always v v_slow
	sum_off=$(printf '%.1f' "$sum_off")
	sum_on=$(printf '%.1f' "$sum_on")
	sum_always=$(printf '%.1f' "$sum_always")
	r_sum=$(awk -v a="$sum_on" -v b="$sum_off" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }')
	r_sum_always=$(awk -v a="$sum_always" -v b="$sum_off" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }')
	printf '  %-5s %10s %10s %7s %10s %7s\n' "sum" "$sum_off" "$sum_on" "$r_sum" "$sum_always" "$r_sum_always"
	echo "  (filters: join filters placed with on / with always; always \"(= on)\": the same plan as on,"
	echo "   not run again; * marks a query whose on/off is above 1.03; where on's plan is off's,"
	echo "   on/off measures the noise of this machine; \"on chose another plan\": PostgreSQL's plan"
	echo "   at on, the extension's nodes aside, is not off's: the planner chose it for a filter;"
	echo "   $(secs_since "$t0") s)"
	echo "  plans on chose for a filter: ${#replans[@]}${replans[*]:+ (${replans[*]})}"
	v=$(verdict "$r_sum" "<=" "$target")
	echo "  sum of the 22, on / off: $r_sum; target <= $target: $v   (always / off: $r_sum_always)"
	if [ ${#slow[@]} = 0 ]; then
		v_slow="meets target"
		echo "  slowest query with on: none above 1.03 x off; target: none: $v_slow"
	else
		v_slow="above target"
		echo "  queries above 1.03 x off with on: ${slow[*]}; target: none: $v_slow"
		echo "  ($noise of the ${#slow[@]} with on's plan the same as off's)"
	fi
	summary+=("$(printf '%-40s %10s %10s %7s   %-2s %-8s  %s' "tpch $short: sum of 22, on/off" "$sum_on" "$sum_off" "$r_sum" "<=" "$target" "$v")")
	summary+=("$(printf '%-40s %10s %10s %7s   %-11s  %s' "tpch $short: sum of 22, always/off" "$sum_always" "$sum_off" "$r_sum_always" "" "(the ceiling, printed only)")")
	summary+=("$(printf '%-40s %s' "tpch $short: plans on chose for a filter" "${#replans[@]}${replans[*]:+ (${replans[*]})}")")
	summary+=("$(printf '%-40s %s' "tpch $short: queries on/off > 1.03" "${#slow[@]}${slow[*]:+ (${slow[*]}; $noise with the plan of off)}; target none: $v_slow")")
}

# What the filters that always places remove, query by query (EXPLAIN ANALYZE at always in
# the first setting where the query placed more filters at always than at on)
tpch_lead_sites() {
	local n out
	echo
	echo "  What always's filters removed (EXPLAIN ANALYZE at always, in the first setting above):"
	for n in "${!TPCH_LEAD_SETTING[@]}"; do
		echo "  Q$n, ${TPCH_LEAD_SETTING[$n]%%|*}:"
		if ! out=$(psql_at -v n="$n" -v s="${TPCH_LEAD_SETTING[$n]#*|},bloomfilter.join_filter=always" 2>"$errf" <<'SQL'
SELECT format('    %-40s %-34s removed %s of %s rows (%s %%)%s', site, filters, removed, passed + removed,
              CASE WHEN passed + removed > 0 THEN round((100 * removed / (passed + removed))::numeric, 1) ELSE 0 END,
              CASE WHEN paused THEN ', paused' ELSE '' END)
FROM bench.join_filter_sites((SELECT q FROM bench.tpch_queries WHERE n = :n), :'s');
SQL
		); then
			report_error "TPC-H Q$n: filter sites" "$(cat "$errf")"
			continue
		fi
		echo "$out"
	done
}

# The false-positive rate of the join filter at the scan of lineitem in a Q3-shaped join,
# built by a Parallel Hash and by a serial Hash: from EXPLAIN ANALYZE's rows of the scan
# (passed) and rows removed by the filter, against the rows with a partner (the join's count)
tpch_false_positives() {
	local q settings_serial settings_parallel matches label s i out fps_serial=() fps_parallel=()
	local tested passed scanp build brows planned kb ph paused state fp med_serial med_parallel
	q="SELECT count(*) FROM customer, orders, lineitem
	   WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey
	   AND o_orderdate < date '1995-03-15' AND l_shipdate > date '1995-03-15'"
	q=$(printf '%s' "$q" | tr -s '\t\n' ' ')
	settings_serial="bloomfilter.join_filter=always,enable_nestloop=off,enable_mergejoin=off,work_mem=64MB"
	settings_parallel="$settings_serial,$PARALLEL"

	heading "TPC-H: false positives of a Parallel Hash's join filter against a serial Hash's (Q3's join)"
	echo "  $q"
	echo "  bloomfilter.join_filter = always, enable_nestloop and enable_mergejoin off (hash joins),"
	echo "  work_mem 64MB; parallel: 2 workers, parallel costs 0.  The filter tested at the scan of"
	echo "  lineitem holds the order keys of orders joined with customer; its design rate is 1 %."
	if ! matches=$(psql_at -c "SET bloomfilter.join_filter = off" -c "$q" 2>"$errf"); then
		report_error "Q3 join: true matches" "$(cat "$errf")"
		return 0
	fi
	echo "  lineitem rows with a partner (the join's count, join filters off): $matches"
	echo "  false-positive rate = (rows passed - $matches) / (rows tested - $matches)"
	printf '  %-9s %3s %10s %9s %8s  %-19s %8s  %-13s %s\n' "plan" "run" "tested" "passed" "fp rate" \
		"keys added/planned" "filter" "processes" "filter state"
	printf '  %-9s %3s %10s %9s %8s  %-19s %8s  %-13s\n' "" "" "" "" "" "" "" "scan/build"
	for i in $(seq 1 "$TPCH_REPEAT"); do
		for label in serial parallel; do
			[ $label = serial ] && s=$settings_serial || s=$settings_parallel
			if ! out=$(psql_at -v q="$q" -v s="$s" 2>"$errf" <<'SQL'
SELECT tested, passed, scan_processes, build_processes, build_rows, planned_keys, filter_kb,
       parallel_hash, paused, state
FROM bench.join_filter_test(:'q', :'s', 'lineitem');
SQL
			); then
				report_error "Q3 join: $label filter" "$(cat "$errf")"
				return 0
			fi
			IFS='|' read -r tested passed scanp build brows planned kb ph paused state <<<"$out"
			if [ -z "$tested" ]; then
				printf '  %-9s %3s  no join filter at the scan of lineitem\n' "$label" "$i"
				continue
			fi
			fp=$(awk -v t="$tested" -v p="$passed" -v m="$matches" 'BEGIN { printf "%.4f", (t > m) ? (p - m) / (t - m) : 0 }')
			[ $label = serial ] && fps_serial+=("$fp") || fps_parallel+=("$fp")
			printf '  %-9s %3s %10.0f %9.0f %8s  %-19s %8s  %-13s %s\n' "$label" "$i" "$tested" "$passed" "$fp" \
				"$(printf '%.0f / %s' "$brows" "$planned")" "$kb kB" "$scanp / $build" \
				"$state$([ "$ph" = t ] && echo ', Parallel Hash')$([ "$paused" = t ] && echo ', paused')"
		done
	done
	med_serial=$(median_of "${fps_serial[@]}")
	med_parallel=$(median_of "${fps_parallel[@]}")
	echo "  median false-positive rate: serial ${med_serial:-n/a}, Parallel Hash ${med_parallel:-n/a}" \
		"(worst: serial $(printf '%s\n' "${fps_serial[@]}" | sort -g | tail -1), parallel $(printf '%s\n' "${fps_parallel[@]}" | sort -g | tail -1))"
	echo "  (a filter is sized for its planned keys at 1 %: more keys added than planned raise the rate)"
	summary+=("$(printf '%-40s serial %s, Parallel Hash %s (medians of %d; design 0.01)' \
		"tpch Q3 join filter: fp rate" "${med_serial:-n/a}" "${med_parallel:-n/a}" "$TPCH_REPEAT")")
}

# A spilling hash join written with INSERT ... SELECT, with join filters on and off, against
# the same SELECT: the filter should be placed, and gain, in a write statement as well
tpch_insert_select() {
	local sel ins wm=256kB base out off on r f_on f_always batches d_on d_off
	sel="SELECT l_orderkey, l_linenumber, l_extendedprice, l_discount, o_orderdate, o_totalprice
	     FROM lineitem JOIN orders ON o_orderkey = l_orderkey
	     WHERE o_orderdate >= date '1995-01-01' AND o_orderdate < date '1996-01-01'"
	sel=$(printf '%s' "$sel" | tr -s '\t\n' ' ')
	ins="INSERT INTO tpch_copy $sel"
	base="work_mem=$wm,max_parallel_workers_per_gather=0"

	heading "TPC-H: a spilling INSERT ... SELECT, join filters on and off, against the same SELECT"
	psql_at -c "CREATE UNLOGGED TABLE tpch_copy AS $sel LIMIT 0" >/dev/null || return 0
	echo "  $ins"
	batches=$(psql_at -c "SET work_mem = '$wm'" -c "SET bloomfilter.join_filter = off" \
		-c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $sel" | sed -n 's/.*Batches: \([0-9]*\).*/\1/p' | head -1)
	echo "  serial, work_mem $wm: the hash join's build (orders of 1995) in ${batches:-?} batches;"
	echo "  each INSERT after an untimed TRUNCATE tpch_copy; $TPCH_REPEAT rounds each"
	printf '  %-18s %10s %10s %7s  %s\n' "statement" "off ms" "on ms" "on/off" "filters placed: on / always"
	for what in INSERT SELECT; do
		local q=$sel prep=
		if [ $what = INSERT ]; then q=$ins; prep="TRUNCATE tpch_copy"; fi
		if ! out=$(psql_at -v name="tpch $what" -v q="$q" -v base="$base" -v prep="$prep" -v reps="$TPCH_REPEAT" 2>"$errf" <<'SQL'
SELECT round(t.ms[1]::numeric, 1), round(t.ms[2]::numeric, 1), round(t.ratio[2]::numeric, 3),
       (bench.plan_filters(:'q', :'base' || ',bloomfilter.join_filter=on')).filters,
       (bench.plan_filters(:'q', :'base' || ',bloomfilter.join_filter=always')).filters
FROM bench.time_sides(:'name', :'q', :reps,
	ARRAY[:'base' || ',bloomfilter.join_filter=off', :'base' || ',bloomfilter.join_filter=on'],
	nullif(:'prep', '')) AS t;
SQL
		); then
			report_error "tpch $what" "$(cat "$errf")"
			continue
		fi
		IFS='|' read -r off on r f_on f_always <<<"$out"
		printf '  %-18s %10s %10s %7s  %s / %s\n' "$([ $what = INSERT ] && echo 'INSERT ... SELECT' || echo 'SELECT')" \
			"$off" "$on" "$r" "$f_on" "$f_always"
		summary+=("$(printf '%-40s %10s %10s %7s   filters placed: on %s, always %s' "tpch spilling $what, on/off" "$on" "$off" "$r" "$f_on" "$f_always")")
	done
	# the rows inserted, with on and with off
	d_on=$(psql_at -c "SET work_mem = '$wm'" -c "SET bloomfilter.join_filter = on" -c "TRUNCATE tpch_copy" -c "$ins" \
		-c "SELECT n || ' ' || digest FROM bench.rows_digest('TABLE tpch_copy', '')")
	d_off=$(psql_at -c "SET work_mem = '$wm'" -c "SET bloomfilter.join_filter = off" -c "TRUNCATE tpch_copy" -c "$ins" \
		-c "SELECT n || ' ' || digest FROM bench.rows_digest('TABLE tpch_copy', '')")
	if [ -n "$d_on" ] && [ "$d_on" = "$d_off" ]; then
		echo "  rows inserted: the same with on and off (${d_on%% *})"
	else
		echo "  MISMATCH: the rows inserted differ: on ${d_on:-?}, off ${d_off:-?}"
		TPCH_MISMATCH+=("INSERT ... SELECT")
		failures=$((failures + 1))
	fi
	psql_at -c "DROP TABLE tpch_copy" >/dev/null
}

# TPC-H-shaped tables and queries (scripts/bench_tpch_*.sql) with the join filters off, on
# and always: serial and parallel, at work_mem 64MB and 4MB; the targets are the issue's
tpch_benchmarks() {
	local t0 t_part
	TPCH_MISMATCH=()
	TPCH_LEADS=()
	TPCH_LEAD_SETTING=()
	t_part=$(now)

	heading "Set-up: TPC-H-shaped tables at scale factor $TPCH_SCALE (BENCH_TPCH_SCALE)"
	t0=$(now)
	tpch_tables || bf_die "could not make the TPC-H tables"
	echo "  (set-up of the TPC-H tables: $(secs_since "$t0") s)"
	step "pg_prewarm" "SELECT format('pg_prewarm: %s blocks of the TPC-H tables and their indexes read into shared buffers', sum(pg_prewarm(c.oid)))
		 FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'i')
		 AND c.relname ~ '^(region|nation|supplier|customer|part|partsupp|orders|lineitem)(_|$)'"
	table "TPC-H tables" "SELECT relname AS table, bench.count_rows(oid) AS rows, pg_size_pretty(pg_table_size(oid)) AS size,
		        pg_size_pretty(pg_indexes_size(oid)) AS indexes
		 FROM pg_class WHERE relname IN ('region', 'nation', 'supplier', 'customer', 'part', 'partsupp', 'orders', 'lineitem')
		   AND relnamespace = 'public'::regnamespace
		 ORDER BY pg_table_size(oid)"
	psql_at -c "CHECKPOINT" >/dev/null

	if [ "$(psql_at -c "SELECT count(*) FROM pg_settings WHERE name = 'bloomfilter.join_filter'")" != 1 ]; then
		echo "  skipped: the installed extension has no setting bloomfilter.join_filter"
		summary+=("$(printf '%-40s skipped (the extension lacks it)' "tpch")")
		return 0
	fi
	echo
	echo "  Each query: EXPLAIN with on and always (the filters placed), its rows with off, on and"
	echo "  always (compared as sorted text), then one untimed run of each side and $TPCH_REPEAT rounds of"
	echo "  off, on (and always, where its plan differs from on's) in rotating order.  Times: in the"
	echo "  server around EXECUTE, planning included, every row fetched; ms are medians, the ratios"
	echo "  medians of the per-round ratios, the sums sums of the medians."

	tpch_setting "serial, work_mem 64MB" "serial 64MB" "work_mem=64MB,max_parallel_workers_per_gather=0" 0.90
	tpch_setting "parallel (2 workers), work_mem 64MB" "parallel 64MB" "work_mem=64MB,$DEFAULT_PARALLEL" 0.93
	tpch_setting "serial, work_mem 4MB" "serial 4MB" "work_mem=4MB,max_parallel_workers_per_gather=0" 0.90
	tpch_setting "parallel (2 workers), work_mem 4MB" "parallel 4MB" "work_mem=4MB,$DEFAULT_PARALLEL" 0.93

	heading "TPC-H: where always places a filter that on does not"
	if [ ${#TPCH_LEADS[@]} = 0 ]; then
		echo "  nowhere"
	else
		printf '  %s\n' "${TPCH_LEADS[@]}"
		echo "  (\"always gains\": always / off more than 0.05 below on / off)"
		tpch_lead_sites
	fi

	tpch_false_positives
	tpch_insert_select

	if [ ${#TPCH_MISMATCH[@]} = 0 ]; then
		summary+=("$(printf '%-40s same rows in every query and setting' "tpch: rows, on and always vs off")")
	else
		summary+=("$(printf '%-40s MISMATCH: %s' "tpch: rows, on and always vs off" "${TPCH_MISMATCH[*]}")")
	fi
	echo
	echo "  (TPC-H part: $(secs_since "$t_part") s)"
}

if [ -n "${BENCH_REPORT:-}" ]; then
	main 2>&1 | tee -a "$BENCH_REPORT"
else
	main
fi
