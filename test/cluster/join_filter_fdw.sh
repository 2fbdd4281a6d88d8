#!/usr/bin/env bash
# test/cluster/join_filter_fdw.sh - automatic join filters across postgres_fdw
# (bloomfilter.join_filter): the plain join of a local table with a foreign one sends the local
# side's keys to the remote as a filter, so that only the rows that may match cross the network.
#
# Sets up a loopback "remote" database with the extension and 200,000 URLs (the same generator
# as fdw_bloom_join.sh), reached through postgres_fdw with extensions 'bloomfilter', and a local
# table of 20,000 URLs, half of which exist remotely.  Checks that, with join_filter = on:
#   - the Remote SQL of the plain join carries the test ($N IS NULL OR $N @> url), and the
#     Foreign Scan fetches at most 5 % more rows than the hand-written pre-filter
#     (SELECT bloomfilter_agg(url, 20000, 0.01) FROM local_urls) @> r.url does, and far fewer
#     than the 200,000 of the plain join with join_filter = off;
#   - every answer equals the answer with join_filter = off: inner join, IN, a join on integer
#     keys of two widths (int4 = int8), a LEFT JOIN (the remote side preserved: its parameter is
#     NULL and every row comes), a prepared statement run five times with a generic plan;
#   - a server without the extensions option gets no remote test;
#   - a foreign table without statistics gets no filter at on (also with use_remote_estimate),
#     gets one at always, and at on once analysed;
#   - a remote parameter no join uses is NULL (not an error: "no value found for parameter");
#   - a varchar column gets the remote test too (as text, the extension's own operator);
#   - a role that may create objects in public and creates its own @>(bloomfilter, varchar)
#     changes nothing: the test shipped is the extension's, answers stay equal, and the
#     role's function is never called;
#   - a PL/pgSQL function whose query uses a variable (custom plans, then a generic one) runs
#     and answers as with join_filter = off (the placeholder once crashed the server there);
#   - an UPDATE ... FROM and a SELECT ... FOR UPDATE joining the foreign table that wait for a
#     concurrent update and recheck the row (EvalPlanQual) update and return the same rows
#     (the recheck once met the placeholder: "no value found for parameter"), in plain SQL
#     and from PL/pgSQL;
#   - the server log shows no crash.
# Prints the rows fetched and the times (times are never asserted).
#
# Run by scripts/server-tests.sh inside the throwaway cluster (PG* variables set, PGUSER a
# superuser, the extension installed).  Creates the remote database <PGDATABASE>_remote and
# drops it at the end.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

: "${PGDATABASE:?PGDATABASE must name the (empty) local database}"
: "${PGPORT:=5432}"
remote_db="${PGDATABASE:0:50}_remote"
t0=$EPOCHREALTIME
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"

cleanup() { q -d postgres -c "DROP DATABASE IF EXISTS \"$remote_db\" WITH (FORCE)" >/dev/null 2>&1 || true; }
trap cleanup EXIT

q -d postgres -c "DROP DATABASE IF EXISTS \"$remote_db\" WITH (FORCE)" -c "CREATE DATABASE \"$remote_db\""
q -d "$remote_db" <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE TABLE urls (id integer PRIMARY KEY, id8 bigint NOT NULL, url text NOT NULL);
INSERT INTO urls
SELECT i, i, 'https://www.site' || (i % 997) || '.example/' || substr(md5(i::text), 1, 2) || '/'
	|| md5('page' || i) || '.html'
FROM generate_series(1, 200000) AS i;
ANALYZE urls;
SQL

q -v remote_db="$remote_db" -v port="$PGPORT" -v user="${PGUSER:-$(id -un)}" \
	-v password="${PGPASSWORD:-}" <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;
CREATE SERVER bloom_remote FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host 'localhost', port :'port', dbname :'remote_db', extensions 'bloomfilter');
CREATE SERVER plain_remote FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host 'localhost', port :'port', dbname :'remote_db');
SELECT format('CREATE USER MAPPING FOR CURRENT_USER SERVER %I OPTIONS (user %L%s)', server, :'user',
	CASE WHEN :'password' <> '' THEN format(', password %L', :'password') ELSE '' END)
