#!/usr/bin/env bash
# test/cluster/concurrency.sh - concurrent f = f || x on the same rows loses nothing.
#
# One row per variant (blocked, classic, counting, scalable, cuckoo; the scalable and cuckoo
# filters start small so that they grow during the run).  Two pgbench runs, bounded in time
# and on the server the PG* variables point at, go on at once:
#   - writers (4 clients): in one READ COMMITTED transaction, UPDATE one random row with
#     f = f || x, x random in [1, 1000000], and log (row, x) into a side table;
#   - probers (3 clients): in one statement, look up the last 50 logged items in their rows'
#     filters and record any that is missing (a statement sees the filter and the log of the
#     same snapshot, so a committed item must be there); and probe a random x with @>.
# A single-row UPDATE in READ COMMITTED waits for a concurrent update of the row and then
# applies f || x to the new version, so no transaction needs a retry: the test expects no
# failed transaction at all.
#
# Passes when both pgbench runs end normally with no failed transactions, the probers saw no
# missing item, and afterwards every logged item is found in its row's filter and each row's
# items_added equals the number of items logged for it (no lost update).
#
# BF_CONCURRENCY_SECONDS sets the length of the run (default 20).  Run by
# scripts/server-tests.sh; by hand, inside pg_virtualenv:
#     createdb x; PGDATABASE=x bash test/cluster/concurrency.sh
# Prints one PASS or FAIL line; exits non-zero on failure.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

: "${PGDATABASE:?set PGDATABASE to an empty database}"
secs=${BF_CONCURRENCY_SECONDS:-20}
work=$(mktemp -d -t bf-concurrency.XXXXXX)
trap 'rm -rf "$work"' EXIT

export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"

case "${PGHOST:-}" in
"" | /* | localhost | 127.0.0.1 | ::1) ;;
*) echo "FAIL: concurrency: PGHOST=$PGHOST is not a local socket or loopback address"; exit 1 ;;
esac

q <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE TABLE cf (id int PRIMARY KEY, variant text NOT NULL, f bloomfilter NOT NULL);
INSERT INTO cf VALUES
	(1, 'blocked',  bloomfilter_create(50000, 0.01, 'blocked')),
	(2, 'classic',  bloomfilter_create(50000, 0.01, 'classic')),
	(3, 'counting', bloomfilter_create(20000, 0.01, 'counting')),
	(4, 'scalable', bloomfilter_create(100, 0.01, 'scalable')),
	(5, 'cuckoo',   bloomfilter_create(100, 0.01, 'cuckoo'));
CREATE TABLE added (seq bigserial PRIMARY KEY, id int NOT NULL, x int NOT NULL);
CREATE TABLE missing (seen timestamptz DEFAULT clock_timestamp(), seq bigint, id int, x int);
CREATE TABLE probes (hits bigint, total bigint);
INSERT INTO probes VALUES (0, 0);
SQL

cat >"$work/writer.sql" <<'SQL'
\set r random(1, 5)
\set x random(1, 1000000)
BEGIN;
UPDATE cf SET f = f || :x WHERE id = :r;
INSERT INTO added (id, x) VALUES (:r, :x);
END;
SQL

# the probe's answers are not checked (false positives are allowed), only that it works
cat >"$work/prober.sql" <<'SQL'
\set r random(1, 5)
\set x random(1, 1000000)
INSERT INTO missing (seq, id, x)
SELECT a.seq, a.id, a.x
FROM (SELECT * FROM added ORDER BY seq DESC LIMIT 50) AS a JOIN cf USING (id)
WHERE NOT cf.f @> a.x;
SELECT f @> :x AS probably FROM cf WHERE id = :r;
SQL

echo "pgbench: 4 writers and 3 probers for $secs s"
t0=$EPOCHREALTIME
wrc=0
prc=0
"$bindir/pgbench" -n -c 4 -j 2 -T "$secs" -f "$work/writer.sql" >"$work/writer.out" 2>"$work/writer.err" &
wpid=$!
"$bindir/pgbench" -n -c 3 -j 1 -T "$secs" -f "$work/prober.sql" >"$work/prober.out" 2>"$work/prober.err" &
ppid=$!
wait "$wpid" || wrc=$?
wait "$ppid" || prc=$?
t1=$EPOCHREALTIME


# "number of transactions actually processed: N", "number of failed transactions: N (x%)"
processed() { awk -F': ' '/^number of transactions actually processed/ { split($2, a, "/"); print a[1] + 0 }' "$1"; }
failed() { awk -F': ' '/^number of failed transactions/ { print $2 + 0; f = 1 } END { if (!f) print 0 }' "$1"; }
wdone=$(processed "$work/writer.out")
pdone=$(processed "$work/prober.out")
wfail=$(failed "$work/writer.out")
pfail=$(failed "$work/prober.out")
echo "writers: ${wdone:-?} transactions, ${wfail} failed; probers: ${pdone:-?} transactions, ${pfail} failed" \
	"($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)"
for who in writer prober; do
	# pgbench's own errors (a client aborted, a statement failed) go to stderr
	if [ -s "$work/$who.err" ]; then
		echo "---- pgbench $who stderr (first lines):"
		head -20 "$work/$who.err"
	fi
done

check "the writers' pgbench ended normally (exit status $wrc)" test "$wrc" -eq 0
check "the probers' pgbench ended normally (exit status $prc)" test "$prc" -eq 0
check "the writers committed transactions (${wdone:-none})" test "${wdone:-0}" -gt 0
check "the probers ran (${pdone:-none})" test "${pdone:-0}" -gt 0
check "no failed writer transaction ($wfail)" test "$wfail" -eq 0
check "no failed prober transaction ($pfail)" test "$pfail" -eq 0

read -r logged missed_live missed_after lost < <(q -At -F ' ' <<'SQL'
SELECT (SELECT count(*) FROM added),
       (SELECT count(*) FROM missing),
       (SELECT count(*) FROM added a JOIN cf USING (id) WHERE NOT cf.f @> a.x),
       (SELECT count(*) FROM cf, bloomfilter_info(cf.f) i
        WHERE i.items_added <> (SELECT count(*) FROM added a WHERE a.id = cf.id));
SQL
)
q -At -F ' ' <<'SQL' | awk '{ printf "  row %s %-8s items_added %6s  logged %6s  stages %s\n", $1, $2, $3, $4, $5 }'
SELECT cf.id, cf.variant, i.items_added, (SELECT count(*) FROM added a WHERE a.id = cf.id), i.stages
FROM cf, bloomfilter_info(cf.f) i ORDER BY cf.id;
SQL
check "the log holds as many items as writer transactions committed ($logged = ${wdone:-?})" \
	test "$logged" -eq "${wdone:-0}"
check "the probers found every committed item while the writers ran ($missed_live missing)" \
	test "$missed_live" -eq 0
check "afterwards every one of the $logged logged items is in its row's filter ($missed_after missing)" \
	test "$missed_after" -eq 0
check "every row's items_added equals the items logged for it ($lost rows differ: lost updates)" \
	test "$lost" -eq 0
grown=$(q -At -c "SELECT count(*) FROM cf, bloomfilter_info(f) i WHERE i.stages > 1")
check "the scalable and cuckoo rows grew during the run ($grown rows of several stages)" test "$grown" -eq 2

if [ $fail -eq 0 ]; then
	echo "PASS: concurrency: $logged concurrent f || x on 5 rows, none lost, $pdone probe transactions found every committed item"
else
	echo "FAIL: concurrency: concurrent updates or probes went wrong (see above)"
fi
exit $fail
