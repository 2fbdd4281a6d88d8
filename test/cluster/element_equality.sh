#!/usr/bin/env bash
# test/cluster/element_equality.sh - issue 25's property: a member is found under every value
# that SQL calls equal to it, and unequal values only at the false-positive rate.
#
# test/oracle/equality.py (see its header) generates, with a seeded RNG, pairs a = b of
# different binary forms: int2/int4/int8 against numeric, numeric scales and exponents, float
# -0 and NaNs of several bit patterns, float4 against float8, interval units, jsonb numbers at
# every depth and keys in any order, cidr against inet, char(n) padding, citext (when contrib
# has it), arrays (1-D, 2-D, NULLs, lower bounds), composite values, anonymous records, ranges,
# a range over float8, multiranges, domains, and TOASTed jsonb and numeric[]; keeps the pairs
# SQL calls equal, and requires b to be found in every variant's filter of a through every
# path: bloomfilter_add / ||, @>, <@, bloomfilter_add_all, contains_all, contains_any,
# bloomfilter_remove (counting, cuckoo), and bloomfilter_agg under the aggregate scan and the
# Aggregate node, serial and parallel, per pair (GROUP BY), and the prefetching scan.  Then
# probes values near 2,000 members but unequal to them (1.0 against 1.01, k against k + 2^64,
# a span against the span plus 2^64 microseconds, 0.1::float4 against 0.1::float8, ...): a
# filter sized for 1 % must answer at most 3 % of them.  Then, with ICU, text under a
# nondeterministic collation: every path must find the equal value or raise an error.  It
# fails on a single false negative, on a silent miss, on SQLSTATE XX000 or a lost connection,
# and when the part of the server log written during the run shows a crash.
#
# Environment (all optional; see test/oracle/equality.py):
#   EQ_SEED          seed of the run (default 1; printed)
#   EQ_PAIRS         pairs per shape (default 60)
#   EQ_ONLY          only these shapes (comma-separated names as printed), "collation", "fpr"
#                    or "fpr:<type>", printing every failing pair
#
# Run by scripts/server-tests.sh (about a minute on two busy cores); by hand:
#     createdb x; PGDATABASE=x bash test/cluster/element_equality.sh
#     createdb y; PGDATABASE=y EQ_SEED=7 EQ_ONLY=jsonb bash test/cluster/element_equality.sh
# Needs /usr/bin/python3 with psycopg2 (Debian: python3-psycopg2).  Prints one PASS or FAIL
# line; exits non-zero on failure.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

: "${PGDATABASE:?set PGDATABASE to an empty database}"
ROOT=${BF_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
need_psycopg2 # sets PY

t0=$EPOCHREALTIME

# internal errors are logged with their SQLSTATE
q -c "ALTER DATABASE \"$PGDATABASE\" SET log_error_verbosity = verbose"

log_watch

rc=0
"$PY" "$ROOT/test/oracle/equality.py" || rc=$?
[ $rc -eq 0 ] || fail=1

bad=$(log_crashes)
if [ -n "$bad" ]; then
	echo "FAIL: the server log shows a crash or an internal error:"
	echo "$bad" | head -10
	fail=1
fi

t1=$EPOCHREALTIME
finish "no false negatives under SQL equality, false positives within bounds" \
	"false negatives, silent misses or errors (see above)"