FROM unnest(ARRAY['bloom_remote', 'plain_remote']) AS server \gexec
CREATE FOREIGN TABLE remote_urls (id integer NOT NULL, id8 bigint NOT NULL, url text NOT NULL)
	SERVER bloom_remote OPTIONS (schema_name 'public', table_name 'urls');
CREATE FOREIGN TABLE remote_urls_plain (id integer NOT NULL, id8 bigint NOT NULL, url text NOT NULL)
	SERVER plain_remote OPTIONS (schema_name 'public', table_name 'urls');
CREATE FOREIGN TABLE remote_urls_vc (id integer NOT NULL, url varchar NOT NULL)
	SERVER bloom_remote OPTIONS (schema_name 'public', table_name 'urls');
ANALYZE remote_urls;
ANALYZE remote_urls_plain;
ANALYZE remote_urls_vc;

-- ids 10, 20, ..., 100000 exist remotely, 200001..210000 do not
CREATE TABLE local_urls (id integer NOT NULL, url text PRIMARY KEY);
INSERT INTO local_urls
SELECT i, 'https://www.site' || (i % 997) || '.example/' || substr(md5(i::text), 1, 2) || '/'
	|| md5('page' || i) || '.html'
FROM (SELECT 10 * j FROM generate_series(1, 10000) AS j
      UNION ALL
      SELECT 200000 + j FROM generate_series(1, 10000) AS j) AS s(i);
ANALYZE local_urls;

-- the rows the query's Foreign Scan fetched, and its Remote SQL, with join_filter set to mode
CREATE FUNCTION foreign_scan(query text, mode text, OUT fetched bigint, OUT remote_sql text,
                             OUT ms numeric)
LANGUAGE plpgsql AS $$
DECLARE
	p jsonb;
	s jsonb;
BEGIN
	PERFORM set_config('bloomfilter.join_filter', mode, true);
	EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON) ' || query INTO p;
	p := p -> 0;
	s := jsonb_path_query_first(p, 'strict $.**?(@."Node Type" == "Foreign Scan")');
	-- (18 prints Actual Rows with two decimals)
	fetched := round((s ->> 'Actual Rows')::numeric)::bigint;
	remote_sql := s ->> 'Remote SQL';
	ms := round((p ->> 'Execution Time')::numeric, 1);
END
$$;

-- a query's rows, sorted, with join_filter set to mode
CREATE FUNCTION rows_of(query text, mode text) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	r text[];
BEGIN
	PERFORM set_config('bloomfilter.join_filter', mode, true);
	EXECUTE format('SELECT coalesce(array_agg(x::text ORDER BY x::text), ''{}'') FROM (%s) x', query)
	INTO r;
	RETURN r;
END
$$;
SQL

# every later session loads the library (the planner hook)
q -c "ALTER DATABASE \"$PGDATABASE\" SET session_preload_libraries = 'bloomfilter'"
log_watch

join="SELECT l.id, r.id FROM local_urls l JOIN remote_urls r ON r.url = l.url"
hand="SELECT l.id, r.id FROM local_urls l JOIN remote_urls r ON r.url = l.url
      WHERE (SELECT bloomfilter_agg(url, 20000, 0.01) FROM local_urls) @> r.url"

read -r auto_rows auto_ms < <(qa -F ' ' -c "SELECT fetched, ms FROM foreign_scan(\$q\$$join\$q\$, 'on')")
read -r off_rows off_ms < <(qa -F ' ' -c "SELECT fetched, ms FROM foreign_scan(\$q\$$join\$q\$, 'off')")
read -r hand_rows hand_ms < <(qa -F ' ' -c "SELECT fetched, ms FROM foreign_scan(\$q\$$hand\$q\$, 'off')")
echo "rows fetched from the remote: plain join with join_filter = on $auto_rows ($auto_ms ms), off $off_rows" \
	"($off_ms ms), hand-written pre-filter $hand_rows ($hand_ms ms)"
