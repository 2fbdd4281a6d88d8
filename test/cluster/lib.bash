# test/cluster/lib.bash - what the tests against a cluster share.  Each test sources it
# right after "set -euo pipefail":
#     source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
# (scripts/server-tests.sh runs test/cluster/*.sh; a .bash file is not a test of its own.)
#
#   bindir              the server's programs (pg_config --bindir)
#   q ARGS...           psql without psqlrc, quiet, stopping at the first error
#   qa ARGS...          the same, unaligned and without headers: values for the shell
#   check WHAT CMD...   runs CMD: says "ok:   WHAT", or "FAIL: WHAT" and sets fail=1
#   die WHAT...         says "FAIL <test>: WHAT" and exits 1 at once
#   expect STATUS FRAGMENT CMD...  runs CMD (output in out.txt, err.txt of the current
#                       directory); dies unless it exits STATUS with FRAGMENT in its stderr
#   fail                0, or 1 once something failed: the test's exit status
#   log_watch           notes where the server log ends now (sets logfile, log_start)
#   log_crashes         what the server log gained since log_watch that shows a crash or an
#                       internal error (XX000), or nothing
#   finish PASSED FAILED  the test's last line, "PASS: <test>: PASSED (N s)" or "FAIL: <test>:
#                       FAILED (N s)" as fail says, N the seconds from $t0 to $t1 (both taken
#                       from $EPOCHREALTIME by the test); exits with fail

bf_test=$(basename "$0" .sh)
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
fail=0

q() { "$bindir/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }
qa() { q -A -t "$@"; }

check() {
	local what=$1
	shift
	if "$@"; then
		echo "ok:   $what"
	else
		echo "FAIL: $what"
		fail=1
	fi
}

die() {
	echo "FAIL $bf_test: $*"
	exit 1
}

expect() {
	local want=$1 fragment=$2 rc=0
	shift 2
	"$@" >out.txt 2>err.txt </dev/null || rc=$?
	[ $rc -eq "$want" ] || die "$* exited $rc, not $want (stderr: $(head -c 300 err.txt))"
	grep -qF -- "$fragment" err.txt || die "$*: stderr lacks \"$fragment\": $(head -c 300 err.txt)"
}

finish() {
	local secs
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	if [ $fail -eq 0 ]; then
		echo "PASS: $bf_test: $1 ($secs s)"
	else
		echo "FAIL: $bf_test: $2 ($secs s)"
	fi
	exit $fail
}

log_watch() {
	logfile=$(q -At -c "SELECT coalesce(pg_current_logfile(), '')")
	if [ -n "$logfile" ] && [ "${logfile#/}" = "$logfile" ]; then
		logfile="$(q -At -c "SHOW data_directory")/$logfile"
	fi
	if [ -z "$logfile" ] && command -v pg_lsclusters >/dev/null; then
		logfile=$(pg_lsclusters -h 2>/dev/null | awk -v port="${PGPORT:-5432}" '$3 == port { print $7; exit }')
	fi
	if [ -n "$logfile" ] && [ -r "$logfile" ]; then
		log_start=$(stat -c %s "$logfile")
	else
		echo "note: the server log cannot be read here (${logfile:-not found}); only the sessions" \
			"show a crash"
		logfile=""
	fi
}

log_crashes() {
	[ -n "$logfile" ] || return 0
	sleep 1 # the postmaster's report of a crashed backend
	tail -c +$((log_start + 1)) "$logfile" |
		grep -E 'terminated by signal|server process .* was terminated|PANIC|terminating connection because of crash|ERROR:  XX000' || true
}

# The Python of the oracles, /usr/bin/python3 with psycopg2, in PY; fails the test without it
need_psycopg2() {
	PY=/usr/bin/python3
	export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ in the source tree
	if ! "$PY" -c 'import psycopg2' 2>/dev/null; then
		echo "FAIL $bf_test: $PY cannot import psycopg2 (Debian package python3-psycopg2;" \
			"install it with: apt-get install python3-psycopg2)"
		exit 1
	fi
}
