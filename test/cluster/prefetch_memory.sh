#!/usr/bin/env bash
# test/cluster/prefetch_memory.sh - the prefetching scan holds constant memory, not anything
# per row, whatever the elements' storage.
#
# Scans 40,000 elements of 8 kB stored out of line in TOAST (uncompressed: STORAGE
# EXTERNAL), as text, as bytea and as int[] (a type hashed through its send function),
# and 40,000 text elements compressed inline (STORAGE MAIN), with
#     SELECT count(*) FROM t WHERE (SELECT f FROM filter) @> col
# in one fresh connection per column: first with bloomfilter.prefetch_scan = off (the
# plain qual), then on, reading the backend's peak resident memory (VmHWM in
# /proc/<pid>/status) after each.  Hashing an element that needs detoasting, or a send
# function, allocates about the element's size; kept until the end of the query it
# added 320 MB here.
#
# Passes when, for every column,
#   - both runs count the same rows,
#   - the run with the scan on raises the peak by less than 16 MB over the run with it off
#     (the plain run has already touched the shared buffers both runs read through),
# and the text, bytea and compressed columns are scanned by the prefetching scan (EXPLAIN),
# so that the check is not vacuous.
#
# Run by scripts/server-tests.sh inside the throwaway cluster (PG* variables set, a fresh
# database in PGDATABASE).  The server must run on this machine: the script reads
# /proc/<backend pid>/status.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

rows=40000
limit_kb=16384

export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"

# Unlogged tables: the values go to TOAST without writing 640 MB of WAL as well.
qa <<SQL
CREATE EXTENSION IF NOT EXISTS bloomfilter;
CREATE UNLOGGED TABLE pm_ext (id int, t text, b bytea, a int[]);
ALTER TABLE pm_ext ALTER t SET STORAGE EXTERNAL, ALTER b SET STORAGE EXTERNAL,
	ALTER a SET STORAGE EXTERNAL;
INSERT INTO pm_ext
SELECT i, repeat(md5(i::text), 256), convert_to(repeat(md5(i::text), 256), 'UTF8'),
	   base.a || i
FROM (SELECT array_agg(g) AS a FROM generate_series(1, 2000) g) base,
	 generate_series(1, $rows) i;
CREATE UNLOGGED TABLE pm_comp (id int, t text);
ALTER TABLE pm_comp ALTER t SET STORAGE MAIN;
INSERT INTO pm_comp SELECT i, repeat(md5(i::text), 256) FROM generate_series(1, $rows) i;
-- a filter of the first 100 rows' values of each column
CREATE TABLE pm_filter AS
SELECT bloomfilter_agg(t, 1000, 0.01) AS ft, bloomfilter_agg(b, 1000, 0.01) AS fb,
	   bloomfilter_agg(a, 1000, 0.01) AS fa
FROM pm_ext WHERE id <= 100;
VACUUM ANALYZE pm_ext, pm_comp, pm_filter;
SQL

# sanity: the values are where the test says they are
# (an uncompressed 8 kB value cannot be inline; a compressed one under 1 kB is not external)
stored=$(qa -c "SELECT bool_and(pg_column_compression(t) IS NULL AND octet_length(t) = 8192
	AND pg_column_compression(b) IS NULL AND octet_length(b) = 8192
	AND pg_column_compression(a) IS NULL AND pg_column_size(a) > 8000) FROM pm_ext")
compressed=$(qa -c "SELECT bool_and(pg_column_compression(t) IS NOT NULL AND pg_column_size(t) < 1000
	AND octet_length(t) = 8192) FROM pm_comp")
if [ "$stored" != t ] || [ "$compressed" != t ]; then
	echo "FAIL: the elements are not stored as intended (external: $stored, compressed inline: $compressed)"
	exit 1
fi


# measure LABEL TABLE COLUMN FILTER-COLUMN EXPECT-SCAN
measure() {
	local label=$1 table=$2 col=$3 fcol=$4 expect_scan=$5 out q
	q="SELECT count(*) FROM $table WHERE (SELECT $fcol FROM pm_filter) @> $col"
	out=$(qa <<SQL
SET jit = off;
SET max_parallel_workers_per_gather = 0;
SELECT pg_backend_pid() AS pid \gset
\setenv BF_PID :pid
SET bloomfilter.prefetch_scan = off;
SELECT 'rows_off', ($q) \g
\! awk '/^VmHWM:/ { print "off", \$2 }' /proc/\$BF_PID/status
SET bloomfilter.prefetch_scan = on;
EXPLAIN (COSTS OFF) $q \g
SELECT 'rows_on', ($q) \g
\! awk '/^VmHWM:/ { print "on", \$2 }' /proc/\$BF_PID/status
SQL
	)
	local off on rows_off rows_on scan
	off=$(awk '$1 == "off" { print $2 }' <<<"$out")
	on=$(awk '$1 == "on" { print $2 }' <<<"$out")
	rows_off=$(awk -F'|' '$1 == "rows_off" { print $2 }' <<<"$out")
	rows_on=$(awk -F'|' '$1 == "rows_on" { print $2 }' <<<"$out")
	scan=$(grep -c 'Custom Scan (bloomfilter prefetch)' <<<"$out" || true)
	if [ -z "$off" ] || [ -z "$on" ] || [ -z "$rows_off" ] || [ -z "$rows_on" ]; then
		echo "FAIL: could not measure $label (is the server on this machine, /proc readable?):"
		echo "$out"
		fail=1
		return
	fi
	printf '%-22s rows %6s/%6s  prefetch scan %s  peak off %7d kB  on %7d kB  growth %7d kB\n' \
		"$label" "$rows_off" "$rows_on" "$scan" "$off" "$on" $((on - off))
	check "$label: the same rows with the scan on and off ($rows_on, $rows_off)" \
		test "$rows_on" = "$rows_off" -a "$rows_on" -ge 100
	if [ "$expect_scan" = yes ]; then
		check "$label: the prefetching scan is used" test "$scan" = 1
	fi
	check "$label: peak(on) - peak(off) = $((on - off)) kB < $limit_kb kB" \
		test $((on - off)) -lt "$limit_kb"
}

measure "text, external" pm_ext t ft yes
measure "bytea, external" pm_ext b fb yes
measure "text, compressed" pm_comp t ft yes
measure "int[], external" pm_ext a fa no

if [ $fail -eq 0 ]; then
	echo "PASS: the prefetching scan's memory does not grow with $rows out-of-line or compressed elements"
fi
exit $fail
