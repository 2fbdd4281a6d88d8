#!/usr/bin/env bash
# bf-timeout: 900
# test/cluster/join_oracle.sh - a differential oracle for automatic Bloom join filters: random
# join queries give the same answers with bloomfilter.join_filter off, on and always.
#
# test/oracle/join_oracle.py (see its header) builds fact and dimension tables whose join keys
# come in every type the filters hash (int2/int4/int8 across types, numeric 1.5 = 1.500, float8
# -0 and NaN, text = varchar, a nondeterministic ICU collation, uuid, two columns at once, long
# keys in TOAST), with NULLs, duplicates and heavy hitters, a partitioned and an inheritance
# fact; then runs seeded random queries (test/oracle/join_gen.py: every join type, star joins,
# EXISTS / IN and their negations, subqueries, UNION ALL, CTEs, LATERAL and correlated
# subqueries, nested loops, generic plans of prepared statements, ORDER BY ... LIMIT,
# aggregates, UPDATE / DELETE / INSERT with a join; quals that fail on some rows; small
# work_mem), and queries over tables whose statistics lie (build sides 10 to 1,000 times their
# estimates, under Parallel Hash too), with volatile, leaky and failing functions at every level
# of the probe subtree, run from PL/pgSQL with variables and from SQL functions, and over
# postgres_fdw foreign tables of a loopback server (while a role's own @>(bloomfilter, varchar)
# shadows the extension's), then EvalPlanQual cases with a second session that updates a row
# the join waits for; with the filters off, on and always, serial and under forced parallel
# plans with and without the leader, and compares rows, SQLSTATEs, the calls the volatile
# functions made and the tables written.  It fails on any
# difference, on a lost connection or SQLSTATE XX000, on a join filter in a plan where none may
# be, when too few queries got a filter, and when the part of the server log written during the
# run shows a crash.
#
# Environment (all optional):
#   ORACLE_SEED         seed of the run (default 1; printed)
#   ORACLE_QUERIES      number of queries (default 400, about 1.5 minutes; more for a long run)
#   ORACLE_EPQ          number of EvalPlanQual cases (default 12)
#   ORACLE_REPLAY       run query N (or EvalPlanQual case epq:N) alone and print its SQL, plans
#                       and results
#   ORACLE_SHAPES       make only these shapes of test/oracle/join_gen.py (comma-separated:
#                       e.g. stale,sidefx,routine,fdw)
#   ORACLE_MAX_REPORTS  mismatches printed in full (default 5)
#
# Run by scripts/server-tests.sh; by hand, inside pg_virtualenv:
#     createdb x; PGDATABASE=x bash test/cluster/join_oracle.sh
#     createdb y; PGDATABASE=y ORACLE_SEED=7 ORACLE_REPLAY=123 bash test/cluster/join_oracle.sh
# Needs /usr/bin/python3 with psycopg2 (Debian: python3-psycopg2); the foreign tables need
# postgres_fdw (left out, and said, without it) and a server that accepts the PG* user's
# password (PGPASSWORD) over TCP, as pg_virtualenv's does.  Prints one PASS or FAIL
# line; exits non-zero on failure.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

: "${PGDATABASE:?set PGDATABASE to an empty database}"
ROOT=${BF_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
need_psycopg2 # sets PY

# internal errors are logged with their SQLSTATE; the planner hook is the library's, which
# every new session loads (and its parallel workers with it)
q -c "ALTER DATABASE \"$PGDATABASE\" SET log_error_verbosity = verbose" \
	-c "ALTER DATABASE \"$PGDATABASE\" SET session_preload_libraries = 'bloomfilter'"

log_watch

# a parallel worker loads the library from disk: one installed during the run would meet the
# leader's older copy
lib="$("${PG_CONFIG:-pg_config}" --pkglibdir)/bloomfilter.so"
lib_before=$(stat -c %Y "$lib" 2>/dev/null || true)

rc=0
"$PY" "$ROOT/test/oracle/join_oracle.py" || rc=$?

if [ "$(stat -c %Y "$lib" 2>/dev/null || true)" != "$lib_before" ]; then
	echo "note: $lib was installed again during the run: a difference or an error may come of" \
		"two versions at once; run again"
fi

bad=$(log_crashes)
if [ -n "$bad" ]; then
	echo "FAIL join_oracle: the server log shows a crash or an internal error:"
	echo "$bad" | head -10
	rc=1
fi
exit $rc
