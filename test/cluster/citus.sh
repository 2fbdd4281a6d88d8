#!/usr/bin/env bash
# test/cluster/citus.sh - the extension on Citus 13.2.2: a coordinator and two workers on 127.0.0.1.
#
#     bash test/cluster/citus.sh        (as root, or with PostgreSQL's directories writable)
#
# Builds and installs Citus with scripts/citus.sh (from ../shared/vendor/citus-13.2.2.tar.gz;
# cached under build/, so only the first run builds), starts a cluster of three nodes of its
# own (test/cluster/citus_cluster.bash: shared_preload_libraries = 'citus,bloomfilter', as
# doc/scaling-out.md says, ports from 9701, data in a temporary directory, stopped on exit) and
# creates the extension on the coordinator, which Citus propagates to the workers.  Where the
# tarball is absent, or Citus does not support this PostgreSQL version, says "skipped" and why
# and exits 77 (counted as skipped, not passed); so it does when BF_CITUS=no (make test-all sets
# it after the first version: building Citus takes minutes of CI's time per version).
# It does not use the server of pg_virtualenv that server-tests.sh runs it in,
# only the bloomfilter installed into the system PostgreSQL.
#
# Every distributed query is compared with the same query on a local (coordinator) copy of the
# table, urls_local:
#   1. every overload of bloomfilter_agg (text, bytea, smallint, integer, bigint, uuid) in every
#      form (3 arguments; 4 with each variant; the scalable 1- and 2-argument forms): EXPLAIN
#      VERBOSE shows worker partials (worker_partial_agg) and a coordinator combine
#      (coord_combine_agg); the fixed-size variants (blocked, classic, counting) are byte for
#      byte the local filter; every member is found in the growing ones (scalable, cuckoo), and
#      their false-positive rate on 10,000 non-members is printed next to the local one;
#   2. the anyelement fallback (a date column): Citus plans worker partials and then refuses
#      them (its own error, "worker_partial_agg_sfunc could not confirm type correctness");
#      with ORDER BY in the call Citus pulls the rows to the coordinator instead, and a cast to
#      text distributes: both give the local bytes;
#   3. the same grouped by a column that is not the distribution column;
#   4. bloomfilter_union_agg and bloomfilter_intersect_agg over a distributed column of filters,
#      whole and grouped;
#   5. a Bloom pre-filter built from a local table and evaluated on the workers
#      (WHERE (SELECT bloomfilter_agg(u, 1000, 0.01) FROM local_small) @> u), the aggregate scan
#      on: Citus runs the subquery as a subplan (the aggregate scan used to crash the
#      coordinator there) and ships its result to the workers' shard queries;
#   6. INSERT ... SELECT bloomfilter_agg(...) into a distributed table, from the distributed
#      table (grouped by a non-distribution column: pulled to the coordinator; by the
#      distribution column: pushed down) and from a local table (the aggregate scan inside
#      Citus's INSERT ... SELECT used to crash the coordinator), also through a Bloom pre-filter
#      with the prefetching scan;
#   7. a distributed table with a bloomfilter column: router and multi-shard
#      UPDATE ... SET f = f || x, and WHERE f @> x, for every variant;
#   8. the SQL of doc/scaling-out.md's "### Citus" section, run exactly as written: each
#      ```sql block that follows a line "<!-- test/cluster/citus.sh runs this block -->" (the test
#      fails if there are none, or if a ```sql block of the section has no marker); each block's
#      output is checked against the local answers: the distributed filters, the pre-filter join
#      (its plan, and EXPLAIN ANALYZE showing the rows the filter removed), the hash-range
#      filters, and the repartition join through a filter in a reference table (the rows of the
#      join without it; each map task of the larger side joins the filter, as
#      citus.log_remote_commands shows; Citus refuses the filter from a CTE or a subquery);
#   9. the same SQL without its create_distributed_table and create_reference_table lines, in a
#      database without Citus, prints the same lines ("on one server");
#  10. EXPLAIN ANALYZE of a distributed aggregate (bloomfilter_agg, and PostgreSQL's bit_xor)
#      fails with Citus's own error, with and without the citus.explain_* settings (so a Citus
#      that fixes it fails this test, to update the section); EXPLAIN ANALYZE of a task's query
#      on its worker works;
#  11. where bloomfilter.join_filter reaches, seen from a function evaluated in the workers' task
#      sessions: SET on the coordinator does not, nor with citus.propagate_set_commands =
#      'local'; SET LOCAL with it does; ALTER DATABASE ... SET on the coordinator reaches new
#      sessions on every node (not the open one); the section's block for every session
#      (ALTER DATABASE and ALTER SYSTEM on every node, "with mydb its database": run on the
#      test's database), then ALTER SYSTEM alone, then its RESET;
#  12. the text of the worker partials (worker_partial_agg run on each shard, as its task runs
#      it) of bloomfilter_agg(k, 524288, 0.01) over 524,288 bigint keys in 32 shards: at most
#      twice the keys' bytes in all (each partial's filter is sized for every key and holds a 32nd
#      of them: its sparse text form), and the combined filter is byte for byte the filter of
#      one server; the same figures printed for scaling-out.md's url_filter;
#  13. with shared_preload_libraries = 'bloomfilter,citus' a node does not start ("Citus has to
#      be loaded first").
# At the end no server log may show a crash, a PANIC or an internal error (XX000) other than
# Citus's own refusal of the anyelement fallback, which section 2 provokes on purpose.
# Prints the figures doc/scaling-out.md quotes (sizes, false-positive rates, plans, times); times are
# printed, never asserted.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
BF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$BF_ROOT/scripts/common.sh"
cd "$BF_ROOT"
bf_resolve_pg_config

if [ "${BF_CITUS:-yes}" = no ]; then
	echo "SKIPPED citus: BF_CITUS=no (make test-all runs Citus with the first version only)"
	exit 77
fi
rc=0
bash scripts/citus.sh || rc=$?
if [ "$rc" -eq 3 ]; then
	echo "SKIPPED citus: no Citus cluster to test (see the line above)"
	exit 77
elif [ "$rc" -ne 0 ]; then
	echo "FAIL citus: could not build or install Citus (scripts/citus.sh exit status $rc)"
	exit 1
fi

source test/cluster/citus_cluster.bash

failures=0
fail() {
	echo "FAIL citus: $*"
	failures=$((failures + 1))
}
ok() { echo "ok   citus: $*"; }
section() { echo "-- $* (at $(($(date +%s) - t0)) s)"; }

