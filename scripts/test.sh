#!/usr/bin/env bash
# scripts/test.sh - "make test": every test of the project, from a fresh machine if need be.
#
#   1. scripts/deps.sh             install missing dependencies
#   2. make all                    build the extension (a build failure stops here)
#   3. scripts/check-core.sh       core unit tests, release and sanitizer builds
#      scripts/fuzz.sh check       libFuzzer: the corpus and saved crashes once, then about
#                                  15 s of fuzzing per target (FUZZ_TEST_SECONDS)
#   4. make install                into the system PostgreSQL (needs root)
#      scripts/citus.sh            build (once, cached under build/) and install Citus for
#                                  test/cluster/citus.sh, when its tarball is there
#   5. scripts/server-tests.sh     inside one throwaway cluster (pg_virtualenv): pg_regress
#                                  (make installcheck), then every test/cluster/*.sh
#
# Ends with the line "N passed, M failed" and exits non-zero if anything failed.

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$BF_ROOT"

# "make test-all": make test on every PostgreSQL version Debian ships (this machine's 15, then
# 17 and 18 in their Debian roots, scripts/roots.sh), each followed by PostgreSQL's own
# regression suite with the library preloaded (make test-pg-suite, scripts/pg-suite.sh), then a
# PostgreSQL 15 pg_dump restored into 17 and 18 (scripts/cross-version.sh), then the Debian
# packages (make deb-check, which builds them from the make dist tarball).  One line per part at the end; fails if any part failed.
# TEST_VERSIONS picks the versions.
if [ "${1:-}" = all ]; then
	summary=()
	status=0
	t_all=$SECONDS
	rm -f "$BF_ROOT"/build/test-all.*.log
	part() { # description, command...
		local what=$1 t=$SECONDS rc=0 out
		shift
		out=$BF_ROOT/build/test-all.$(printf '%s' "$what" | tr -c 'A-Za-z0-9' '_').log
		mkdir -p "$BF_ROOT/build"
		"$@" 2>&1 | tee "$out" || rc=$?
		local tail
		tail=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1) || true
		if [ "$rc" -eq 0 ]; then
			summary+=("$(printf '%-32s %s (%d s)' "$what:" "${tail:-passed}" $((SECONDS - t)))")
		else
			summary+=("$(printf '%-32s FAILED, exit %d %s(%d s)' "$what:" "$rc" "${tail:+$tail }" $((SECONDS - t)))")
			status=1
		fi
	}
	versions=${TEST_VERSIONS:-15 17 18}
	core_tested=0
	for v in $versions; do
		# after the first version the two oracles run 200 queries each (by default the
		# prefetching scan's oracle 1,200, the join oracle 400), and Citus (a build of some
		# minutes per version) does not run, so that make test-all stays within CI's time;
		# ORACLE_QUERIES or BF_CITUS set by hand applies to every version.  Four test/cluster
		# scripts run with the first version only, as what they test is the same on every
		# version: cancel.sh (five minutes of building and cancelling huge constants: the
		# interrupt checks in the core's loops, the size limits checked before an allocation),
		# bloomtool.sh and bloomtool_files.sh (the command-line tool, which links the core and
		# no PostgreSQL), storage_reader.sh (the format read by a reader written from
		# STORAGE.md).  BF_CLUSTER_SKIP set by hand applies to every version.
		oracle=()
		if [ "$core_tested" = 1 ] && [ -z "${ORACLE_QUERIES:-}" ]; then
			oracle=(ORACLE_QUERIES=200)
		fi
		if [ "$core_tested" = 1 ] && [ -z "${BF_CLUSTER_SKIP:-}" ]; then
			oracle+=(BF_CLUSTER_SKIP=cancel:bloomtool:bloomtool_files:storage_reader)
		fi
		if [ "$core_tested" = 1 ] && [ -z "${BF_CITUS:-}" ]; then
			oracle+=(BF_CITUS=no)
		fi
		part "PostgreSQL $v" env BF_CORE_TESTED=$core_tested "${oracle[@]}" "$MAKE" -s test PG_MAJOR="$v"
		core_tested=1
		# PostgreSQL's own regression suite against the library preloaded (scripts/pg-suite.sh);
		# BF_PG_SUITE=no leaves it out.  The forced parallel plans (par: every query in a
		# worker, three times the CPU of a plain run) with the first version only, so that
		# make test-all stays within CI's time; BF_PG_SUITE_CONFIGS set by hand applies to all
		if [ "${BF_PG_SUITE:-yes}" != no ]; then
			# the first version runs par (always under forced parallel plans), the later ones
			# always: each configuration of the two on some version, in CI's time
			suite=()
			if [ -z "${BF_PG_SUITE_CONFIGS:-}" ]; then
				if [ "$v" != "${versions%% *}" ]; then
					suite=(BF_PG_SUITE_CONFIGS=base:on:always)
				else
					suite=(BF_PG_SUITE_CONFIGS=base:on:par)
				fi
			fi
			part "PostgreSQL $v regression suite" env "${suite[@]}" "$MAKE" -s test-pg-suite PG_MAJOR="$v"
		fi
	done
	later=$(printf '%s\n' $versions | grep -vx 15 | tr '\n' ' ') || true
	if [[ " $versions " == *" 15 "* && -n "$later" ]]; then
		part "pg_dump 15 -> $later" env PG_MAJOR=15 CROSS_TO="$later" bash scripts/cross-version.sh
	fi
	if grep -q '^deb-check:' Makefile; then
		# (deb-check builds the packages itself, from the make dist tarball)
		part "Debian packages" "$MAKE" -s deb-check
	fi
	# nothing may outlive the run: no process left in a root (stopped, and said), no mount
	roots_dir=${BF_ROOTS:-$BF_ROOT/build/roots}
	left=$(for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		case $r in "$roots_dir"/*) echo "${p#/proc/}" ;; esac
	done)
	if [ -n "$left" ]; then
		echo "warning: processes left in the Debian roots, stopped now:" >&2
		ps -o pid,args -p "$(echo $left | tr ' ' ',')" >&2 || true
		kill -KILL $left 2>/dev/null || true
	fi
	left=$(findmnt -rn -o TARGET | grep -F -e "$BF_ROOT/" -e "${BF_ROOTS:-$BF_ROOT/build/roots}/") || true
	if [ -n "$left" ]; then
		summary+=("left-over mounts: $(echo "$left" | tr '\n' ' ')")
		status=1
	fi
	echo
	echo "test-all summary ($((SECONDS - t_all)) s):"
	printf '    %s\n' "${summary[@]}"
	# what failed and why, repeated here at the end (CI shows the end of the output)
	for log in "$BF_ROOT"/build/test-all.*.log; do
		grep -q '^failed:$' "$log" 2>/dev/null || continue
		echo "${log##*/test-all.}:"
		sed -n '/^failed:$/,/^[0-9]* passed, [0-9]* failed$/p' "$log" | head -n 40
	done
	exit $status
