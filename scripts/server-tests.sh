#!/usr/bin/env bash
# scripts/server-tests.sh - the tests that need a running server, in the order:
#   1. pg_regress: make installcheck (sql/*.sql against expected/*.out)
#   2. every test/cluster/*.sh, in name order, each with a database of its own
#
# Run by scripts/test.sh inside pg_virtualenv, which starts a throwaway cluster with the
# extension installed and sets PGHOST, PGPORT, PGUSER (a superuser), PGPASSWORD, PGDATABASE,
# PG_CONFIG and PGVERSION.  To run it against some other server, set those yourself:
#     bash scripts/server-tests.sh
#
# Each test/cluster/*.sh runs with bash from the repository root, and in addition gets
#   PGDATABASE  a fresh, empty database named extra_<script name> (CREATE EXTENSION is yours)
#   BF_ROOT     the repository root
#   BF_TMPDIR   a scratch directory that the server can write to as well (e.g. COPY ... TO)
# It passes when it exits 0, is skipped (and says why) when it exits 77; it is stopped after
# BF_SCRIPT_TIMEOUT seconds (default 300), or after the seconds a line "# bf-timeout: N" in the
# script asks for, if more (the oracle's thousands of queries on a loaded machine).  Each
# script's line says how long it took.  BF_CLUSTER_TESTS (names without .sh, separated by
# spaces, commas or colons: only colons pass into the Debian roots of scripts/roots.sh;
# "none" for none) runs only those scripts, for development; BF_CLUSTER_SKIP (the same form)
# leaves those out (make test-all, after the first version: see scripts/test.sh).

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$BF_ROOT"
bf_resolve_pg_config
export BF_ROOT

tally() { # pass|fail count name
	if [ -n "${BF_TALLY:-}" ]; then echo "$*" >>"$BF_TALLY"; fi
}

# why a test failed, for the summary at the end of make test (CI shows the end of its output):
# the first lines of its log that say FAIL, FAILED, not ok or that it timed out; failing those
# (a script that stopped), the first that say ERROR, PANIC, TRAP or that the server went away
why() { # name log
	local lines
	[ -n "${BF_TALLY:-}" ] || return 0
	lines=$(grep -E -m 12 '^(FAIL|not ok)|\.\.\. FAILED|timed out' "$2") ||
		lines=$(grep -E -m 12 'ERROR:|PANIC|TRAP|server closed the connection' "$2") || true
	[ -z "$lines" ] || cut -c1-300 <<<"$lines" | sed "s|^|    $1: |" >>"$BF_TALLY.why"
}

status=0
shopt -s nullglob

# 1. pg_regress ----------------------------------------------------------------------------
regress=(sql/*.sql)
if [ ${#regress[@]} -eq 0 ]; then
	echo "pg_regress: no tests in sql/*.sql yet, nothing to do"
else
	bf_say "pg_regress: make installcheck (${#regress[@]} tests)"
	mkdir -p build
	log=build/installcheck.log
	rc=0
	"$MAKE" installcheck PG_CONFIG="$PG_CONFIG" 2>&1 | tee "$log" || rc=$?

	# PostgreSQL 15 ends with " All 3 tests passed. " or " 1 of 3 tests failed. " (16+ with "# ")
	read -r npass nfail < <(awk '
		{ sub(/^[# ]+/, "") }
		$1 == "All" && $4 ~ /^passed/ { p = $2; f = 0 }
		$2 == "of" && $5 ~ /^passed,/ { p = $1; f = 0 }
		$2 == "of" && $5 ~ /^failed,/ { p = $3 - $1; f = $1 - $6 }
		$2 == "of" && $5 ~ /^failed\.?$/ { p = $3 - $1; f = $1 }
		END { print p + 0, f + 0 }' "$log")
	npass=${npass:-0}
	nfail=${nfail:-0}
	# pg_regress failed without a summary (could not connect, crashed): count it
	if [ "$rc" -ne 0 ] && [ "$nfail" -eq 0 ]; then nfail=1; fi
	[ "$npass" -eq 0 ] || tally pass "$npass" server/pg_regress
	if [ "$nfail" -ne 0 ]; then
		tally fail "$nfail" server/pg_regress
		status=1
		why server/pg_regress "$log"
		if [ -s regression.diffs ]; then
			echo "======== regression.diffs ========"
			cat regression.diffs
			echo "======== end of regression.diffs ========"
		fi
	fi
fi

# 2. test/cluster/*.sh -------------------------------------------------------------------------
scripts=(test/cluster/*.sh)
if [ -n "${BF_CLUSTER_TESTS:-}" ]; then
	wanted=" $(echo "$BF_CLUSTER_TESTS" | tr ",:" "  ") "
	chosen=()
	for script in "${scripts[@]}"; do
		name=$(basename "${script%.sh}")
		[[ $wanted != *" $name "* ]] || chosen+=("$script")
	done
	scripts=("${chosen[@]}")
fi
if [ -n "${BF_CLUSTER_SKIP:-}" ]; then
	unwanted=" $(echo "$BF_CLUSTER_SKIP" | tr ",:" "  ") "
	chosen=()
	for script in "${scripts[@]}"; do
		name=$(basename "${script%.sh}")
		if [[ $unwanted == *" $name "* ]]; then
			echo "skip $script (BF_CLUSTER_SKIP)"
		else
			chosen+=("$script")
		fi
	done
	scripts=("${chosen[@]}")
fi
[ ${#scripts[@]} -eq 0 ] || bf_say "extra server tests: ${#scripts[@]} scripts in test/cluster/"
for script in "${scripts[@]}"; do
	name=$(basename "${script%.sh}")
	db=extra_$(printf '%s' "$name" | tr -c 'A-Za-z0-9_' '_' | cut -c1-50)
	BF_TMPDIR=$(mktemp -d -t "bf-$name.XXXXXX")
	chmod 0777 "$BF_TMPDIR"
	echo "---- $script (database $db)"
	limit=${BF_SCRIPT_TIMEOUT:-300}
	own=$(sed -n 's/^# bf-timeout: *\([0-9][0-9]*\)$/\1/p' "$script" | head -1)
	[ -z "$own" ] || [ "$own" -le "$limit" ] || limit=$own
	rc=0
	started=$SECONDS
	out=build/cluster-tests/$name.log
	mkdir -p build/cluster-tests
	{
		rc=0
		PGOPTIONS="-c client_min_messages=warning" psql -X -q -v ON_ERROR_STOP=1 -d postgres \
			-c "DROP DATABASE IF EXISTS \"$db\"" -c "CREATE DATABASE \"$db\"" &&
			PGDATABASE=$db BF_TMPDIR=$BF_TMPDIR timeout --kill-after=10 "$limit" \
				bash "$script" </dev/null || rc=$?
		echo "$rc" >"$out.rc"
	} 2>&1 | tee "$out"
	rc=$(cat "$out.rc")
	rm -rf "$BF_TMPDIR"
	took="($((SECONDS - started)) s)"
	if [ $rc -eq 0 ]; then
		echo "ok   $script $took"
		tally pass 1 "server/script/$name"
	elif [ $rc -eq 77 ]; then
		echo "skip $script $took"
		tally skip 1 "server/script/$name"
	elif [ $rc -eq 124 ]; then
		echo "FAIL $script (timed out after $limit s)"
		tally fail 1 "server/script/$name"
		status=1
	else
		echo "FAIL $script (exit status $rc) $took"
		tally fail 1 "server/script/$name"
		status=1
	fi
	if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
		why "server/script/$name" "$out"
	fi
done

exit $status