remote_sql=$(qa -c "SELECT remote_sql FROM foreign_scan(\$q\$$join\$q\$, 'on')")
echo "Remote SQL: $remote_sql"
check "the Remote SQL tests a shipped filter" \
	grep -qE '\(\(\$[0-9]+::public\.bloomfilter IS NULL\) OR \(\$[0-9]+::public\.bloomfilter OPERATOR\(public\.@>\) url\)\)' <<<"$remote_sql"
check "rows fetched within 5 % of the hand-written pre-filter ($auto_rows vs $hand_rows)" \
	test "$((auto_rows * 100))" -le "$((hand_rows * 105))"
check "rows fetched far fewer than the plain join's ($auto_rows vs $off_rows)" \
	test "$((auto_rows * 10))" -le "$off_rows"

same() { # query: the same rows with join_filter on, always and off
	local what=$1 query=$2 r
	r=$(qa -c "SELECT rows_of(\$q\$$query\$q\$, 'off') = rows_of(\$q\$$query\$q\$, 'on')
	             AND rows_of(\$q\$$query\$q\$, 'off') = rows_of(\$q\$$query\$q\$, 'always')" 2>&1 || true)
	check "$what: the same rows with join_filter on, always and off" test "$r" = t
}
same "inner join" "$join"
same "IN" "SELECT r.id FROM remote_urls r WHERE r.url IN (SELECT url FROM local_urls)"
same "int4 = int8" "SELECT l.id, r.id FROM local_urls l JOIN remote_urls r ON r.id8 = l.id"
same "left join, remote preserved" "SELECT r.id, l.id FROM remote_urls r LEFT JOIN local_urls l ON r.url = l.url WHERE r.id % 7 = 0"
same "semi join through a subquery" "SELECT count(*) FROM (SELECT r.url FROM remote_urls r WHERE r.id < 50000) s JOIN local_urls l ON l.url = s.url"
same "no extensions option" "SELECT l.id, r.id FROM local_urls l JOIN remote_urls_plain r ON r.url = l.url"

plain_sql=$(qa -c "SELECT remote_sql FROM foreign_scan('SELECT l.id, r.id FROM local_urls l JOIN remote_urls_plain r ON r.url = l.url', 'on')")
check "a server without extensions 'bloomfilter' gets no remote test" \
	bash -c "! grep -q bloomfilter <<<'$plain_sql'"
left_rows=$(qa -c "SELECT fetched FROM foreign_scan('SELECT r.id, l.id FROM remote_urls r LEFT JOIN local_urls l ON r.url = l.url', 'on')")
check "a left join's preserved remote side fetches every row ($left_rows)" test "$left_rows" = 200000

# a prepared statement with a generic plan, five times (the parameter wired each time)
out=$(q -At <<SQL
SET bloomfilter.join_filter = on;
SET plan_cache_mode = force_generic_plan;
PREPARE j(int) AS SELECT count(*) FROM local_urls l JOIN remote_urls r ON r.url = l.url WHERE l.id > \$1;
EXECUTE j(0); EXECUTE j(0); EXECUTE j(50000); EXECUTE j(0); EXECUTE j(0);
SET bloomfilter.join_filter = off;
EXECUTE j(0);
SQL
)
check "a generic plan, five executions, then with join_filter off: $(echo $out)" \
	test "$(echo $out)" = "10000 10000 5000 10000 10000 10000"

# a varchar column: the remote test, fewer rows, the same answers
vc_join="SELECT l.id, r.id FROM local_urls l JOIN remote_urls_vc r ON r.url = l.url"
vc_sql=$(qa -c "SELECT remote_sql FROM foreign_scan(\$q\$$vc_join\$q\$, 'on')" 2>&1 || true)
vc_rows=$(qa -c "SELECT fetched FROM foreign_scan(\$q\$$vc_join\$q\$, 'on')" 2>&1 || true)
check "a varchar column gets the remote test: $vc_sql" \
	grep -qE 'OPERATOR\(public\.@>\) url\)' <<<"$vc_sql"
tenth() { [[ $1 =~ ^[0-9]+$ ]] && [ $(($1 * 10)) -le 200000 ]; }
check "a varchar column: rows fetched far fewer than 200,000 ($vc_rows)" tenth "$vc_rows"
same "varchar = text" "$vc_join"

# statistics: a foreign table nobody analysed gets no filter at on (PostgreSQL estimates that every
# remote row has a partner, and a filter that removes nothing does not pay); use_remote_estimate
# gives the row count but not the key's statistics, so neither; always places it, and after
# ANALYZE on does (README, "Automatic join filters")
q <<'SQL'
CREATE FOREIGN TABLE remote_urls_new (id integer NOT NULL, url text NOT NULL)
	SERVER bloom_remote OPTIONS (schema_name 'public', table_name 'urls');
CREATE FOREIGN TABLE remote_urls_est (id integer NOT NULL, url text NOT NULL)
	SERVER bloom_remote OPTIONS (schema_name 'public', table_name 'urls', use_remote_estimate 'true');
SQL
fetched_of() { # table mode
	qa -c "SELECT fetched FROM foreign_scan('SELECT l.id, r.id FROM local_urls l JOIN $1 r ON r.url = l.url', '$2')"
}
new_on=$(fetched_of remote_urls_new on)
est_on=$(fetched_of remote_urls_est on)
new_always=$(fetched_of remote_urls_new always)
q -c "ANALYZE remote_urls_new"
analysed_on=$(fetched_of remote_urls_new on)
check "no statistics: on fetches every row ($new_on), with use_remote_estimate too ($est_on)" \
	test "$new_on $est_on" = "200000 200000"
check "no statistics: always filters ($new_always rows fetched)" tenth "$new_always"
check "after ANALYZE of the foreign table: on filters ($analysed_on rows fetched)" tenth "$analysed_on"

# a role that may create objects in public shadows @> for varchar; nothing changes
q <<'SQL'
CREATE ROLE mallory LOGIN;
GRANT CREATE, USAGE ON SCHEMA public TO mallory;
CREATE TABLE mallory_calls (n int);
GRANT INSERT ON mallory_calls TO mallory;
SET ROLE mallory;
CREATE FUNCTION public.mallory_contains(public.bloomfilter, varchar) RETURNS boolean
LANGUAGE plpgsql AS $$ BEGIN INSERT INTO mallory_calls VALUES (1); RETURN true; END $$;
CREATE OPERATOR public.@> (LEFTARG = public.bloomfilter, RIGHTARG = varchar,
                           FUNCTION = public.mallory_contains);
CREATE FUNCTION public.mallory_contains(public.bloomfilter, integer, integer) RETURNS boolean
LANGUAGE sql AS 'SELECT true';
RESET ROLE;
SQL
vc_sql=$(qa -c "SELECT remote_sql FROM foreign_scan(\$q\$$vc_join\$q\$, 'on')" 2>&1 || true)
check "with a shadowing @>(bloomfilter, varchar): the remote test is still shipped" \
	grep -qE 'OPERATOR\(public\.@>\) url\)' <<<"$vc_sql"
same "varchar = text, shadowing operator" "$vc_join"
same "inner join, shadowing operator" "$join"
calls=$(qa -c "SELECT count(*) FROM mallory_calls")
check "the shadowing operator's function is never called ($calls calls)" test "$calls" = 0

# PL/pgSQL with a variable: custom plans, then a generic plan (the sixth call on)
q <<'SQL'
CREATE FUNCTION plpgsql_join(lim int, mode text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	PERFORM set_config('bloomfilter.join_filter', mode, true);
	SELECT count(*) INTO n FROM local_urls l JOIN remote_urls r ON r.id = l.id WHERE l.id > lim;
	RETURN n;
END
$$;
CREATE FUNCTION plpgsql_join_vc(lim int, mode text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	PERFORM set_config('bloomfilter.join_filter', mode, true);
	SELECT count(*) INTO n FROM local_urls l JOIN remote_urls_vc r ON r.url = l.url WHERE l.id > lim;
	RETURN n;
END
$$;
SQL
for fn in plpgsql_join plpgsql_join_vc; do
	out=$(qa -c "SELECT string_agg($fn(lim, mode)::text, ' ' ORDER BY i)
	             FROM (VALUES (1, 0, 'on'), (2, 0, 'always'), (3, 50000, 'on'), (4, 0, 'on'),
	                          (5, 0, 'on'), (6, 0, 'on'), (7, 50000, 'always'), (8, 0, 'on'),
	                          (9, 0, 'off')) AS v(i, lim, mode)" 2>&1 || true)
	check "$fn: a PL/pgSQL variable in a join with a foreign table, nine calls: $out" \
		test "$out" = "10000 10000 5000 10000 10000 10000 5000 10000 10000"
done

# EvalPlanQual: a statement that waits for a concurrent update of a row it joins rechecks the
# row, the foreign table's part included
q <<'SQL'
CREATE FUNCTION plpgsql_update(lim int) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	UPDATE local_urls l SET id = l.id FROM remote_urls r WHERE r.id = l.id AND l.id <= lim;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END
$$;
SQL
epq() { # what mode statement: run statement while another session holds id 10 updated
	local what=$1 mode=$2 stmt=$3 blocker out
	PGAPPNAME=epq_blocker q -At >"$BF_TMPDIR/blocker.out" 2>&1 <<'SQL' &
BEGIN;
UPDATE local_urls SET url = url WHERE id = 10;
DO $$
BEGIN
	FOR i IN 1..400 LOOP
		PERFORM pg_stat_clear_snapshot();
		EXIT WHEN EXISTS (SELECT FROM pg_stat_activity
		                  WHERE wait_event_type = 'Lock' AND datname = current_database());
		PERFORM pg_sleep(0.05);
	END LOOP;
END
$$;
SELECT pg_stat_clear_snapshot();
SELECT 'waited: ' || count(*) FROM pg_stat_activity
WHERE wait_event_type = 'Lock' AND datname = current_database();
COMMIT;
SQL
	blocker=$!
	for _ in $(seq 200); do
		[ "$(qa -c "SELECT count(*) FROM pg_stat_activity
		            WHERE application_name = 'epq_blocker' AND backend_xid IS NOT NULL")" = 1 ] && break
		sleep 0.05
	done
	out=$(PGOPTIONS="$PGOPTIONS -c bloomfilter.join_filter=$mode" qa -c "$stmt" 2>&1 | tr '\n' ' ' || true)
	wait "$blocker" || true
	check "EvalPlanQual, $what, join_filter = $mode: ${out% } ($(grep -o 'waited: [0-9]*' "$BF_TMPDIR/blocker.out"))" \
		bash -c "[ '${out% }' = '$4' ] && grep -q 'waited: 1' '$BF_TMPDIR/blocker.out'"
}
for mode in on always; do
	epq "UPDATE ... FROM" "$mode" \
		"WITH u AS (UPDATE local_urls l SET id = l.id FROM remote_urls r WHERE r.id = l.id AND l.id <= 100 RETURNING l.id) SELECT count(*) FROM u" 10
	epq "SELECT ... FOR UPDATE" "$mode" \
		"SELECT count(*) FROM (SELECT l.id FROM local_urls l JOIN remote_urls r ON r.id = l.id WHERE l.id <= 100 FOR UPDATE OF l) s" 10
	epq "UPDATE ... FROM in PL/pgSQL" "$mode" "SELECT plpgsql_update(100)" 10
done

bad=$(log_crashes)
check "the server log shows no crash${bad:+: $bad}" test -z "$bad"

t1=$EPOCHREALTIME
finish "fetched $auto_rows rows (hand-written $hand_rows, plain $off_rows); answers equal" "see above"
