#!/usr/bin/env bash
# test/cluster/sqlsmith.sh - random SQL from sqlsmith against filters of every variant must not
# crash the server nor raise an internal error in the extension.
#
# Fills $PGDATABASE with tables holding filters of every variant (empty, filled, grown to
# several stages, saturated, tiny and large, NULL) next to columns of every element type
# (smallint, integer, bigint, text, bytea, uuid, and numeric, date, timestamptz, jsonb, inet
# and arrays through the anyelement and anyarray overloads), then lets sqlsmith (Debian
# package sqlsmith) generate and run random queries over them as an unprivileged role (only
# user tables: --exclude-catalog; SELECT everywhere, writes to one scratch table) for a
# bounded time.  sqlsmith picks functions and operators by type, so the many bloomfilter
# columns make it call the extension's functions, operators and aggregates with filters,
# elements and arbitrary arguments.
#
# Passes when, afterwards,
#   - a session opened before the run is still connected (a backend crash makes the
#     postmaster end every session), and
#   - the part of the server log written during the run shows no crash ("terminated by
#     signal", "server process ... was terminated", "PANIC", "terminating connection because
#     of crash") and no internal error (SQLSTATE XX000) raised in the extension (in one of
#     its files under src/, or with a message naming bloomfilter).  Internal errors raised
#     elsewhere in PostgreSQL by the random calls are listed as notes.
# Ordinary errors (bad arguments, incompatible filters, sizes past 1 GB, ...) are expected:
# the most frequent ones from the extension are listed for the record.  On a crash the
# whole statement the backend was running is printed (the role's statements are logged,
# about 1.5 MB of log a second, since the postmaster's own report cuts them at 1 kB).
#
# The run lasts FUZZ_SQL_SECONDS seconds (default 30; "make fuzz" sets a longer one) and at
# most FUZZ_SQL_QUERIES queries (default unlimited); BF_SQLSMITH_SEED fixes sqlsmith's seed
# (default: a new one each run, printed, so that a failing run can be repeated).  The server
# log is found through pg_current_logfile() or pg_lsclusters; if it cannot be read, only the
# surviving session shows that nothing crashed (said in the output).
#
# Run by scripts/server-tests.sh; by hand, inside pg_virtualenv:
#     createdb x; PGDATABASE=x bash test/cluster/sqlsmith.sh
# Creates a login role for sqlsmith and drops it at the end.  Prints one PASS or FAIL line;
# exits non-zero on failure.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

