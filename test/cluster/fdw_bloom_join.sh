#!/usr/bin/env bash
# test/cluster/fdw_bloom_join.sh - a Bloom join across servers with postgres_fdw.
#
# Sets up a loopback "remote" server in the test cluster: a second database with the extension
# and 200,000 URLs, reached from this database through postgres_fdw (host localhost, port
# $PGPORT, foreign server option extensions 'bloomfilter').  The local side has 20,000 URLs,
# half of which exist remotely.  Checks that
#   - the membership test of a filter built locally by a scalar subquery,
#         (SELECT bloomfilter_agg(url, 20000, 0.01) FROM local_urls) @> r.url
#     is shipped to the remote: EXPLAIN (VERBOSE, COSTS OFF) shows it in the Remote SQL, with
#     the filter as a query parameter ($1::public.bloomfilter), for @> and <@, for a count
#     (the whole aggregate is pushed down), a plain scan and a join with local_urls;
#   - every answer equals the same query against a local copy of the remote table (the remote
#     evaluates exactly what the local server would: same filter, same false positives);
#   - the join with the Bloom pre-filter gives exactly the join without it (10,000 rows);
#   - the rows the Foreign Scan fetches drop from 200,000 to the matches plus about 1 % of the
#     strangers, and a 1 MB filter travels as well (its text form is the parameter).
# Prints the Remote SQL and the figures (rows fetched, filter and parameter sizes, times);
# times are printed, never asserted.
#
# Run by scripts/server-tests.sh inside the throwaway cluster (PG* variables set, PGUSER a
# superuser, the extension installed).  Creates the remote database <PGDATABASE>_remote and
# drops it at the end.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

: "${PGDATABASE:?PGDATABASE must name the (empty) local database}"
: "${PGPORT:=5432}"
remote_db="${PGDATABASE:0:50}_remote"

export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }

failures=0
fail() {
	echo "FAIL fdw_bloom_join: $*"
	failures=$((failures + 1))
}
ok() { echo "ok   $*"; }

cleanup() { q -d postgres -c "DROP DATABASE IF EXISTS \"$remote_db\" WITH (FORCE)" >/dev/null 2>&1 || true; }
trap cleanup EXIT

# ---- the remote side: 200,000 URLs -----------------------------------------------------------

q -d postgres -c "DROP DATABASE IF EXISTS \"$remote_db\" WITH (FORCE)" -c "CREATE DATABASE \"$remote_db\""
q -d "$remote_db" <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE TABLE urls (id integer PRIMARY KEY, url text NOT NULL);
INSERT INTO urls
SELECT i, 'https://www.site' || (i % 997) || '.example/' || substr(md5(i::text), 1, 2) || '/'
	|| md5('page' || i) || '.html'
FROM generate_series(1, 200000) AS i;
ANALYZE urls;
SQL

# ---- the local side ----------------------------------------------------------------------------

# The same generator: ids 10, 20, ..., 100000 exist remotely, 200001..210000 do not.
q -v remote_db="$remote_db" -v port="$PGPORT" -v user="${PGUSER:-$(id -un)}" \
	-v password="${PGPASSWORD:-}" <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;

CREATE SERVER bloom_remote FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host 'localhost', port :'port', dbname :'remote_db', extensions 'bloomfilter');
CREATE FOREIGN TABLE remote_urls (id integer NOT NULL, url text NOT NULL)
	SERVER bloom_remote OPTIONS (schema_name 'public', table_name 'urls');

-- the control: the same remote without the extensions option
CREATE SERVER plain_remote FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host 'localhost', port :'port', dbname :'remote_db');
CREATE FOREIGN TABLE remote_urls_plain (id integer NOT NULL, url text NOT NULL)
	SERVER plain_remote OPTIONS (schema_name 'public', table_name 'urls');

-- a user mapping for each, with the password when there is one
SELECT format('CREATE USER MAPPING FOR CURRENT_USER SERVER %I OPTIONS (user %L%s)', server, :'user',
	CASE WHEN :'password' <> '' THEN format(', password %L', :'password') ELSE '' END)
FROM unnest(ARRAY['bloom_remote', 'plain_remote']) AS server \gexec

CREATE TABLE local_urls (url text PRIMARY KEY);
INSERT INTO local_urls
SELECT 'https://www.site' || (i % 997) || '.example/' || substr(md5(i::text), 1, 2) || '/'
	|| md5('page' || i) || '.html'