tmp=$(mktemp -d -t bf-citus.XXXXXX)
chmod 0755 "$tmp"
cleanup() {
	local status=$?
	citus_cluster_stop
	# stopped early (a server crash ends the script): say what the logs show
	if [ "$status" -ne 0 ] && [ -n "$CITUS_DIR" ] && [ -z "${finished:-}" ]; then
		echo "FAIL citus: stopped early (exit status $status); the server logs show:"
		citus_cluster_crashes | head -n 30 | sed 's/^/    /'
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

t0=$(date +%s)
citus_cluster_start "$tmp/cluster"
cq -c "SET client_min_messages = warning" -c "CREATE EXTENSION bloomfilter"
echo "cluster: coordinator 127.0.0.1:${CITUS_PORTS[0]}, workers 127.0.0.1:${CITUS_PORTS[1]} and :${CITUS_PORTS[2]}" \
	"($(cq -c "SELECT citus_version()" | sed 's/ on .*//'), up in $(($(date +%s) - t0)) s)"
libs=$(for n in 0 1 2; do cq_node "$n" -c "SHOW shared_preload_libraries"; done | sort -u)
[ "$libs" = "citus,bloomfilter" ] && ok "the three nodes run with shared_preload_libraries = '$libs', the order doc/scaling-out.md gives" ||
	fail "the nodes run with shared_preload_libraries = '$libs'"
for n in 1 2; do
	v=$(cq_node "$n" -c "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'")
	[ -n "$v" ] && ok "CREATE EXTENSION bloomfilter on the coordinator created it on worker $n ($v)" ||
		fail "the extension was not propagated to worker $n"
done

# ---- the data --------------------------------------------------------------------------------
# 20,000 rows, distributed by id (32 shards, the default); 14,985 distinct values per column
# (k = g % 15000: values 1..4999 occur twice, mostly on different shards); every 1000th row has
# NULL elements (so no value of a k that is a multiple of 1000); grp is not the distribution column.  urls_local is the same rows in a plain
# table on the coordinator; nonmembers has 10,000 values of each column not in the set.
cq <<'SQL'
CREATE FUNCTION row_of(g integer, k integer, OUT u text, OUT b bytea, OUT s smallint,
	OUT i integer, OUT big bigint, OUT uid uuid, OUT d date)
LANGUAGE sql IMMUTABLE AS $$
	SELECT 'https://www.site' || (k % 97) || '.example/' || md5(k::text),
		decode(md5('b' || k), 'hex'), (k - 7500)::smallint, k * 7919, k::bigint * 1000000007,
		md5('u' || k)::uuid, date '2000-01-01' + k
	WHERE g % 1000 <> 0
$$;
CREATE TABLE urls (id bigint PRIMARY KEY, u text, b bytea, s smallint, i integer, big bigint,
	uid uuid, d date, grp integer NOT NULL);
SELECT create_distributed_table('urls', 'id') \g /dev/null
INSERT INTO urls SELECT g, r.*, g % 7 FROM generate_series(1, 20000) g
	LEFT JOIN LATERAL row_of(g, g % 15000) r ON true;
CREATE TABLE urls_local AS SELECT * FROM urls;
CREATE TABLE nonmembers AS SELECT r.* FROM generate_series(20001, 30000) k, row_of(1, k) r;
ANALYZE urls_local, nonmembers;

-- the text of EXPLAIN (VERBOSE, COSTS OFF) of a query
CREATE FUNCTION plan_of(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	plan text := '';
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || query LOOP
		plan := plan || line || E'\n';
	END LOOP;
	RETURN plan;
END
$$;

-- worker partials and a coordinator combine
CREATE FUNCTION partials(query text) RETURNS boolean LANGUAGE sql AS $$
	SELECT p LIKE '%worker_partial_agg(%' AND p LIKE '%coord_combine_agg(%' FROM plan_of(query) p
$$;
SQL
read -r nrows nshards ndistinct < <(cq -F' ' -c "SELECT (SELECT count(*) FROM urls),
	(SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'urls'::regclass),
	(SELECT count(DISTINCT u) FROM urls_local)")
echo "urls: $nrows rows ($ndistinct distinct values in each column) in $nshards shards on 2 workers; urls_local: the same rows on the coordinator"

# ---- 1. every overload and variant -----------------------------------------------------------
section "1. every overload and variant"

# Each case prints one line R|label|kind|partials|equal|missing|bytes|fp_dist|fp_local, or
# nothing when the distributed query failed (psql's error then goes to the log).
cases=$tmp/cases.sql
: >"$cases"
add_case() { # label, kind (fixed|growing), column, aggregate call
	local label=$1 kind=$2 col=$3 call=$4
	cat >>"$cases" <<-SQL
		\\unset d
		\\unset l
		SELECT ${call}::text AS d FROM urls \\gset
		SELECT ${call}::text AS l FROM urls_local \\gset
		\\if :{?d}
		SELECT 'R', '$label', '$kind', partials(\$q\$SELECT $call FROM urls\$q\$), :'d' = :'l',
			(SELECT count(*) FROM urls_local WHERE $col IS NOT NULL AND NOT :'d'::bloomfilter @> $col),
			octet_length(:'d'::bloomfilter::bytea),
			(SELECT count(*) FROM nonmembers WHERE :'d'::bloomfilter @> $col),
			(SELECT count(*) FROM nonmembers WHERE :'l'::bloomfilter @> $col),
			octet_length(:'l'::bloomfilter::bytea);
		\\else
		SELECT 'E', '$label';
		\\endif
	SQL
}
for col in u b s i big uid; do
	add_case "$col 3-arg" fixed "$col" "bloomfilter_agg($col, 20000, 0.01)"
	for v in blocked classic counting; do
		add_case "$col $v" fixed "$col" "bloomfilter_agg($col, 20000, 0.01, '$v')"
	done
	for v in scalable cuckoo; do
		add_case "$col $v" growing "$col" "bloomfilter_agg($col, 20000, 0.01, '$v')"
	done
	add_case "$col 1-arg" growing "$col" "bloomfilter_agg($col)"
	add_case "$col 2-arg" growing "$col" "bloomfilter_agg($col, 0.001)"
done
# the anyelement fallback through the workarounds (section 2)
add_case "d::text 3-arg" fixed "d::text" "bloomfilter_agg(d::text, 20000, 0.01)"

types() {
	case $1 in
	u) echo text ;; b) echo bytea ;; s) echo smallint ;; i) echo integer ;; big) echo bigint ;;
	uid) echo uuid ;; *) echo "$1" ;;
	esac
}

check_results() { # file of R|... lines, section name
	local label kind part equal missing bytes fpd fpl lbytes
	while IFS='|' read -r tag label kind part equal missing bytes fpd fpl lbytes; do
		if [ "$tag" = E ]; then
			fail "$2: $label: the distributed query failed (the first error of this section:)"
			grep -m1 -A1 ERROR "$tmp/psql.err" | sed 's/^/    /' || true
			continue
		fi
		[ "$tag" = R ] || continue
		local what="$2: $label ($kind, $bytes bytes)"
		[ "$part" = t ] || { fail "$what: EXPLAIN VERBOSE shows no worker_partial_agg + coord_combine_agg"; continue; }
		if [ "$kind" = fixed ]; then
			[ "$equal" = t ] && [ "$missing" = 0 ] && ok "$what: worker partials + coordinator combine, byte for byte the local filter" ||
				fail "$what: differs from the local filter (equal=$equal, members missing=$missing)"
		else
			[ "$missing" = 0 ] &&
				ok "$what: worker partials + coordinator combine, every member found${fpd:+; false positives on 10,000 non-members $fpd (local filter: $fpl, $lbytes bytes)}" ||
				fail "$what: $missing members not found"
		fi
	done <"$1"
}

t1=$(date +%s)
cq -v ON_ERROR_STOP=0 -F'|' -f "$cases" >"$tmp/cases.out" 2>"$tmp/psql.err" || true
t1=$(($(date +%s) - t1))
ncases=$(grep -c '^[RE]|' "$tmp/cases.out" || true)
[ "$ncases" -eq 49 ] || fail "1: expected 49 results, got $ncases"
check_results "$tmp/cases.out" 1
echo "1: $ncases aggregates over $nrows rows, each distributed and local, in $t1 s"

# ---- 2. the anyelement fallback --------------------------------------------------------------
section "2. the anyelement fallback"

err=$(cq -c "SELECT bloomfilter_agg(d, 20000, 0.01) FROM urls" 2>&1 >/dev/null || true)
plan_ok=$(cq -c "SELECT partials('SELECT bloomfilter_agg(d, 20000, 0.01) FROM urls')")
if [ "$plan_ok" = t ] && [[ "$err" == *"worker_partial_agg_sfunc could not confirm type correctness"* ]]; then
	ok "2: bloomfilter_agg(date, ...) (the anyelement fallback) is planned as worker partials, which Citus then refuses: ${err%%$'\n'*}"
else
	fail "2: the anyelement fallback: expected Citus's refusal of worker partials, got plan=$plan_ok, error: ${err:-none}"