fi

bf_run_in_root_if_needed "$@"

bash scripts/deps.sh
bf_resolve_pg_config

bf_say "make all"
"$MAKE" all PG_CONFIG="$PG_CONFIG"

mkdir -p build
# one line per result: "pass|fail <count> <name>"
export BF_TALLY=$BF_ROOT/build/test-tally
: >"$BF_TALLY"
: >"$BF_TALLY.why"

# a stage that fails without recording a failed test (it could not even start) still counts
count_stage_failure() {
	grep -q "^fail [0-9]* $1/" "$BF_TALLY" || echo "fail 1 $1/$2" >>"$BF_TALLY"
}

# The core is pure C, the same for every PostgreSQL: make test-all tests it with the first
# version only (BF_CORE_TESTED=1 for the others)
if [ "${BF_CORE_TESTED:-0}" = 1 ]; then
	bf_say "core tests and fuzzing: done once in this make test-all (the core does not depend on PostgreSQL)"
	echo "skip 1 core/tested-with-the-first-version" >>"$BF_TALLY"
else
	bash scripts/check-core.sh || count_stage_failure core harness
	bash scripts/fuzz.sh check || count_stage_failure fuzz harness
fi

bf_install

# Citus for test/cluster/citus.sh, built here (once; cached under build/) rather than inside the
# test's time limit; exit status 3: no Citus tarball, and the test will say it was skipped
rc=0
bash scripts/citus.sh || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || count_stage_failure citus build

bf_say "server tests in a throwaway PostgreSQL $PG_MAJOR cluster (pg_virtualenv)"
bf_virtualenv bash scripts/server-tests.sh || count_stage_failure server cluster

read -r passed failed < <(awk '$1 == "pass" { p += $2 } $1 == "fail" { f += $2 }
	END { print p + 0, f + 0 }' "$BF_TALLY")

echo
if grep -q '^skip ' "$BF_TALLY"; then
	echo "skipped (not counted as passed):"
	awk '$1 == "skip" { print "    " $3 }' "$BF_TALLY"
fi
if [ "$failed" -gt 0 ]; then
	echo "failed:"
	awk '$1 == "fail" { print "    " $3 ($2 > 1 ? " (" $2 ")" : "") }' "$BF_TALLY"
	if [ -s "$BF_TALLY.why" ]; then
		echo "why (the first lines of their output that say so):"
		cat "$BF_TALLY.why"
	fi
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