FROM (SELECT 10 * j FROM generate_series(1, 10000) AS j
      UNION ALL
      SELECT 200000 + j FROM generate_series(1, 10000) AS j) AS s(i);
ANALYZE local_urls;

-- the local copy of the remote table, to compute every answer without postgres_fdw
CREATE TABLE remote_copy AS SELECT * FROM remote_urls;
ANALYZE remote_copy;

-- a stored filter, for the <@ form
CREATE TABLE local_filters (id integer PRIMARY KEY, f bloomfilter);
INSERT INTO local_filters SELECT 1, bloomfilter_agg(url, 20000, 0.01) FROM local_urls;

-- EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON) of a query, as jsonb
CREATE FUNCTION explain_json(query text) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON) ' || query INTO plan;
	RETURN plan::jsonb -> 0;
END
$$;

-- rows fetched from the remote by the query's Foreign Scan node (its actual rows plus those a
-- local Filter removed), its Remote SQL, and the execution time
-- (18 prints Actual Rows with two decimals: 200000.00)
CREATE FUNCTION foreign_scan(query text,
	OUT fetched bigint, OUT remote_sql text, OUT ms numeric)
LANGUAGE sql AS $$
	SELECT round((s ->> 'Actual Rows')::numeric)::bigint + coalesce(round((s ->> 'Rows Removed by Filter')::numeric)::bigint, 0),
		s ->> 'Remote SQL',
		round((p ->> 'Execution Time')::numeric, 1)
	FROM explain_json(query) AS p,
		jsonb_path_query_first(p, 'strict $.**?(@."Node Type" == "Foreign Scan")') AS s
$$;
SQL

count_local=$(q -c "SELECT count(*) FROM local_urls")
count_remote=$(q -c "SELECT count(*) FROM remote_urls")
count_both=$(q -c "SELECT count(*) FROM remote_copy r JOIN local_urls l USING (url)")
echo "remote_urls: $count_remote rows (through postgres_fdw), local_urls: $count_local rows, $count_both in both"
[ "$count_remote" = 200000 ] && [ "$count_local" = 20000 ] && [ "$count_both" = 10000 ] ||
	fail "unexpected test data: remote $count_remote, local $count_local, both $count_both"

# ---- 1. the membership test is shipped ---------------------------------------------------------

filter_sq='(SELECT bloomfilter_agg(url, 20000, 0.01) FROM local_urls)'

# check_shipped NAME QUERY: the Remote SQL of QUERY's EXPLAIN (VERBOSE, COSTS OFF) holds the
# membership test on the parameter; prints the plan
check_shipped() {
	local name=$1 query=$2 plan remote
	plan=$(q -c "EXPLAIN (VERBOSE, COSTS OFF) $query")
	echo "---- EXPLAIN (VERBOSE, COSTS OFF) $query"
	echo "$plan"
	remote=$(grep 'Remote SQL:' <<<"$plan" || true)
	if grep -Eq '\$[0-9]+::public\.bloomfilter OPERATOR\(public\.@>\) url|url OPERATOR\(public\.<@\) \$[0-9]+::public\.bloomfilter' <<<"$remote"; then
		ok "$name: the membership test is in the Remote SQL"
	else
		fail "$name: no @> or <@ on a parameter in the Remote SQL"
	fi
	# nothing left for the local server to filter
	if grep -q 'Filter:.*@>\|Filter:.*<@' <<<"$plan"; then
		fail "$name: the membership test is (also) evaluated locally"
	fi
}

# same_count NAME QUERY: QUERY over remote_urls and over remote_copy give the same count,
# which is left in $counted
same_count() {
	local name=$1 query=$2 via_fdw local
	via_fdw=$(q -c "$query")
	local=$(q -c "${query//remote_urls/remote_copy}")
	if [ "$via_fdw" = "$local" ]; then
		ok "$name: $via_fdw rows through postgres_fdw, $local locally"
	else
		fail "$name: $via_fdw rows through postgres_fdw, but $local locally"
	fi
	counted=$via_fdw
}

count_query="SELECT count(*) FROM remote_urls r WHERE $filter_sq @> r.url"
check_shipped "count with @>" "$count_query"
same_count "count with @>" "$count_query"
n_count=$counted
# the filter has no false negatives, and about 1 % false positives among the 190,000 others
[ "$n_count" -ge 10000 ] && [ "$n_count" -le $((10000 + 190000 * 2 / 100)) ] ||
	fail "count with @>: $n_count is not 10,000 members plus about 1 % of 190,000 strangers"