fi
read -r gather_plan gather_equal < <(cq -F' ' -c "
	SELECT plan_of(q) NOT LIKE '%worker_partial_agg%'
			AND plan_of(q) LIKE '%Output: bloomfilter_agg(remote_scan.%ORDER BY remote_scan.%Query: SELECT d AS %',
		(SELECT bloomfilter_agg(d, 20000, 0.01 ORDER BY d) FROM urls)::bytea
			= (SELECT bloomfilter_agg(d, 20000, 0.01) FROM urls_local)::bytea
	FROM (VALUES ('SELECT bloomfilter_agg(d, 20000, 0.01 ORDER BY d) FROM urls')) AS v(q)")
[ "$gather_plan" = t ] && [ "$gather_equal" = t ] &&
	ok "2: bloomfilter_agg(d, 20000, 0.01 ORDER BY d): Citus pulls the rows and aggregates on the coordinator; byte for byte the local filter" ||
	fail "2: ORDER BY workaround: plan=$gather_plan, equal=$gather_equal"
echo "2: (the cast to text, bloomfilter_agg(d::text, 20000, 0.01), is case 'd::text 3-arg' of section 1)"

# ---- 3. grouped by a non-distribution column -------------------------------------------------
section "3. grouped by a non-distribution column"

groups=$tmp/groups.sql
: >"$groups"
add_group() { # label, kind, column, aggregate call
	local label=$1 kind=$2 col=$3 call=$4
	cat >>"$groups" <<-SQL
		DROP TABLE IF EXISTS gd, gl;
		CREATE TEMP TABLE gd AS SELECT grp, $call AS f FROM urls GROUP BY grp;
		CREATE TEMP TABLE gl AS SELECT grp, $call AS f FROM urls_local GROUP BY grp;
		SELECT 'R', '$label', '$kind',
			partials(\$q\$SELECT grp, $call FROM urls GROUP BY grp\$q\$),
			(SELECT count(*) FROM gd) = 7 AND (SELECT count(*) FROM gd JOIN gl USING (grp)
				WHERE gd.f::bytea = gl.f::bytea) = 7,
			(SELECT count(*) FROM urls_local l JOIN gd USING (grp)
				WHERE l.$col IS NOT NULL AND NOT gd.f @> l.$col),
			(SELECT sum(octet_length(f::bytea)) FROM gd), '', '', '';
	SQL
}
for col in u b s i big uid; do
	add_group "GROUP BY grp, $col 3-arg" fixed "$col" "bloomfilter_agg($col, 5000, 0.01)"
done
for v in classic counting; do
	add_group "GROUP BY grp, u $v" fixed u "bloomfilter_agg(u, 5000, 0.01, '$v')"
done
for v in scalable cuckoo; do
	add_group "GROUP BY grp, u $v" growing u "bloomfilter_agg(u, 5000, 0.01, '$v')"
done
add_group "GROUP BY grp, u 1-arg" growing u "bloomfilter_agg(u)"
add_group "GROUP BY grp, big 2-arg" growing big "bloomfilter_agg(big, 0.001)"
cq -v ON_ERROR_STOP=1 -F'|' -f "$groups" >"$tmp/groups.out" 2>"$tmp/psql.err" ||
	{ fail "3: a grouped query failed:"; sed 's/^/    /' "$tmp/psql.err"; }
[ "$(grep -c '^R|' "$tmp/groups.out" || true)" -eq 12 ] || fail "3: expected 12 grouped results"
check_results "$tmp/groups.out" 3

# ---- 4. union_agg and intersect_agg ----------------------------------------------------------
section "4. union_agg and intersect_agg"
# parts: 40 rows of filters (one per id % 40 of urls), one column per variant, distributed by id.

out=$(cq -F'|' 2>&1 <<'SQL'
CREATE TABLE parts_local AS
SELECT k AS id, k % 5 AS grp,
	bloomfilter_agg(u, 20000, 0.01) AS blocked,
	bloomfilter_agg(u, 20000, 0.01, 'classic') AS classic,
	bloomfilter_agg(u, 20000, 0.01, 'counting') AS counting,
	bloomfilter_agg(u, 20000, 0.01, 'scalable') AS scalable,
	bloomfilter_agg(u, 20000, 0.01, 'cuckoo') AS cuckoo
FROM (SELECT id % 40 AS k, u FROM urls_local) s GROUP BY k;
CREATE TABLE parts (LIKE parts_local);
SELECT create_distributed_table('parts', 'id') \g /dev/null
INSERT INTO parts SELECT * FROM parts_local;
SELECT 'R', v, a,
	partials(format('SELECT %s(%I) FROM parts', a, v)),
	partials(format('SELECT grp, %s(%I) FROM parts GROUP BY grp', a, v))
FROM unnest(ARRAY['blocked', 'classic', 'counting', 'scalable', 'cuckoo']) v,
	unnest(ARRAY['bloomfilter_union_agg', 'bloomfilter_intersect_agg']) a
ORDER BY 2, 3;
SQL
) || fail "4: setting up the filters failed: $out"
while IFS='|' read -r tag v a whole grouped; do
	[ "$tag" = R ] || continue
	[ "$whole" = t ] && [ "$grouped" = t ] || { fail "4: $a($v): no worker partials + coordinator combine in EXPLAIN VERBOSE (whole $whole, grouped $grouped)"; continue; }
	# the distributed and the local answer: the same bytes, or the same error
	dist=$(cq -c "SELECT md5(string_agg(f::text, ',' ORDER BY grp)) FROM (SELECT grp, $a($v) f FROM parts GROUP BY grp) s" \
		-c "SELECT md5($a($v)::text) FROM parts" 2>&1 || true)
	loc=$(cq -c "SELECT md5(string_agg(f::text, ',' ORDER BY grp)) FROM (SELECT grp, $a($v) f FROM parts_local GROUP BY grp) s" \
		-c "SELECT md5($a($v)::text) FROM parts_local" 2>&1 || true)
	# (an error: its message and hint; the distributed one adds the worker it came from)
	dist=$(grep -v '^CONTEXT: ' <<<"$dist")
	loc=$(grep -v '^CONTEXT: ' <<<"$loc")
	if [ "$dist" = "$loc" ]; then
		case $dist in
		*ERROR*) ok "4: $a($v), whole and GROUP BY grp: the local error, ${dist%%$'\n'*}" ;;
		*) ok "4: $a($v), whole and GROUP BY grp: worker partials + coordinator combine, byte for byte the local result" ;;
		esac
	elif [ "$a" = bloomfilter_union_agg ] && { [ "$v" = scalable ] || [ "$v" = cuckoo ]; }; then
		# a union of growing filters depends on the order of its inputs: members must be found
		missing=$(cq -c "SELECT count(*) FROM urls_local WHERE u IS NOT NULL
			AND NOT (SELECT bloomfilter_union_agg($v) FROM parts) @> u")
		[ "$missing" = 0 ] && ok "4: $a($v): worker partials + coordinator combine, every member found (bytes differ from the local order)" ||
			fail "4: $a($v): $missing members not found"
	else
		fail "4: $a($v): distributed [$dist] differs from local [$loc]"
	fi
done <<<"$out"
[ "$(grep -c '^R|' <<<"$out" || true)" -eq 10 ] || fail "4: expected 10 union/intersect cases"

# ---- 5. a Bloom pre-filter from a local table, evaluated on the workers ----------------------
section "5. a Bloom pre-filter from a local table, evaluated on the workers"

cq <<'SQL'
-- 1,000 values: 500 in urls, 500 not
CREATE TABLE local_small AS
SELECT r.u, r.big FROM generate_series(1, 1000) j, row_of(1, CASE WHEN j <= 500 THEN j * 29 ELSE 20000 + j END) r;
SQL
prefilter() { # column; prints "distributed local plan_ok"
	local col=$1 q
	q="SELECT count(*) FROM %s WHERE (SELECT bloomfilter_agg($col, 1000, 0.01) FROM local_small) @> $col"
	cq -F' ' -c "SET bloomfilter.agg_scan = on" -c "
		SELECT ($(printf "$q" urls)), ($(printf "$q" urls_local)),
			p LIKE '%Distributed Subplan%Custom Scan (bloomfilter agg)%Seq Scan on public.local_small%'
				AND p LIKE '%Task Count: $nshards%'
				AND p ~ 'Query: SELECT .* FROM public\\.urls_[0-9]+ urls WHERE \\(\\(SELECT intermediate_result\\.bloomfilter_agg FROM read_intermediate_result\\(.*OPERATOR\\(public\\.@>\\) urls\\.$col\\)'
		FROM plan_of(\$q\$$(printf "$q" urls)\$q\$) p"
}
for col in u big; do
	read -r dist loc plan < <(prefilter "$col") || true
	if [ "$plan" = t ] && [ -n "$dist" ] && [ "$dist" = "$loc" ]; then
		ok "5: pre-filter on $(types "$col"): (SELECT bloomfilter_agg($col, 1000, 0.01) FROM local_small) @> $col, aggregate scan on: the aggregate scan runs as a Citus subplan on the coordinator, the @> runs in each of the $nshards shard queries; $dist rows, as locally"
	else
		fail "5: pre-filter on $col: distributed $dist, local $loc, plan as expected: $plan"
	fi
done
plan=$(cq -c "SET bloomfilter.agg_scan = on" \
	-c "SELECT plan_of('SELECT count(*) FROM urls WHERE (SELECT bloomfilter_agg(u, 1000, 0.01) FROM local_small) @> u')")
echo "5: the plan:"
sed -n '/Custom Scan (Citus Adaptive)/,/Node: /p' <<<"$plan" | sed 's/^/    /'

# ---- 6. INSERT ... SELECT bloomfilter_agg(...) into a distributed table ----------------------
section "6. INSERT ... SELECT bloomfilter_agg(...) into a distributed table"

out=$(cq -F'|' 2>&1 <<'SQL'
SET bloomfilter.agg_scan = on;
CREATE TABLE grp_filters (grp integer PRIMARY KEY, f bloomfilter NOT NULL);
SELECT create_distributed_table('grp_filters', 'grp') \g /dev/null
CREATE TABLE id_filters (id bigint PRIMARY KEY, f bloomfilter NOT NULL);
SELECT create_distributed_table('id_filters', 'id', colocate_with => 'urls') \g /dev/null

SELECT 'P', 'from the distributed table, GROUP BY grp',
	p LIKE '%Citus INSERT ... SELECT%pull to coordinator%coord_combine_agg(%worker_partial_agg(%'
FROM plan_of('INSERT INTO grp_filters SELECT grp, bloomfilter_agg(u, 5000, 0.01) FROM urls GROUP BY grp') p;
INSERT INTO grp_filters SELECT grp, bloomfilter_agg(u, 5000, 0.01) FROM urls GROUP BY grp;
-- (Citus joins no distributed table with a local one: compare a local copy)
CREATE TEMP TABLE grp_copy AS SELECT * FROM grp_filters;
SELECT 'C', 'from the distributed table, GROUP BY grp', count(*),
	count(*) FILTER (WHERE f::bytea = (SELECT bloomfilter_agg(u, 5000, 0.01) FROM urls_local l
		WHERE l.grp = g.grp)::bytea)
FROM grp_copy g;

SELECT 'P', 'from a local table, aggregate scan', p LIKE '%Citus INSERT ... SELECT%Custom Scan (bloomfilter agg)%'
FROM plan_of('INSERT INTO grp_filters SELECT -1, bloomfilter_agg(u, 5000, 0.01) FROM urls_local') p;
INSERT INTO grp_filters SELECT -1, bloomfilter_agg(u, 5000, 0.01) FROM urls_local;
CREATE TEMP TABLE grp_copy2 AS SELECT * FROM grp_filters WHERE grp = -1;
SELECT 'C', 'from a local table, aggregate scan', count(*),
	count(*) FILTER (WHERE f::bytea = (SELECT bloomfilter_agg(u, 5000, 0.01) FROM urls_local)::bytea)
FROM grp_copy2;

SET bloomfilter.prefetch_scan = on;
SELECT 'P', 'from a local table through a Bloom pre-filter, prefetching scan',
	p LIKE '%Citus INSERT ... SELECT%Custom Scan (bloomfilter prefetch) on public.urls_local%'
FROM plan_of('INSERT INTO grp_filters SELECT -2, bloomfilter_agg(u, 5000, 0.01) FROM urls_local
	WHERE (SELECT bloomfilter_agg(u, 1000, 0.01) FROM local_small) @> u') p;
INSERT INTO grp_filters SELECT -2, bloomfilter_agg(u, 5000, 0.01) FROM urls_local
	WHERE (SELECT bloomfilter_agg(u, 1000, 0.01) FROM local_small) @> u;
CREATE TEMP TABLE grp_copy3 AS SELECT * FROM grp_filters WHERE grp = -2;
SET bloomfilter.prefetch_scan = off;
SET bloomfilter.agg_scan = off;
SELECT 'C', 'from a local table through a Bloom pre-filter, prefetching scan', count(*),
	count(*) FILTER (WHERE f::bytea = (SELECT bloomfilter_agg(u, 5000, 0.01) FROM urls_local
		WHERE (SELECT bloomfilter_agg(u, 1000, 0.01) FROM local_small) @> u)::bytea)
FROM grp_copy3;
RESET bloomfilter.prefetch_scan;
SET bloomfilter.agg_scan = on;

SELECT 'P', 'from the distributed table, GROUP BY id (colocated)',
	p NOT LIKE '%pull to coordinator%' AND p NOT LIKE '%worker_partial_agg%'
		AND p LIKE '%Query: INSERT INTO public.id_filters_% SELECT urls.id, public.bloomfilter_agg(urls.u, %GROUP BY urls.id%'
FROM plan_of('INSERT INTO id_filters SELECT id, bloomfilter_agg(u, 100, 0.01) FROM urls WHERE u IS NOT NULL GROUP BY id') p;
INSERT INTO id_filters SELECT id, bloomfilter_agg(u, 100, 0.01) FROM urls WHERE u IS NOT NULL GROUP BY id;
CREATE TEMP TABLE id_copy AS SELECT * FROM id_filters;
SELECT 'C', 'from the distributed table, GROUP BY id (colocated)', count(*),
	count(*) FILTER (WHERE c.f::bytea = bloomfilter_add(bloomfilter_create(100, 0.01), l.u)::bytea)
FROM id_copy c JOIN urls_local l USING (id);
SQL
) || { fail "6: INSERT ... SELECT failed: $out"; }
while IFS='|' read -r tag what a b; do
	case $tag in
	P) [ "$a" = t ] && ok "6: INSERT ... SELECT $what: planned as expected" || fail "6: INSERT ... SELECT $what: unexpected plan" ;;
	C) [ -n "$a" ] && [ "$a" != 0 ] && [ "$a" = "$b" ] &&
		ok "6: INSERT ... SELECT $what: $a filter(s) inserted, each byte for byte the local one" ||
		fail "6: INSERT ... SELECT $what: $b of $a filters equal the local ones" ;;
	esac
