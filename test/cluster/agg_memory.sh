#!/usr/bin/env bash
# test/cluster/agg_memory.sh - bloomfilter_agg holds the filter plus constant memory, not
# anything per row.
#
# Builds a filter sized for 10 million items (about 12 MB, the same for every run) over
# 1 million and 10 million integer rows, and over 2 million md5 strings, each in a fresh
# connection, and reads the backend's peak resident memory (VmHWM in /proc/<pid>/status)
# before and after the aggregate.  The rows come from generate_series in the target list
# (a ProjectSet node, one value per call), not from a function scan in FROM, which would
# first materialise them into a tuplestore.
#
# Passes when
#   - the aggregate's peak growth is at least the filter's size (the measurement sees it),
#   - the peak for 10 million rows exceeds the peak for 1 million rows by less than 8 MB
#     (keeping even one byte per row would add 9 MB),
#   - the peak for 2 million text rows exceeds the 1 million integer rows' peak by less
#     than 8 MB.
#
# Run by scripts/server-tests.sh inside the throwaway cluster (PG* variables set, the
# extension installed).  The server must run on this machine: the script reads
# /proc/<backend pid>/status.  Creates its own database and drops it at the end.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

db="bf_agg_memory_$$"
limit_kb=8192

export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
psql_admin() { psql -X -q -v ON_ERROR_STOP=1 -d postgres "$@"; }

cleanup() { psql_admin -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true; }
trap cleanup EXIT

psql_admin -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c "CREATE EXTENSION bloomfilter"

# measure ELEMENT-EXPRESSION ROWS
# one aggregate in a fresh connection; prints the lines "before <VmHWM kB>",
# "filter <bytes>" and "after <VmHWM kB>"
measure() {
	local expr=$1 rows=$2 out
	out=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" -v rows="$rows" <<SQL
-- JIT would add the LLVM's memory to the larger runs only
SET jit = off;
SELECT pg_backend_pid() AS pid \gset
-- load the library and warm the caches before the baseline
SELECT octet_length(bloomfilter_agg($expr, 1000, 0.01)::bytea) FROM (SELECT generate_series(1, 10) AS i) AS g \g /dev/null
\setenv BF_PID :pid
\! awk '/^VmHWM:/ { print "before", \$2 }' /proc/\$BF_PID/status
SELECT octet_length(bloomfilter_agg($expr, 10000000, 0.01)::bytea) AS filter_bytes
FROM (SELECT generate_series(1, :rows) AS i) AS g \gset
\echo filter :filter_bytes
\! awk '/^VmHWM:/ { print "after", \$2 }' /proc/\$BF_PID/status
SQL
	)
	echo "$out"
}

declare -A before after size
for run in "int_1e6|i|1000000" "int_1e7|i|10000000" "text_2e6|md5(i::text)|2000000"; do
	IFS='|' read -r label expr rows <<<"$run"
	t0=$EPOCHREALTIME
	out=$(measure "$expr" "$rows")
	t1=$EPOCHREALTIME
	before[$label]=$(awk '$1 == "before" { print $2 }' <<<"$out")
	after[$label]=$(awk '$1 == "after" { print $2 }' <<<"$out")
	size[$label]=$(awk '$1 == "filter" { print $NF }' <<<"$out")
	if [ -z "${before[$label]}" ] || [ -z "${after[$label]}" ] || [ -z "${size[$label]}" ]; then
		echo "FAIL: could not measure $label (is the server on this machine, /proc readable?):"
		echo "$out"
		exit 1
	fi
	printf '%-9s %9d rows  filter %6d kB  peak before %7d kB  after %7d kB  growth %7d kB  (%.1f s)\n' \
		"$label" "$rows" $((size[$label] / 1024)) "${before[$label]}" "${after[$label]}" \
		$((after[$label] - before[$label])) "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
done


filter_kb=$((size[int_1e7] / 1024))
growth_1e6=$((after[int_1e6] - before[int_1e6]))
d_rows=$((after[int_1e7] - after[int_1e6]))
d_text=$((after[text_2e6] - after[int_1e6]))

check "the same filter size for every run (${size[int_1e6]} = ${size[int_1e7]} = ${size[text_2e6]} bytes)" \
	test "${size[int_1e6]}" -eq "${size[int_1e7]}" -a "${size[int_1e6]}" -eq "${size[text_2e6]}"
check "the measurement sees the filter: growth over 1e6 rows ${growth_1e6} kB >= filter ${filter_kb} kB" \
	test "$growth_1e6" -ge "$filter_kb"
check "peak(1e7 rows) - peak(1e6 rows) = ${d_rows} kB < ${limit_kb} kB" \
	test "$d_rows" -lt "$limit_kb"
check "peak(2e6 text rows) - peak(1e6 integer rows) = ${d_text} kB < ${limit_kb} kB" \
	test "$d_text" -lt "$limit_kb"

# for the record: nodeAgg copies a new transition value into the aggregate context, so
# the first row briefly holds the filter twice
awk -v g="$growth_1e6" -v f="$filter_kb" 'BEGIN { printf "note: peak growth is %.2f x the filter size\n", g / f }'

if [ $fail -eq 0 ]; then
	echo "PASS: bloomfilter_agg over 1e7 rows peaks at ${after[int_1e7]} kB, ${d_rows} kB above 1e6 rows (filter ${filter_kb} kB)"
else
	echo "FAIL: bloomfilter_agg memory grows with the rows (1e6: ${after[int_1e6]} kB, 1e7: ${after[int_1e7]} kB, text 2e6: ${after[text_2e6]} kB)"
fi
exit $fail