contained_query="SELECT count(*) FROM remote_urls r WHERE r.url <@ (SELECT f FROM local_filters WHERE id = 1)"
check_shipped "count with <@ and a stored filter" "$contained_query"
same_count "count with <@ and a stored filter" "$contained_query"
n_contained=$counted
[ "$n_contained" = "$n_count" ] || fail "the stored filter finds $n_contained rows, the aggregate $n_count"

# the control: without extensions 'bloomfilter' the test stays local (a Filter on the scan)
noext_plan=$(q -c "EXPLAIN (VERBOSE, COSTS OFF) ${count_query//remote_urls/remote_urls_plain}")
if grep -Eq 'Filter: \((\$0|\(InitPlan 1\)\.col1) @> r\.url\)' <<<"$noext_plan" && ! grep -q 'Remote SQL:.*@>' <<<"$noext_plan"; then
	ok "without extensions 'bloomfilter' the test is evaluated locally"
else
	fail "without extensions 'bloomfilter' the plan is not the expected local filter"
	echo "$noext_plan"
fi

scan_query="SELECT r.id, r.url FROM remote_urls r WHERE $filter_sq @> r.url"
check_shipped "scan with @>" "$scan_query"

# ---- 2. the join, without and with the Bloom pre-filter ----------------------------------------

join_plain="SELECT r.id, r.url FROM remote_urls r JOIN local_urls l ON r.url = l.url"
join_bloom="$join_plain WHERE $filter_sq @> r.url"
check_shipped "join with a Bloom pre-filter" "$join_bloom"

same_count "join without the pre-filter" "SELECT count(*) FROM ($join_plain) AS j"
n_join_plain=$counted
same_count "join with the pre-filter" "SELECT count(*) FROM ($join_bloom) AS j"
n_join_bloom=$counted
# same rows, not just as many
n_join_diff=$(q -c "SELECT count(*) FROM (($join_plain EXCEPT ALL $join_bloom) UNION ALL ($join_bloom EXCEPT ALL $join_plain)) AS d")
if [ "$n_join_plain" = 10000 ] && [ "$n_join_bloom" = 10000 ] && [ "$n_join_diff" = 0 ]; then
	ok "join: the same 10000 rows with and without the Bloom pre-filter"
else
	fail "join: $n_join_plain rows without the pre-filter, $n_join_bloom with it, $n_join_diff differ"
fi

# ---- 3. rows transferred, and a 1 MB filter ----------------------------------------------------

read -r fetched_plain _ ms_plain < <(q -F ' ' -c "SELECT fetched, 0, ms FROM foreign_scan(\$q\$$join_plain\$q\$)")
read -r fetched_bloom _ ms_bloom < <(q -F ' ' -c "SELECT fetched, 0, ms FROM foreign_scan(\$q\$$join_bloom\$q\$)")
read -r fetched_noext _ ms_noext < <(q -F ' ' -c "SELECT fetched, 0, ms FROM foreign_scan(\$q\$${join_bloom//remote_urls/remote_urls_plain}\$q\$)")
read -r fetched_count _ ms_count < <(q -F ' ' -c "SELECT fetched, 0, ms FROM foreign_scan(\$q\$$count_query\$q\$)")
fetched_expected=$(q -c "SELECT count(*) FROM remote_copy r WHERE $filter_sq @> r.url")
read -r small_bytes small_text < <(q -F ' ' -c "SELECT octet_length(f::bytea), octet_length(f::text) FROM $filter_sq AS s(f)")

echo
echo "rows fetched by the Foreign Scan of the join (EXPLAIN ANALYZE VERBOSE, actual rows):"
printf '  %-44s %8s rows  %8s ms\n' "without a filter" "$fetched_plain" "$ms_plain"
printf '  %-44s %8s rows  %8s ms\n' "with bloomfilter_agg(url, 20000, 0.01) @> url" "$fetched_bloom" "$ms_bloom"
printf '  %-44s %8s rows  %8s ms\n' "the same, server without extensions option" "$fetched_noext" "$ms_noext"
printf '  %-44s %8s rows  %8s ms\n' "count(*) with the filter (aggregate pushed)" "$fetched_count" "$ms_count"
echo "  filter: $small_bytes bytes, sent as a $small_text-byte text parameter"