done <<<"$out"
[ "$(grep -c '^[PC]|' <<<"$out" || true)" -eq 8 ] || fail "6: expected 8 INSERT ... SELECT results"

# ---- 7. a distributed table with a bloomfilter column ----------------------------------------
section "7. a distributed table with a bloomfilter column"

out=$(cq -F'|' 2>&1 <<'SQL'
CREATE TABLE fl (k integer PRIMARY KEY, f bloomfilter NOT NULL);
SELECT create_distributed_table('fl', 'k') \g /dev/null
INSERT INTO fl SELECT k, bloomfilter_create(1000, 0.01,
	(ARRAY['blocked', 'classic', 'counting', 'scalable', 'cuckoo'])[k % 5 + 1])
FROM generate_series(1, 100) k;
CREATE TABLE fl_local AS SELECT * FROM fl;

SELECT 'P', 'router UPDATE', plan_of('UPDATE fl SET f = f || ''router-x''::text WHERE k = 7') LIKE '%Task Count: 1%';
SELECT 'P', 'multi-shard UPDATE', plan_of('UPDATE fl SET f = f || (''item-'' || k::text)') LIKE '%Task Count: 32%';
UPDATE fl SET f = f || 'router-x'::text WHERE k = 7;
UPDATE fl_local SET f = f || 'router-x'::text WHERE k = 7;
UPDATE fl SET f = f || ('item-' || k::text);
UPDATE fl_local SET f = f || ('item-' || k::text);
UPDATE fl SET f = f || k WHERE k % 2 = 0;
UPDATE fl_local SET f = f || k WHERE k % 2 = 0;
UPDATE fl SET f = f || 'common'::text;
UPDATE fl_local SET f = f || 'common'::text;

-- Citus refuses a STABLE function of a column in an UPDATE: text || integer is one
\set ON_ERROR_STOP 0
UPDATE fl SET f = f || ('item-' || k);
\set ON_ERROR_STOP 1
SELECT 'E', 'router SELECT f @> x', (SELECT f @> 'router-x'::text FROM fl WHERE k = 7),
	(SELECT f @> 'router-x'::text FROM fl_local WHERE k = 7);
SELECT 'E', 'WHERE f @> ''common''', (SELECT count(*) FROM fl WHERE f @> 'common'::text),
	(SELECT count(*) FROM fl_local WHERE f @> 'common'::text);
SELECT 'E', 'WHERE f @> the row''s own item', (SELECT count(*) FROM fl WHERE f @> ('item-' || k::text)),
	(SELECT count(*) FROM fl_local WHERE f @> ('item-' || k::text));
SELECT 'E', 'WHERE f @> k (even k)', (SELECT count(*) FROM fl WHERE k % 2 = 0 AND f @> k),
	(SELECT count(*) FROM fl_local WHERE k % 2 = 0 AND f @> k);
SELECT 'E', 'rows WHERE f @> ''router-x''', (SELECT string_agg(k::text, ',' ORDER BY k) FROM fl WHERE f @> 'router-x'::text),
	(SELECT string_agg(k::text, ',' ORDER BY k) FROM fl_local WHERE f @> 'router-x'::text);
SELECT 'E', 'every filter, byte for byte', (SELECT md5(string_agg(f::text, ',' ORDER BY k)) FROM fl),
	(SELECT md5(string_agg(f::text, ',' ORDER BY k)) FROM fl_local);
SQL
) || fail "7: the bloomfilter column failed: $out"
while IFS='|' read -r tag what a b; do
	case $tag in
	P) [ "$a" = t ] && ok "7: $what: planned on $([ "$what" = "router UPDATE" ] && echo 1 || echo all $nshards) shard(s)" || fail "7: $what: unexpected plan" ;;
	E) [ -n "$a" ] && [ "$a" = "$b" ] && ok "7: $what: $a, as locally" || fail "7: $what: distributed $a, local $b" ;;
	esac
