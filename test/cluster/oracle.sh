#!/usr/bin/env bash
# bf-timeout: 900
# test/cluster/oracle.sh - a differential oracle for the custom scans: random queries give the
# same answers with bloomfilter.prefetch_scan and bloomfilter.agg_scan on as with them off.
#
# test/oracle/oracle.py (see its header) builds tables of every shape the scans meet (plain,
# inheritance, partitioned, a materialized view, row-level security for a non-superuser role,
# text and bytea elements of every storage kind, every element type, NULLs) and filters of
# every variant, then runs seeded random queries (test/oracle/gen.py: LIMIT, EXISTS, partial
# cursor fetches, nested-loop inner sides, LATERAL, correlated subqueries, UNION ALL, UPDATE /
# DELETE / INSERT ... SELECT / FOR UPDATE, prepared statements with generic plans, aggregates;
# quals that fail on some rows or are volatile; filters as constants, parameters, InitPlans
# and stored in a table) with the scans off and on, serial and under forced parallel plans
# with and without the leader, and compares rows, SQLSTATEs and side effects; then
# EvalPlanQual cases with a concurrent writer (test/oracle/epq.py).  It fails on any
# difference, on a lost connection or SQLSTATE XX000, when a scan was used by too few
# queries, and when the part of the server log written during the run shows a crash.
#
# Environment (all optional):
#   ORACLE_SEED      seed of the run (default 1; printed)
#   ORACLE_QUERIES   number of queries (default 1200; e.g. 50000 for a long run)
#   ORACLE_EPQ       number of EvalPlanQual cases (default 20)
#   ORACLE_REPLAY    run query N alone (or epq:N) and print its SQL, plans and results
#   ORACLE_SKIP      comma-separated classes of queries to leave out (gen.py's CLASSES:
#                    toast, inherit, readahead), for a tree without the fixes of issue 12's
#                    items 1-3; default: none
#
# Run by scripts/server-tests.sh; by hand, inside pg_virtualenv:
#     createdb x; PGDATABASE=x bash test/cluster/oracle.sh
#     createdb y; PGDATABASE=y ORACLE_SEED=7 ORACLE_REPLAY=123 bash test/cluster/oracle.sh
# Needs /usr/bin/python3 with psycopg2 (Debian: python3-psycopg2).  Prints one PASS or FAIL
# line; exits non-zero on failure.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

: "${PGDATABASE:?set PGDATABASE to an empty database}"
ROOT=${BF_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
need_psycopg2 # sets PY


# internal errors are logged with their SQLSTATE
q -c "ALTER DATABASE \"$PGDATABASE\" SET log_error_verbosity = verbose"

log_watch

rc=0
"$PY" "$ROOT/test/oracle/oracle.py" || rc=$?

bad=$(log_crashes)
if [ -n "$bad" ]; then
	echo "FAIL oracle: the server log shows a crash or an internal error:"
	echo "$bad" | head -10
	rc=1
fi
exit $rc