[ "$fetched_plain" = 200000 ] || fail "the join without a filter fetched $fetched_plain rows, not 200000"
[ "$fetched_bloom" = "$fetched_expected" ] ||
	fail "the join with the filter fetched $fetched_bloom rows, the filter passes $fetched_expected"
[ "$fetched_noext" = 200000 ] ||
	fail "without the extensions option the scan fetched $fetched_noext rows, not all 200000"
[ "$fetched_count" = 1 ] || echo "note: count(*) was not pushed down as an aggregate ($fetched_count rows fetched)"

# A filter sized for 860,000 items: just over 1 MB (1.4 MB as the text parameter), holding
# 20,000: almost no false positives, so only the 10,000 members cross.
big_sq='(SELECT bloomfilter_agg(url, 860000, 0.01) FROM local_urls)'
big_query="SELECT r.id, r.url FROM remote_urls r WHERE $big_sq @> r.url"
check_shipped "1 MB filter" "$big_query"
read -r big_bytes big_text < <(q -F ' ' -c "SELECT octet_length(f::bytea), octet_length(f::text) FROM $big_sq AS s(f)")
read -r fetched_big _ ms_big < <(q -F ' ' -c "SELECT fetched, 0, ms FROM foreign_scan(\$q\$$big_query\$q\$)")
same_count "1 MB filter" "SELECT count(*) FROM ($big_query) AS s"
n_big=$counted
printf '  %-44s %8s rows  %8s ms\n' "with bloomfilter_agg(url, 860000, 0.01) @> url" "$fetched_big" "$ms_big"
echo "  filter: $big_bytes bytes, sent as a $big_text-byte text parameter"
[ "$big_bytes" -ge 1048576 ] || fail "the large filter has only $big_bytes bytes"
[ "$fetched_big" = "$n_big" ] || fail "the 1 MB filter's scan fetched $fetched_big rows, the count is $n_big"
[ "$fetched_big" -ge 10000 ] && [ "$fetched_big" -lt "$fetched_bloom" ] ||
	fail "the 1 MB filter (2 % full) should pass fewer strangers: $fetched_big rows against $fetched_bloom"

# ---- 4. the other direction: the remote builds the filter, one row comes back -----------------

agg_query="SELECT bloomfilter_agg(url, 200000, 0.01) FROM remote_urls"
agg_plan=$(q -c "EXPLAIN (VERBOSE, COSTS OFF) $agg_query")
echo "---- EXPLAIN (VERBOSE, COSTS OFF) $agg_query"
echo "$agg_plan"
if grep -q 'Remote SQL: SELECT public\.bloomfilter_agg(url' <<<"$agg_plan"; then
	ok "bloomfilter_agg over the foreign table is computed by the remote"
else
	fail "bloomfilter_agg over the foreign table is not pushed down"
fi
same_filter=$(q -c "SELECT ($agg_query)::bytea = (SELECT bloomfilter_agg(url, 200000, 0.01) FROM remote_copy)::bytea")
[ "$same_filter" = t ] && ok "the remote's filter equals the local one, byte for byte" ||
	fail "the filter built by the remote differs from the one built locally"
read -r fetched_agg _ ms_agg < <(q -F ' ' -c "SELECT fetched, 0, ms FROM foreign_scan(\$q\$$agg_query\$q\$)")
read -r agg_bytes agg_text < <(q -F ' ' -c "SELECT octet_length(f::bytea), octet_length(f::text) FROM ($agg_query) AS s(f)")
printf '  %-44s %8s rows  %8s ms\n' "remote bloomfilter_agg(url, 200000, 0.01)" "$fetched_agg" "$ms_agg"
echo "  filter: $agg_bytes bytes, received as $agg_text bytes of text"
[ "$fetched_agg" = 1 ] || fail "the pushed-down aggregate fetched $fetched_agg rows, not 1"
# local rows that may exist remotely: the 10,000 shared ones plus about 1 % of the others
n_local_may=$(q -c "SELECT count(*) FROM local_urls WHERE ($agg_query) @> url")
echo "  local_urls rows the remote filter passes: $n_local_may of $count_local"
[ "$n_local_may" -ge 10000 ] && [ "$n_local_may" -le 10200 ] ||
	fail "the remote filter passes $n_local_may local rows, not 10,000 plus about 1 % of 10,000"

if [ "$failures" -ne 0 ]; then
	echo "FAIL fdw_bloom_join: $failures check(s) failed"
	exit 1
fi
echo "PASS fdw_bloom_join"