done <<<"$out"
[ "$(grep -c '^[PE]|' <<<"$out" || true)" -eq 8 ] || fail "7: expected 8 results"
grep -q "^E|WHERE f @> 'common'|100|" <<<"$out" || fail "7: not every row holds 'common'"
grep -q "ERROR:  STABLE functions used in UPDATE queries cannot be called with column references" <<<"$out" &&
	ok "7: UPDATE fl SET f = f || ('item-' || k): Citus refuses it (text || integer is STABLE); with k::text it runs" ||
	fail "7: expected Citus to refuse UPDATE ... f || ('item-' || k)"

# ---- 8. doc/scaling-out.md's Citus section, exactly as written ------------------------------
section "8. doc/scaling-out.md's Citus section, exactly as written"

# The section runs from "### Citus" to the next heading of level 1 to 3.  Its ```sql blocks
# that follow a line "<!-- test/cluster/citus.sh runs this block -->" are run in order, each
# after a line \echo '-- block N' (so that block_out N finds what block N printed); the one
# marked "..., with mydb its database -->" is run by section 11.  An unmarked ```sql block fails
# the test: every block a reader may run is run here.
readme_sql=$tmp/readme.sql
awk '/^### Citus/ { on = 1; next } on && !fence && /^(#|##|###) / { on = 0 } !on { next }
	/^<!-- test\/cluster\/citus.sh runs this block -->$/ { want = 1; next }
	/^<!-- test\/cluster\/citus.sh runs this block, with mydb its database -->$/ { want = 2; next }
	fence && /^```/ { fence = 0; inside = 0; next }
	/^```/ {
		fence = 1
		if ($0 !~ /^```sql/) next
		if (!want) unmarked++
		inside = want; want = 0
		if (inside == 1) printf "\\echo '\''-- block %d'\''\n", ++n
		next
	}
	inside == 1 { print }
	inside == 2 { print > settings }
	END { if (unmarked) { print unmarked " unmarked"; exit 2 } if (n == 0) exit 1 }' \
	settings="$tmp/settings.sql" doc/scaling-out.md >"$readme_sql" ||
	fail "8: doc/scaling-out.md's Citus section: no block marked for this test, or a \`\`\`sql block without a marker ($(tail -n 1 "$readme_sql"))"
[ -s "$tmp/settings.sql" ] || fail "8: doc/scaling-out.md's Citus section: no block marked \"with mydb its database\""
echo "8: doc/scaling-out.md's Citus section: $(grep -c '^\\echo' "$readme_sql") blocks, $(grep -c . "$readme_sql") lines of SQL, run as written"
block_out() { awk -v n="$1" '$1 == "--" && $2 == "block" { on = ($3 == n); next } on' "$tmp/readme.lines"; }
cq -c "SET client_min_messages = warning" -c "DROP TABLE urls CASCADE"
t8=$(date +%s)
if cq -v ON_ERROR_STOP=1 -f "$readme_sql" >"$tmp/readme.out" 2>"$tmp/psql.err"; then
	t8=$(($(date +%s) - t8))
	ok "8: the Citus section's SQL ran without error in $t8 s"
	# what it prints, without the empty lines of SELECT create_distributed_table
	grep -v '^$' "$tmp/readme.out" >"$tmp/readme.lines" || true
	section "8. checks"
	out=$(cq -F'|' 2>&1 <<'SQL'
CREATE TABLE readme_urls AS SELECT * FROM urls;
CREATE TABLE readme_candidates AS SELECT * FROM candidates;
CREATE TABLE readme_visits AS SELECT * FROM visits;
CREATE TABLE readme_reports AS SELECT * FROM reports;
CREATE TABLE readme_filter AS SELECT * FROM report_filter;
SELECT 'urls', count(*), partials('SELECT bloomfilter_agg(url, 1000000, 0.01) FROM urls') FROM urls;
SELECT 'whole', (SELECT f FROM url_filter)::bytea
	= (SELECT bloomfilter_agg(url, 1000000, 0.01) FROM readme_urls)::bytea,
	(SELECT octet_length(f::bytea) FROM url_filter);
SELECT 'buckets', count(*), count(*) FILTER (WHERE b.f::bytea = l.f::bytea)
FROM url_filters b JOIN (SELECT hashtextextended(url, 0) & 63 AS bucket, bloomfilter_agg(url, 10000, 0.01) AS f
	FROM readme_urls GROUP BY 1) l USING (bucket);
SELECT 'new', count(*), count(*) FILTER (WHERE u.url IS NULL)
FROM readme_candidates c LEFT JOIN readme_urls u USING (url);
SELECT 'plan62', bytes FROM bloomfilter_plan(50000000, 0.01) WHERE variant = 'blocked';
-- the pre-filter: the join without the filter, on local copies
SELECT 'recent', count(*) FROM readme_urls u JOIN recent_urls r ON r.url = u.url;
-- the repartition join: the rows without the filter, and the rows of visits the filter keeps
SELECT 'visits', count(*), md5(string_agg(v.visitor || ' ' || v.url, ',' ORDER BY v.visitor, v.url))
FROM readme_visits v JOIN readme_reports r ON r.url = v.url;
SELECT 'kept', count(*), (SELECT count(*) FROM readme_visits)
FROM readme_visits v, readme_filter rf WHERE rf.f @> v.url;
-- the filter after the rebuild (block 6): one row, the filter of reports
SELECT 'rebuilt', count(*), bool_and(f::bytea = (SELECT bloomfilter_agg(url, 500, 0.01) FROM readme_reports)::bytea)
FROM readme_filter;
SQL
	) || fail "8: checking the Citus section's tables failed: $out"
	IFS='|' read -r _ nurls part < <(grep '^urls|' <<<"$out")
	IFS='|' read -r _ whole bytes < <(grep '^whole|' <<<"$out")
	IFS='|' read -r _ nbuckets nsame < <(grep '^buckets|' <<<"$out")
	IFS='|' read -r _ ncand nnew < <(grep '^new|' <<<"$out")
	IFS='|' read -r _ bytes50m < <(grep '^plan62|' <<<"$out")
	IFS='|' read -r _ nrecent < <(grep '^recent|' <<<"$out")
	IFS='|' read -r _ nvisits md5visits < <(grep '^visits|' <<<"$out")
	IFS='|' read -r _ nkept nallvisits < <(grep '^kept|' <<<"$out")
	IFS='|' read -r _ nrebuilt rebuilt < <(grep '^rebuilt|' <<<"$out")
	[ "$part" = t ] && [ "$whole" = t ] &&
		ok "8: scaling-out.md: bloomfilter_agg(url, 1000000, 0.01) over $nurls URLs: worker partials + coordinator combine, byte for byte the local filter ($bytes bytes)" ||
		fail "8: scaling-out.md: the distributed aggregate: partials $part, equal $whole"

	# block 2: the pre-filter
	prefilter_q="SELECT count(*) FROM urls u JOIN recent_urls r ON r.url = u.url
WHERE (SELECT bloomfilter_agg(url, 1000, 0.01) FROM recent_urls) @> u.url"
	got=$(block_out 2)
	[ -n "$got" ] && [ "$got" = "$nrecent" ] &&
		ok "8: scaling-out.md: the pre-filter join of urls with recent_urls: $got rows, as without the filter" ||
		fail "8: scaling-out.md: the pre-filter join gave '$got', without the filter $nrecent"
	plan=$(cq -c "SELECT plan_of(\$q\$$prefilter_q\$q\$)")
	[[ "$plan" == *"Distributed Subplan"*"Custom Scan (bloomfilter agg)"*"Seq Scan on public.recent_urls"* ]] &&
		grep -Eq 'Query: SELECT .*public\.urls_[0-9]+ u JOIN .*read_intermediate_result.*OPERATOR\(public\.@>\) u\.url\)' <<<"$plan" &&
		ok "8: scaling-out.md: the pre-filter's aggregate is a coordinator subplan (aggregate scan); each shard's query tests @> against its result" ||
		fail "8: scaling-out.md: the pre-filter's plan is not as the section shows"
	echo "8: the plan of the pre-filter join:"
	sed '/^$/d; s/^/    /' <<<"$plan"
	an=$(cq -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $prefilter_q" 2>&1 || true)
	grep -Eq 'Rows Removed by Bloom Filter: [1-9]' <<<"$an" &&
		ok "8: scaling-out.md: EXPLAIN ANALYZE of the pre-filter join runs and shows a task's Rows Removed by Bloom Filter ($(grep -m1 -o 'Rows Removed by Bloom Filter: [0-9]*' <<<"$an"))" ||
		fail "8: scaling-out.md: EXPLAIN ANALYZE of the pre-filter join: $an"

	# block 3: one filter per hash range
	[ "$nbuckets" = 64 ] && [ "$nsame" = 64 ] &&
		ok "8: scaling-out.md: INSERT INTO url_filters ... GROUP BY 1: 64 bucket filters, each byte for byte the local one" ||
		fail "8: scaling-out.md: url_filters: $nbuckets buckets, $nsame equal to the local ones"
	probe=$(block_out 3 | sed -n 1p)
	reported=$(block_out 3 | sed -n '2,$p' | sort)
	truly_new=$(cq -c "SELECT url FROM readme_candidates c WHERE NOT EXISTS (SELECT FROM readme_urls u WHERE u.url = c.url)" | sort)
	nrep=$(grep -c . <<<"$reported" || true)
	wrong=$(comm -23 <(echo "$reported") <(echo "$truly_new") | grep -c . || true)
	[ "$probe" = t ] && ok "8: scaling-out.md: EXECUTE probe(<a stored URL>) answers t" ||
		fail "8: scaling-out.md: the probe of a stored URL answered '$probe'"
	[ "$wrong" = 0 ] && [ "$nrep" -gt 0 ] && [ $((nrep * 100)) -ge $((nnew * 95)) ] &&
		ok "8: scaling-out.md: the certainly-new query: $nrep of $ncand candidates reported new, none of them stored ($nnew are new; false positives hide $((nnew - nrep)))" ||
		fail "8: scaling-out.md: the certainly-new query reported $nrep, $wrong of them stored ($nnew truly new)"
	[ "$bytes50m" = 61987520 ] && ok "8: scaling-out.md: a blocked filter for 50,000,000 items at 1 % is $bytes50m bytes" ||
		fail "8: scaling-out.md: bloomfilter_plan(50000000, 0.01) blocked: $bytes50m bytes"
	echo "8: the plan of SELECT bloomfilter_agg(url, 1000000, 0.01) FROM urls:"
	cq -c "SELECT plan_of('SELECT bloomfilter_agg(url, 1000000, 0.01) FROM urls')" | sed '/^$/d; s/^/    /'
	section "8. the candidates table"
	# the note on the candidates table: local works (above); a reference table works
	# too; a distributed one joined on a non-distribution column is refused by Citus
	q="SELECT count(*) FROM %s c JOIN url_filters b ON b.bucket = hashtextextended(c.url, 0) & 63 WHERE NOT b.f @> c.url"
	ref=$(cq -c "SET client_min_messages = warning" -c "CREATE TABLE cand_ref AS SELECT * FROM readme_candidates" -c "SELECT create_reference_table('cand_ref')" \
		-c "$(printf "$q" cand_ref)" 2>&1 | grep -v '^$' || true)
	[ "$ref" = "$nrep" ] && ok "8: scaling-out.md: the same join with candidates as a reference table: $ref, the same" ||
		fail "8: scaling-out.md: the join with a reference table gave '$ref' (local: $nrep)"
	dist=$(cq -c "SET client_min_messages = warning" -c "CREATE TABLE cand_dist AS SELECT * FROM readme_candidates" -c "SELECT create_distributed_table('cand_dist', 'url')" \
		-c "$(printf "$q" cand_dist)" 2>&1 || true)
	[[ "$dist" == *"complex joins are only supported when all distributed tables are joined on their distribution columns"* ]] &&
		ok "8: scaling-out.md: with candidates distributed, Citus refuses the join: ${dist##*ERROR:  }" ||
		fail "8: scaling-out.md: the join with a distributed candidates table gave '$dist'"

	# block 4: the join of block 3 counted under SET LOCAL (section 11 checks where it reaches)
	got=$(block_out 4)
	[ "$got" = "$nrep" ] && ok "8: scaling-out.md: the join under SET LOCAL bloomfilter.join_filter = 'off': $got rows, as block 3 listed" ||
		fail "8: scaling-out.md: the join under SET LOCAL gave '$got' (block 3 listed $nrep)"

	# block 5: the repartition join with the filter in a reference table
	section "8. the repartition join"
	got=$(block_out 5)
	[ -n "$got" ] && [ "$got" = "$nvisits" ] &&
		ok "8: scaling-out.md: the repartition join of visits and reports through report_filter: $got rows, as without the filter" ||
		fail "8: scaling-out.md: the repartition join through report_filter gave '$got', without the filter $nvisits"
	# its rows, and the map tasks' queries (citus.log_remote_commands prints them as NOTICEs)
	rj=$(cq -F'|' -c "SET citus.enable_repartition_joins = on" -c "SET citus.log_remote_commands = on" \
		-c "SELECT count(*), md5(string_agg(v.visitor || ' ' || v.url, ',' ORDER BY v.visitor, v.url))
			FROM visits v JOIN reports r ON r.url = v.url JOIN report_filter rf ON rf.f @> v.url" 2>&1 || true)
	nvshards=$(cq -c "SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'visits'::regclass")
	nmap=$(grep -Ec "worker_partition_query_result\(.*FROM \(public\.visits_[0-9]+ v JOIN public\.report_filter_[0-9]+ rf ON \(\(rf\.f OPERATOR\(public\.@>\) v\.url\)\)\)" <<<"$rj" || true)
	[ "$(grep -v NOTICE <<<"$rj" | grep -v '^DETAIL' | tail -n 1)" = "$nvisits|$md5visits" ] &&
		ok "8: scaling-out.md: the repartition join through report_filter returns the rows of the join without it ($nvisits)" ||
		fail "8: scaling-out.md: the repartition join through report_filter returns other rows than without it: $(grep -v NOTICE <<<"$rj" | tail -n 3)"
	[ "$nmap" -gt 0 ] && [ "$nmap" = "$nvshards" ] &&
		ok "8: scaling-out.md: each of the $nmap map tasks of visits joins its shard with report_filter on @>" ||
		fail "8: scaling-out.md: $nmap map tasks of visits test the filter (visits has $nvshards shards)"
	echo "8: a map task of visits:"
	grep -m1 -o "worker_partition_query_result(.*public\.report_filter_.*" <<<"$rj" | cut -c1-300 | sed 's/^/    /'
	[ "$nkept" -ge "$nvisits" ] && [ $(((nkept - nvisits) * 100)) -le $(((nallvisits - nvisits) * 3)) ] &&
		ok "8: scaling-out.md: the filter keeps $nkept of the $nallvisits visits for the merge tasks ($nvisits match, $((nkept - nvisits)) false positives)" ||
		fail "8: scaling-out.md: the filter keeps $nkept of $nallvisits visits ($nvisits match)"
	[ "$nrebuilt" = 1 ] && [ "$rebuilt" = t ] &&
		ok "8: scaling-out.md: the rebuilt report_filter (block 6) holds one filter, byte for byte that of reports" ||
		fail "8: scaling-out.md: after the rebuild report_filter has $nrebuilt rows, equal to the filter of reports: $rebuilt"
	refused=$(cq -c "SET citus.enable_repartition_joins = on" -c '\set ON_ERROR_STOP 0' \
		-c "WITH rf AS (SELECT bloomfilter_agg(url, 500, 0.01) AS f FROM reports)
			SELECT count(*) FROM visits v JOIN reports r ON r.url = v.url JOIN rf ON rf.f @> v.url" \
		-c "SELECT count(*) FROM visits v JOIN reports r ON r.url = v.url
			WHERE (SELECT bloomfilter_agg(url, 500, 0.01) FROM reports) @> v.url" 2>&1 || true)
	[ "$(grep -c 'ERROR:  complex joins are only supported when all distributed tables are co-located and joined on their distribution columns' <<<"$refused")" = 2 ] &&
		ok "8: scaling-out.md: Citus refuses the filter from a CTE and from a scalar subquery in the repartition join: ${refused%%$'\n'*}" ||
		fail "8: scaling-out.md: the filter from a CTE or a scalar subquery in the repartition join: $refused"
else
	fail "8: the Citus section's SQL failed:"
	sed 's/^/    /' "$tmp/psql.err"
fi

# ---- 9. the Citus section's SQL on one server -------------------------------------------------------
# "omit on one server": the same blocks without their create_distributed_table and
# create_reference_table lines, in a database of the coordinator without Citus, print the same
# answers

section "9. the Citus section's SQL on one server"
if [ -s "$tmp/readme.lines" ]; then
	grep -v -e 'create_distributed_table' -e 'create_reference_table' "$readme_sql" >"$tmp/readme_one.sql"
	psql -X -q -v ON_ERROR_STOP=1 -h "$CITUS_DIR" -p "${CITUS_PORTS[0]}" -U postgres -d postgres \
		-c "CREATE DATABASE one_server" >/dev/null
	if psql -X -q -At -v ON_ERROR_STOP=1 -h "$CITUS_DIR" -p "${CITUS_PORTS[0]}" -U postgres \
		-d one_server -c "CREATE EXTENSION bloomfilter" -f "$tmp/readme_one.sql" \
		>"$tmp/readme_one.out" 2>"$tmp/psql.err"; then
		one=$(grep -v '^$' "$tmp/readme_one.out" | sort)
		cmp -s <(echo "$one") <(sort "$tmp/readme.lines") &&
			ok "9: the Citus section's SQL without create_distributed_table and create_reference_table on one server: the same $(grep -vc '^-- block' <<<"$one") lines of output" ||
			fail "9: the Citus section's SQL on one server printed other answers than on Citus"
	else
		fail "9: the Citus section's SQL on one server failed:"
		sed 's/^/    /' "$tmp/psql.err"
	fi
fi

# ---- 10. EXPLAIN ANALYZE of a distributed aggregate ------------------------------------------
# Citus's own limitation (citusdata/citus#4043): it wraps each task's query for EXPLAIN ANALYZE
# in a function call whose column definition list cannot hold worker_partial_agg's cstring.
# Should a Citus release fix it, this says so (and doc/scaling-out.md must say so too).
section "10. EXPLAIN ANALYZE of a distributed aggregate"

cstring='column "field_0" has pseudo-type cstring'
aggs=("bloomfilter_agg(url, 1000000, 0.01)" "bit_xor(length(url))")
settings=("" "citus.explain_analyze_sort_method = 'taskId'" "citus.explain_all_tasks = on"
	"citus.explain_distributed_queries = off")
for agg in "${aggs[@]}"; do
	[ "$(cq -c "SELECT partials('SELECT $agg FROM urls')")" = t ] ||
		fail "10: $agg FROM urls is not planned as worker partials"
done
# in one session: case N prints "N ERROR message" (psql's variables after the statement)
an=$(n=0
for setting in "${settings[@]}"; do
	[ -z "$setting" ] || echo "SET $setting;"
	for agg in "${aggs[@]}"; do
		n=$((n + 1))
		printf '%s\n' '\o /dev/null' "EXPLAIN ANALYZE SELECT $agg FROM urls;" '\o' \
			"\\echo $n :ERROR :LAST_ERROR_MESSAGE"
	done
	[ -z "$setting" ] || echo "RESET ${setting%% *};"
done | cq -v ON_ERROR_STOP=0 2>/dev/null || true)
ncases=$((${#aggs[@]} * ${#settings[@]}))
for ((i = 1; i <= ncases; i++)); do
	what="EXPLAIN ANALYZE SELECT ${aggs[(i - 1) % ${#aggs[@]}]} FROM urls"
	setting=${settings[(i - 1) / ${#aggs[@]}]}
	what+=${setting:+ after SET $setting}
	read -r _ err msg < <(grep "^$i " <<<"$an") || true
	case $err in
	true) [ "$msg" = "$cstring" ] && ok "10: $what: Citus's error, $cstring" ||
		fail "10: $what: another error than Citus's known one: $msg" ;;
	false) fail "10: $what ran: Citus no longer refuses it; doc/scaling-out.md says it does" ;;
	*) fail "10: $what: no result ($an)" ;;
	esac
done
# the way round: the task's query, as EXPLAIN VERBOSE prints it, explained on its worker
plan=$(cq -c "SELECT plan_of('SELECT bloomfilter_agg(url, 1000000, 0.01) FROM urls')")
task_q=$(sed -n 's/^ *Query: //p' <<<"$plan" | head -n 1)
task_port=$(sed -n 's/^ *Node: host=[^ ]* port=\([0-9]*\) .*/\1/p' <<<"$plan" | head -n 1)
task_node=
for n in 1 2; do [ "${CITUS_PORTS[$n]}" = "$task_port" ] && task_node=$n; done
if [ -n "$task_q" ] && [ -n "$task_node" ]; then
	an=$(cq_node "$task_node" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $task_q" 2>&1 || true)
	[[ "$an" == "Aggregate (actual rows=1 loops=1)"*"Seq Scan on urls_"*"(actual rows="* ]] &&
		ok "10: EXPLAIN ANALYZE of a task's Query on the worker its Node names: ${an//$'\n'/; }" ||
		fail "10: EXPLAIN ANALYZE of the task's query on worker $task_node: $an"
else
	fail "10: no task Query and Node in EXPLAIN VERBOSE: $plan"
fi

# ---- 11. settings on the coordinator and on the workers --------------------------------------
# What each node's sessions see of bloomfilter.join_filter: current_setting() on the coordinator,
# and join_filter_here() evaluated in the task sessions on the workers (over reports: 4 shards,
# none on the coordinator).  Where "open" says so, in a coordinator session whose
# connections to the workers are already open.
section "11. settings on the coordinator and on the workers"

cq -c "CREATE FUNCTION join_filter_here(bigint) RETURNS text LANGUAGE sql VOLATILE
	AS \$\$SELECT current_setting('bloomfilter.join_filter')\$\$"
seen_q="SELECT current_setting('bloomfilter.join_filter') || ' | ' ||
	(SELECT string_agg(s, ',' ORDER BY s) FROM (SELECT DISTINCT join_filter_here(id) s FROM reports) d)"
seen() { cq -c "$seen_q"; } # in a new session: "coordinator | workers"
seen_until() { # expected; polls a new session for up to 10 s (a reload reaches the servers shortly after it returns)
	local i got
	for ((i = 0; i < 50; i++)); do
		got=$(seen)
		[ "$got" = "$1" ] && break
		sleep 0.2
	done
	echo "$got"
}
expect_seen() { # what, expected, got
	[ "$3" = "$2" ] && ok "11: $1: coordinator | workers' task sessions = $3" ||
		fail "11: $1: coordinator | workers' task sessions = $3, expected $2"
}
# (one connection per worker, kept by the session between statements, so that the workers'
# sessions of "open session" below are those opened before the ALTER DATABASE however Citus's
# executor paces the opening of connections; a connection opened after it would see the new
# database setting)
out=$(cq <<SQL
SET citus.max_adaptive_executor_pool_size = 1;
SELECT 'default', ($seen_q);
SET bloomfilter.join_filter = 'always';
SELECT 'SET on the coordinator', ($seen_q);
SET citus.propagate_set_commands = 'local';
SELECT 'SET, citus.propagate_set_commands = ''local''', ($seen_q);
BEGIN;
SET LOCAL bloomfilter.join_filter = 'off';
SELECT 'SET LOCAL in a transaction, citus.propagate_set_commands = ''local''', ($seen_q);
COMMIT;
SELECT 'after the COMMIT', ($seen_q);
RESET bloomfilter.join_filter;
RESET citus.propagate_set_commands;
ALTER DATABASE citus_test SET bloomfilter.join_filter = 'always';
SELECT 'ALTER DATABASE ... SET on the coordinator, open session', ($seen_q);
SQL
) || fail "11: the settings session failed: $out"
while IFS='|' read -r what coord workers; do
	case $what in
	default) exp="on | on" ;;
	"SET on the coordinator" | "SET, citus.propagate_set_commands = 'local'" | "after the COMMIT") exp="always | on" ;;
	"SET LOCAL"*) exp="off | off" ;;
	"ALTER DATABASE"*) exp="on | on" ;;
	*) continue ;;
	esac
	expect_seen "$what" "$exp" "$coord|$workers"
done <<<"$out"
[ "$(grep -c . <<<"$out")" = 6 ] || fail "11: expected 6 settings, got: $out"
# a new session sees ALTER DATABASE; then the section's block for every session, on the test's
# database, in the same session (its output is not needed)
sed 's/\bmydb\b/citus_test/g' "$tmp/settings.sql" >"$tmp/settings_here.sql"
if out=$(cq -c "SELECT ($seen_q)" -c "ALTER DATABASE citus_test RESET bloomfilter.join_filter" \
	-c '\o /dev/null' -f "$tmp/settings_here.sql" 2>&1); then
	expect_seen "ALTER DATABASE ... SET on the coordinator, new session" "always | always" "$out"
	ok "11: scaling-out.md's block for every session ran (mydb: citus_test)"
	expect_seen "after the block (ALTER DATABASE, ALTER SYSTEM on every node), new session" "off | off" "$(seen_until "off | off")"
	dbs=$(cq -c "SELECT string_agg(result, ',' ORDER BY nodeid) FROM run_command_on_all_nodes(\$\$SELECT array_to_string(setconfig, ' ')
		FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase AND d.datname = current_database() WHERE s.setrole = 0\$\$)" \
		-c "ALTER DATABASE citus_test RESET bloomfilter.join_filter")
	[ "$dbs" = "bloomfilter.join_filter=off,bloomfilter.join_filter=off,bloomfilter.join_filter=off" ] &&
		ok "11: ALTER DATABASE ... SET on the coordinator is in pg_db_role_setting on all three nodes" ||
		fail "11: ALTER DATABASE ... SET, pg_db_role_setting of the three nodes: $dbs"
	out=$(cq -c "SELECT ($seen_q)" -c '\o /dev/null' \
		-c "SELECT run_command_on_all_nodes(\$\$ALTER SYSTEM RESET bloomfilter.join_filter\$\$)" \
		-c "SELECT run_command_on_all_nodes(\$\$SELECT pg_reload_conf()\$\$)")
	expect_seen "ALTER SYSTEM alone (after ALTER DATABASE ... RESET), new session" "off | off" "$out"
	expect_seen "ALTER SYSTEM RESET on every node and a reload, new session" "on | on" "$(seen_until "on | on")"
else
	fail "11: ALTER DATABASE ... SET in a new session, or scaling-out.md's block for every session, failed:"
	sed 's/^/    /' <<<"$out"
fi

# ---- 12. the text of the worker partials ----------------------------------------------------
# Citus ships each shard's partial state as the state type's text form: worker_partial_agg, the
# query each task runs, returns it as a cstring.  Run here on every shard as the task would, its
# length is what the coordinator reads.  The partials of a filter sized for the whole set hold a
# 32nd of it each: their sparse text form must take at most twice the bytes of the keys
# (issue 28), and the coordinator's union of them is the filter one server builds.
section "12. the text of the worker partials"
partial_text() { # table, column, type, expected_items: "shards|text bytes|min|max|base64 bytes|filter bytes"
	cq -F'|' -c "SELECT count(*), sum(t), min(t), max(t), sum(b), max(f) FROM (
		SELECT split_part(result, ' ', 1)::bigint AS t, split_part(result, ' ', 2)::bigint AS b,
			split_part(result, ' ', 3)::bigint AS f
		FROM run_command_on_shards('$1', \$\$SELECT octet_length(pg_catalog.worker_partial_agg(
				'public.bloomfilter_agg($3,bigint,double precision)'::regprocedure,
				ROW($2, '$4'::bigint, '0.01'::double precision))::text)
			|| ' ' || octet_length(translate(encode(bloomfilter_agg($2, $4, 0.01)::bytea, 'base64'), E'\\n', ''))
			|| ' ' || octet_length(bloomfilter_agg($2, $4, 0.01)::bytea) FROM %s\$\$)) s"
}
cq -c "SET client_min_messages = warning" -c "CREATE TABLE keys (k bigint PRIMARY KEY)" \
	-c "SELECT create_distributed_table('keys', 'k', shard_count => 32)" \
	-c "INSERT INTO keys SELECT g::bigint * 1000000007 FROM generate_series(1, 524288) g" \
	-c "CREATE TABLE keys_local AS SELECT * FROM keys" >/dev/null
IFS='|' read -r nparts tbytes tmin tmax b64bytes fbytes < <(partial_text keys k bigint 524288)
kbytes=$(cq -c "SELECT count(*) * 8 FROM keys_local")
echo "12: bloomfilter_agg(k, 524288, 0.01) over 524,288 bigint keys ($kbytes bytes) in $nparts shards: each partial a filter of $fbytes bytes;" \
	"its text $tmin to $tmax bytes, $tbytes in all ($(awk "BEGIN { printf \"%.2f\", $tbytes / $kbytes }") x the keys' bytes); as base64 $b64bytes"
[ "$nparts" = 32 ] && [ "$tbytes" -le $((2 * kbytes)) ] &&
	ok "12: the 32 worker partials ship $tbytes bytes of text for $kbytes bytes of bigint keys: at most twice their bytes (base64: $b64bytes)" ||
	fail "12: the worker partials ship $tbytes bytes of text in $nparts shards for $kbytes bytes of keys (more than twice, or not 32 shards)"
read -r part same < <(cq -F' ' -c "SELECT partials('SELECT bloomfilter_agg(k, 524288, 0.01) FROM keys'),
	(SELECT bloomfilter_agg(k, 524288, 0.01) FROM keys)::bytea = (SELECT bloomfilter_agg(k, 524288, 0.01) FROM keys_local)::bytea")
[ "$part" = t ] && [ "$same" = t ] &&
	ok "12: bloomfilter_agg(k, 524288, 0.01) over them: worker partials + coordinator combine, byte for byte the filter of one server ($fbytes bytes)" ||
	fail "12: bloomfilter_agg(k, 524288, 0.01) over keys: partials $part, the same bytes as one server: $same"
# the partials of scaling-out.md's url_filter (block 1 of section 8): 200,000 URLs, sized for 1,000,000
if [ "$(cq -c "SELECT to_regclass('urls') IS NOT NULL")" = t ]; then
	IFS='|' read -r nparts tbytes tmin tmax b64bytes fbytes < <(partial_text urls url text 1000000)
	ubytes=$(cq -c "SELECT sum(octet_length(url)) FROM urls")
	echo "12: scaling-out.md's bloomfilter_agg(url, 1000000, 0.01) over 200,000 URLs ($ubytes bytes) in $nparts shards: partials of $fbytes bytes;" \
		"their text $tmin to $tmax bytes, $tbytes in all; as base64 $b64bytes"
	[ "$tbytes" -lt "$b64bytes" ] && ok "12: scaling-out.md's url_filter: the partials ship $tbytes bytes of text, base64 would be $b64bytes" ||
		fail "12: scaling-out.md's url_filter: the partials ship $tbytes bytes of text, base64 $b64bytes"
fi
cq -c "SET client_min_messages = warning" -c "DROP TABLE keys, keys_local" >/dev/null

# ---- 13. the order of shared_preload_libraries, and the server logs ---------------------------
citus_cluster_stop

# the other order: Citus refuses to start after another library (its log is not a node's log,
# which would count its FATAL as an internal error)
section "13. shared_preload_libraries = 'bloomfilter,citus'"
if citus_try_start 1 'bloomfilter,citus' "$tmp/wrong_order.log"; then
	fail "13: a node started with shared_preload_libraries = 'bloomfilter,citus': Citus no longer refuses it; doc/scaling-out.md says it does"
elif grep -q 'FATAL:  Citus has to be loaded first' "$tmp/wrong_order.log" &&
	grep -q 'HINT:  Place citus at the beginning of shared_preload_libraries.' "$tmp/wrong_order.log"; then
	ok "13: with shared_preload_libraries = 'bloomfilter,citus' a node does not start: $(grep -o 'FATAL:  Citus has to be loaded first' "$tmp/wrong_order.log") ($(grep -o 'HINT:  .*' "$tmp/wrong_order.log"))"
else
	fail "13: with shared_preload_libraries = 'bloomfilter,citus' a node did not start, but not for the reason doc/scaling-out.md gives:"
	tail -n 5 "$tmp/wrong_order.log" | sed 's/^/    /'
fi

section "the server logs"
allowed='worker_partial_agg_sfunc could not confirm type correctness'
crashes=$(citus_cluster_crashes | grep -v -F "$allowed" || true)
if [ -z "$crashes" ]; then
	ok "server logs of the three nodes: no crash, no PANIC, no internal error (XX000) besides Citus's refusal of the anyelement fallback ($(citus_cluster_crashes | grep -c -F "$allowed" || true) lines, section 2)"
else
	fail "server logs show crashes or internal errors:"
	echo "$crashes" | head -n 30 | sed 's/^/    /'
fi
echo "citus: cluster and tests took $(($(date +%s) - t0)) s"
finished=1

if [ "$failures" -ne 0 ]; then
	echo "citus: $failures failures"
	exit 1
fi
echo "citus: all checks passed"