: "${PGDATABASE:?set PGDATABASE to an empty database}"
ROOT=${BF_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
secs=${FUZZ_SQL_SECONDS:-30}
max_queries=${FUZZ_SQL_QUERIES:-100000000}
seed=${BF_SQLSMITH_SEED:-$(( $(date +%s) % 1000000 + $$ ))}
db=$PGDATABASE
role="bf_sqlsmith_$$"
password=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
work=$(mktemp -d -t bf-sqlsmith.XXXXXX)

export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"


if ! command -v sqlsmith >/dev/null; then
	die "sqlsmith is not installed (Debian package sqlsmith; 'make deps' installs it)"
fi

cleanup() {
	if [ -n "${sentinel_pid:-}" ]; then kill "$sentinel_pid" 2>/dev/null || true; fi
	q -d "$db" -c "DROP OWNED BY $role" >/dev/null 2>&1 || true
	q -d postgres -c "DROP ROLE IF EXISTS $role" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

# ---- the database -----------------------------------------------------------------------------

q -d "$db" <<SQL
CREATE EXTENSION bloomfilter;

-- elements of every type, and the filters built from them in every variant
CREATE TABLE elems (
	id int PRIMARY KEY, s smallint, i integer, l bigint, t text, b bytea, u uuid,
	n numeric, d date, ts timestamptz, j jsonb, a inet, ia integer[], ta text[]
);
INSERT INTO elems
SELECT g, (g % 30000)::smallint, g, g::bigint * 1000003, 'item ' || g, decode(md5(g::text), 'hex'),
       md5('u' || g)::uuid, g / 3.0, date '2020-01-01' + g, timestamptz '2020-01-01 00:00+00' + g * interval '1 hour',
       jsonb_build_object('k', g), ('10.1.' || (g / 256) || '.' || (g % 256))::inet,
       ARRAY[g, g + 1, g + 2], ARRAY['item ' || g, 'item ' || (g + 1)]
FROM generate_series(1, 300) AS g;
INSERT INTO elems (id) VALUES (0);  -- a row of NULLs

CREATE TABLE filters (id serial PRIMARY KEY, variant text, what text, f bloomfilter);
INSERT INTO filters (variant, what, f)
SELECT v, w, f
FROM unnest('{blocked,classic,counting,scalable,cuckoo}'::text[]) AS v,
     LATERAL (VALUES
		('empty', bloomfilter_create(100, 0.01, v)),
		('filled', bloomfilter_add_all(bloomfilter_create(100, 0.01, v), ARRAY(SELECT generate_series(1, 100)))),
		('overfilled or grown', bloomfilter_add_all(bloomfilter_create(20, 0.05, v), ARRAY(SELECT generate_series(1, 400)))),
		('text items', (SELECT bloomfilter_agg(t, 300, 0.01, v) FROM elems)),
		('uuid items', (SELECT bloomfilter_agg(u, 300, 0.01, v) FROM elems)),
		('seed -1', bloomfilter_create(100, 0.001, v, -1) || 'x'::text),
		('large', bloomfilter_add_all(bloomfilter_create(50000, 0.01, v), ARRAY(SELECT generate_series(1, 20000)))),
		('null', NULL)
	) AS s(w, f)
UNION ALL
SELECT v, 'tiny, from a bit count', bloomfilter_create_bits(64, CASE v WHEN 'cuckoo' THEN 8 ELSE 3 END, v) || 42
FROM unnest('{blocked,classic,counting,cuckoo}'::text[]) AS v
UNION ALL
SELECT 'counting', 'saturated', bloomfilter_add_all(bloomfilter_create(50, 0.01, 'counting'), ARRAY(SELECT 'same'::text FROM generate_series(1, 40)))
UNION ALL
SELECT 'cuckoo', 'one item 8 times (all its buckets hold)', bloomfilter_add_all(bloomfilter_create(50, 0.01, 'cuckoo'), ARRAY(SELECT 7 FROM generate_series(1, 8)))
UNION ALL
SELECT 'scalable', 'count-free aggregate', (SELECT bloomfilter_agg(i) FROM elems);

-- one table per variant, filters beside the elements they hold
CREATE TABLE blocked_rows AS
	SELECT e.*, bloomfilter_create(10, 0.01, 'blocked') || e.i AS f FROM elems AS e;
CREATE TABLE classic_rows AS
	SELECT e.*, bloomfilter_create(10, 0.01, 'classic') || e.t AS f FROM elems AS e;
CREATE TABLE counting_rows AS
	SELECT e.*, bloomfilter_create(10, 0.01, 'counting') || e.l AS f FROM elems AS e;
CREATE TABLE scalable_rows AS
	SELECT e.*, bloomfilter_add_all(bloomfilter_create(2, 0.01, 'scalable'), e.ia) AS f FROM elems AS e;
CREATE TABLE cuckoo_rows AS
	SELECT e.*, bloomfilter_add_all(bloomfilter_create_bits(32, 8, 'cuckoo'), e.ta) AS f FROM elems AS e;
-- per-type filter columns side by side
CREATE TABLE by_type AS
SELECT v AS variant,
       (SELECT bloomfilter_agg(s, 300, 0.01, v) FROM elems) AS f_s,
       (SELECT bloomfilter_agg(i, 300, 0.01, v) FROM elems) AS f_i,
       (SELECT bloomfilter_agg(l, 300, 0.01, v) FROM elems) AS f_l,
       (SELECT bloomfilter_agg(b, 300, 0.01, v) FROM elems) AS f_b,
       (SELECT bloomfilter_agg(n, 300, 0.01, v) FROM elems) AS f_n,
       (SELECT bloomfilter_agg(d, 300, 0.01, v) FROM elems) AS f_d,
       (SELECT bloomfilter_agg(j, 300, 0.01, v) FROM elems) AS f_j,
       (SELECT bloomfilter_agg(a, 300, 0.01, v) FROM elems) AS f_a
FROM unnest('{blocked,classic,counting,scalable,cuckoo}'::text[]) AS v;
CREATE VIEW filter_info AS SELECT filters.id, filters.what, i.* FROM filters, bloomfilter_info(f) AS i;
CREATE TABLE scratch (LIKE filters INCLUDING ALL);
INSERT INTO scratch SELECT * FROM filters;
ANALYZE;

CREATE ROLE $role LOGIN PASSWORD '$password';
GRANT SELECT ON ALL TABLES IN SCHEMA public TO $role;
GRANT INSERT, UPDATE, DELETE ON scratch TO $role;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO $role;
-- SQLSTATEs in the log, every statement (to show what crashed a backend: the
-- postmaster's own report cuts it at 1 kB), per-function call counts, and a
-- bound on every query
ALTER ROLE $role SET log_error_verbosity = verbose;
ALTER ROLE $role SET log_statement = 'all';
ALTER ROLE $role SET track_functions = 'all';
ALTER ROLE $role SET statement_timeout = '2s';
SQL

# ---- the server log ---------------------------------------------------------------------------

logfile=$(q -d "$db" -At -c "SELECT coalesce(pg_current_logfile(), '')")
if [ -n "$logfile" ] && [ "${logfile#/}" = "$logfile" ]; then
	logfile="$(q -d "$db" -At -c "SHOW data_directory")/$logfile"
fi
if [ -z "$logfile" ] && command -v pg_lsclusters >/dev/null; then
	logfile=$(pg_lsclusters -h 2>/dev/null | awk -v port="${PGPORT:-5432}" '$3 == port { print $7; exit }')
fi
if [ -n "$logfile" ] && [ -r "$logfile" ]; then
	log_start=$(stat -c %s "$logfile")
	echo "server log: $logfile (from byte $log_start)"
else
	echo "note: the server log cannot be read here (${logfile:-not found}); the surviving session is the only crash check"
	logfile=""
fi

# ---- a session that must survive the run ------------------------------------------------------

mkfifo "$work/sentinel.in"
"$bindir/psql" -X -At -d "$db" <"$work/sentinel.in" >"$work/sentinel.out" 2>&1 &
sentinel_pid=$!
exec 7>"$work/sentinel.in"
echo "SELECT 'sentinel ' || pg_backend_pid();" >&7

# ---- sqlsmith ---------------------------------------------------------------------------------

target="dbname=$db user=$role password=$password host=${PGHOST:-localhost} port=${PGPORT:-5432}"
echo "sqlsmith: $secs s, seed $seed (repeat with BF_SQLSMITH_SEED=$seed FUZZ_SQL_SECONDS=$secs)"
t0=$EPOCHREALTIME
rc=0
(cd "$work" && timeout --kill-after=10 "$secs" sqlsmith --target="$target" --exclude-catalog \
	--seed="$seed" --max-queries="$max_queries" --verbose) >"$work/sqlsmith.out" 2>&1 || rc=$?
t1=$EPOCHREALTIME
sleep 1 # let the backends of the run finish writing the log and their statistics

echo "SELECT 'sentinel alive';" >&7
echo '\q' >&7
exec 7>&-
wait "$sentinel_pid" && src=0 || src=$?
sentinel_pid=
sentinel_out=$(cat "$work/sentinel.out")

status=0
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; then
	echo "FAIL: sqlsmith stopped with exit status $rc before its time was up:"
	tail -20 "$work/sqlsmith.out"
	status=1
fi
# sqlsmith prints one character per query: '.' ok, 'e' error, 't' timeout, 'C' connection lost
read -r n_ok n_err n_other < <(grep -E '^[.a-zA-Z]+$' "$work/sqlsmith.out" |
	awk '{ n += length($0); o += gsub(/\./, ""); e += gsub(/e/, "") } END { print o + 0, e + 0, n - o - e }')
echo "queries: $((n_ok + n_err + n_other)) ($n_ok ok, $n_err errors, $n_other other) in" \
	"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }') s"

# how much of the extension the run reached
q -d "$db" -At -F ' ' <<'SQL' | awk '{ print "extension functions called: " $1 " of " $2 ", " $3 " calls" }'
SELECT count(s.funcid), count(*), coalesce(sum(s.calls), 0)
FROM pg_depend AS d
JOIN pg_extension AS e ON e.oid = d.refobjid AND e.extname = 'bloomfilter'
LEFT JOIN pg_stat_user_functions AS s ON s.funcid = d.objid
WHERE d.classid = 'pg_proc'::regclass AND d.deptype = 'e';
SQL

if [ "$src" -ne 0 ] || ! grep -q 'sentinel alive' <<<"$sentinel_out"; then
	echo "FAIL: the session opened before the run did not survive it (a backend crashed?):"
	echo "$sentinel_out" | tail -5
	status=1
else
	echo "ok:   the session opened before the run is still connected"
fi

if [ -n "$logfile" ]; then
	tail -c +$((log_start + 1)) "$logfile" >"$work/server.log"
	crashes=$(grep -E 'terminated by signal|server process .* was terminated|PANIC|terminating connection because of crash|all server processes terminated' \
		"$work/server.log" || true)
	if [ -n "$crashes" ]; then
		echo "FAIL: the server log shows a crash:"
		echo "$crashes" | head -10
		# the whole statement each crashed backend was running: its last logged statement
		for pid in $(sed -nE 's/.*server process \(PID ([0-9]+)\) was terminated by signal.*/\1/p' "$work/server.log" | head -3); do
			echo "---- statement of crashed backend $pid:"
			awk -v tag="[$pid]" '
				index($0, tag) && /LOG:  (00000: )?statement: / { stmt = $0; keep = 1; next }
				/^[0-9][0-9][0-9][0-9]-[0-9][0-9]-/ { keep = 0; next }
				keep { stmt = stmt "\n" $0 }
				END { print stmt }' "$work/server.log" | sed -E 's/^.*LOG:  (00000: )?statement: //' | head -80
		done
		status=1
	else
		echo "ok:   no crash in the server log ($(wc -l <"$work/server.log") lines written during the run)"
	fi
	# each XX000 error with the lines that follow it (LOCATION, STATEMENT); it is the
	# extension's when raised in one of its glue files (the core never raises errors) or
	# when its message names bloomfilter
	srcfiles=$(cd "$ROOT/src" && ls -- *.c 2>/dev/null | paste -sd'|' -)
	grep -F -A3 'XX000' "$work/server.log" >"$work/xx000.log" || true
	awk -v files="$srcfiles" '
		/ERROR:  XX000:/ { if (block != "") print block "\x1e"; block = $0; n = 0; next }
		block != "" && n < 3 && /(LOCATION|STATEMENT):/ { block = block "\n" $0; n++; next }
		block != "" && /^[0-9][0-9][0-9][0-9]-/ { print block "\x1e"; block = "" }
		END { if (block != "") print block "\x1e" }' "$work/xx000.log" >"$work/xx000" || true
	ours=0
	others=0
	while IFS= read -r -d $'\x1e' blockline; do
		blockline=${blockline#$'\n'}
		[ -n "$blockline" ] || continue
		if grep -qE "ERROR:  XX000: .*bloomfilter|LOCATION:  .*, (${srcfiles//./\\.}):[0-9]" <<<"$blockline"; then
			ours=$((ours + 1))
			[ $ours -le 5 ] && { echo "internal error in the extension:"; echo "$blockline" | cut -c1-400; }
		else
			others=$((others + 1))
			[ $others -le 3 ] && { echo "note: internal error elsewhere in PostgreSQL:"; echo "$blockline" | cut -c1-300; }
		fi
	done <"$work/xx000"
	if [ $ours -gt 0 ]; then
		echo "FAIL: $ours internal errors (XX000) raised in the extension"
		status=1
	else
		echo "ok:   no internal error (XX000) from the extension ($others elsewhere in PostgreSQL)"
	fi
fi

# for the record: the extension's most frequent errors during the run
echo "most frequent errors mentioning bloomfilter (sqlsmith's counts):"
# (sqlsmith prints its running totals now and then: the last block is the final count)
awk '/^[0-9]+\tERROR: / { if (!inblock) { n = 0; inblock = 1 } line[n++] = $0; next }
	{ inblock = 0 }
	END { for (i = 0; i < n; i++) print line[i] }' "$work/sqlsmith.out" |
	grep -i bloomfilter | sort -rn | head -8 | cut -c1-160 | sed 's/^/    /' || true

if [ $status -eq 0 ]; then
	echo "PASS: sqlsmith: $((n_ok + n_err + n_other)) random queries over filters of every variant, no crash, no internal error in the extension (seed $seed)"
else
	echo "FAIL: sqlsmith: see above (seed $seed, $secs s)"
fi
exit $status
