#!/usr/bin/env bash
# scripts/pg-suite.sh - "make test-pg-suite": PostgreSQL's own regression suite as an oracle for
# the preloaded library.
#
# The core schedule (src/test/regress/parallel_schedule) of the PostgreSQL $PG_MAJOR source
# package in Debian's archive runs against the installed server, each configuration in a
# temporary instance of its own (pg_regress --temp-instance), two at a time:
#     base     no library: the baseline, what this server answers
#     on       shared_preload_libraries = 'bloomfilter' (bloomfilter.join_filter = on, the default)
#     always   ... and bloomfilter.join_filter = always
#     par      ... always, and force_parallel_mode (15) / debug_parallel_query (16+) = regress
# The verdict compares every test's output with the baseline's output, not with the suite's
# expected files (what differs between this server and the suite, a newer minor version or
# the locale, differs in the baseline too):
#     on, always,     an output may differ only in EXPLAIN plan text: the extension's nodes and
#     par             their lines, the sequential scan the join scan replaces, the subtrees moved
#                     down under the nodes, cost/row numbers (scripts/pg-suite-classify.py); the
#                     tests that differ so are listed.  At on, filters that the estimates say
#                     pay appear in some EXPLAINs (on 15: join, join_hash, privileges,
#                     rowsecurity, misc_functions, select_views), and the planner's choice of a
#                     filter (src/join_filter/paths.c) changes no plan there
#     every config    no server crash in the instance's log
# (A test the baseline fails against the expected file and a configuration passes counts as
# passed: its output varies from run to run.)  Timing-dependent races (Parallel Hash) show up
# in one run of several: under always and par the tests of BF_PG_SUITE_REPEAT (default
# join_hash) run BF_PG_SUITE_REPEATS (default 4) more times after the schedule, in the same
# instance, each compared with the baseline's run.
#
# The suite is fetched once per version and cached in build/pg-suite/$PG_MAJOR/suite:
# apt-get source postgresql-$PG_MAJOR (a deb-src entry for each Debian suite apt already uses is
# added in /etc/apt/sources.list.d/bloomfilter-deb-src.list; the installed version when the
# archive still has it, else the newest it has), of which only src/test/regress and
# contrib/spi are kept.  No configure: regress.so and contrib/spi's autoinc.so and refint.so
# (all that the schedule loads) are built with PGXS against the installed server's headers,
# and pg_regress is the installed one (postgresql-server-dev-$PG_MAJOR).  When the source is
# not the installed version, psql is the suite's own, from the archive's
# postgresql-client-$PG_MAJOR of the source's version (a newer psql reads some tests' COPY
# data differently), beside the installed initdb, pg_ctl and postgres.
#
# Like make test, on 17 and 18 it runs inside the Debian root (scripts/roots.sh).  Builds and
# installs the extension first.  The servers run as the user postgres when run as root.  The
# last run (each config's pg_regress.log, results/ and server log, and report.txt with the
# classifier's judgement of each test that differed) is kept in build/pg-suite/$PG_MAJOR/run/.
#
# Environment:
#   BF_PG_SUITE_CONFIGS  configurations (default "base on always par", or with commas or colons, as every
#                        list here; base always runs; also
#                        noscan: always with bloomfilter.prefetch_scan = off, probe nodes above
#                        the sequential scans)
#   BF_PG_SUITE_JOBS     configurations at a time (default 2)
#   BF_PG_SUITE_REPEAT, BF_PG_SUITE_REPEATS  see above
#   BF_PG_SUITE_TESTS    instead of parallel_schedule: these tests, serially, after test_setup
#   BF_PG_SUITE_LIBRARY  the library to preload (default bloomfilter; a path: a build not
#                        installed), BF_PG_SUITE_INSTALL=no: no make all install first
#
# Ends with "N passed, M failed" (one per test and configuration, and one per crash check).

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$BF_ROOT"
bf_run_in_root_if_needed "$@"

bash scripts/deps.sh
bf_resolve_pg_config
if [ "${BF_PG_SUITE_INSTALL:-yes}" != no ]; then
	bf_say "make all"
	"$MAKE" -s all PG_CONFIG="$PG_CONFIG"
	bf_install
fi

pgbin=$("$PG_CONFIG" --bindir)
pgxs_regress=$(dirname "$("$PG_CONFIG" --pgxs)")/../test/regress/pg_regress
[ -x "$pgxs_regress" ] || bf_die "pg_regress not found at $pgxs_regress"
cache=$BF_ROOT/build/pg-suite/$PG_MAJOR
mkdir -p "$cache"
passed=0
failed=0

apt_locked() {
	flock /tmp/bf-apt.lock env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 "$@"
}

# ---- 1. the suite: source package, libraries, client programs (cached) ----------------------
installed=$(dpkg-query -W -f '${Version}' "postgresql-$PG_MAJOR" 2>/dev/null) ||
	bf_die "postgresql-$PG_MAJOR is not installed (dpkg)"

prepare_suite() {
	local t=$SECONDS list want versions v srcver="" dl
	bf_is_root || bf_die "fetching the suite needs root (apt-get source); or run it once as root"
	# apt-get source unpacks with dpkg-source (dpkg-dev); apt-get download and dpkg-deb are there
	if ! command -v dpkg-source >/dev/null; then
		bf_say "installing dpkg-dev (apt-get source)"
		apt_locked update >/dev/null
		apt_locked install -y --no-install-recommends dpkg-dev >/dev/null
	fi
	# a deb-src line for every Debian suite apt takes binary packages from
	list=/etc/apt/sources.list.d/bloomfilter-deb-src.list
	want=$(apt-get indextargets --format 'deb-src $(REPO_URI) $(RELEASE) $(COMPONENT)' \
		'Identifier: Packages' | grep -i debian | sort -u) || true
	[ -n "$want" ] || bf_die "no Debian archive among apt's sources"
	if [ "$(cat "$list" 2>/dev/null)" != "$want" ] ||
		[ -z "$(apt-cache showsrc "postgresql-$PG_MAJOR" 2>/dev/null)" ]; then
		bf_say "adding deb-src entries ($list) and apt-get update"
		printf '%s\n' "$want" >"$list"
		apt_locked update >/dev/null
	fi
	# the installed version first, then the archive's others, newest first
	versions=$(apt-cache showsrc "postgresql-$PG_MAJOR" | sed -n 's/^Version: //p' |
		sort -u | sort -r -V) || true
	[ -n "$versions" ] || bf_die "no source package postgresql-$PG_MAJOR in the archive"
	versions=$(printf '%s\n' "$installed" $versions | awk '!seen[$0]++')
	dl=$cache/download
	for v in $versions; do
		rm -rf "$dl"
		mkdir -p "$dl"
		bf_say "apt-get source postgresql-$PG_MAJOR=$v"
		if (cd "$dl" && apt-get source -q --only-source "postgresql-$PG_MAJOR=$v") >"$cache/download.log" 2>&1; then
			srcver=$v
			break
		fi
		echo "    not in the archive ($(grep -m1 '^E:' "$cache/download.log" || echo failed))"
	done
	if [ -z "$srcver" ]; then
		# (this sandbox's mirror lists postgresql-17's source and answers 404 for its files):
		# said, and skipped, rather than failing every run for a download
		tail -n 5 "$cache/download.log" >&2
		echo "SKIP pg-suite $PG_MAJOR: no version of the source package postgresql-$PG_MAJOR" \
			"could be downloaded from the archive (apt-get source failed for: $(echo $versions))"
		echo "0 passed, 0 failed, 1 skipped"
		exit 0
	fi
	local tree
	tree=$(find "$dl" -mindepth 1 -maxdepth 1 -type d -name "postgresql-*" | head -n 1)
	rm -rf "$cache/suite"
	mkdir -p "$cache/suite/lib" "$cache/suite/bin"
	cp -a "$tree/src/test/regress" "$cache/suite/regress"
	cp "$tree/contrib/spi/autoinc.c" "$tree/contrib/spi/refint.c" "$tree/src/test/regress/regress.c" \
		"$cache/suite/lib/"
	printf 'MODULES = regress autoinc refint\nPG_CONFIG = %s\nPGXS := $(shell $(PG_CONFIG) --pgxs)\ninclude $(PGXS)\n' \
		"$PG_CONFIG" >"$cache/suite/lib/Makefile"
	bf_say "building regress.so, autoinc.so, refint.so against the installed headers"
	"$MAKE" -s -C "$cache/suite/lib" -j2 with_llvm=no >"$cache/build.log" 2>&1 ||
		{ tail -n 30 "$cache/build.log" >&2; bf_die "building the suite's libraries failed"; }
	for p in initdb pg_ctl postgres psql; do ln -sf "$pgbin/$p" "$cache/suite/bin/$p"; done
	if [ "$srcver" != "$installed" ]; then
		bf_say "the suite is $srcver, the server $installed: the suite's own psql (postgresql-client-$PG_MAJOR=$srcver)"
		(cd "$dl" && apt-get download -q "postgresql-client-$PG_MAJOR=$srcver") >>"$cache/download.log" 2>&1 &&
			dpkg-deb -x "$dl"/postgresql-client-"$PG_MAJOR"_*.deb "$dl/client" &&
			cp "$dl/client/usr/lib/postgresql/$PG_MAJOR/bin/psql" "$cache/suite/bin/psql.suite" &&
			"$cache/suite/bin/psql.suite" --version >/dev/null &&
			mv -f "$cache/suite/bin/psql.suite" "$cache/suite/bin/psql" ||
			bf_warn "the suite's psql could not be had: using the installed one"
	fi
	rm -rf "$dl"
	echo "$srcver" >"$cache/suite/version"
	bf_say "suite of PostgreSQL $srcver ready in $((SECONDS - t)) s"
}

if [ "$(cat "$cache/suite/version" 2>/dev/null)" = "" ] || [ ! -e "$cache/suite/lib/regress.so" ]; then
	prepare_suite
else
	bf_say "suite of PostgreSQL $(cat "$cache/suite/version") cached in $cache/suite"
fi
srcver=$(cat "$cache/suite/version")

# ---- 2. the runs ----------------------------------------------------------------------------
# The servers must not run as root: the whole run happens in a directory of the user postgres
run=$cache/run
rm -rf "$run"
work=$(mktemp -d "${TMPDIR:-/tmp}/bf-pg-suite.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -a "$cache/suite/." "$work/"
as_server_user=()
if bf_is_root; then
	id postgres >/dev/null 2>&1 || bf_die "no user postgres to run the servers as"
	chown -R postgres: "$work"
	chmod 0755 "$work"
	as_server_user=(runuser -u postgres --)
fi

if [ "$PG_MAJOR" -ge 16 ]; then parallel_guc=debug_parallel_query; else parallel_guc=force_parallel_mode; fi
# (lists separated by spaces, commas or colons: roots.sh passes neither spaces nor commas
# into a root)
configs=${BF_PG_SUITE_CONFIGS:-base on always par}
configs=$(echo "$configs" | tr ",:" "  ")
[[ " $configs " == *" base "* ]] || configs="base $configs"
repeat_tests=${BF_PG_SUITE_REPEAT-join_hash}
repeat_tests=$(echo "$repeat_tests" | tr ",:" "  ")
repeats=${BF_PG_SUITE_REPEATS:-4}

# the schedule: the core one, or BF_PG_SUITE_TESTS; then the repetitions, as copies of the
# tests named <test>_rN (one line each: serial, after everything else)
{
	if [ -n "${BF_PG_SUITE_TESTS:-}" ]; then
		echo "test: test_setup"
		for t in $(echo "$BF_PG_SUITE_TESTS" | tr ",:" "  "); do echo "test: $t"; done
	else
		cat "$work/regress/parallel_schedule"
	fi
} >"$work/schedule.main"
: >"$work/schedule.repeat"
for t in $repeat_tests; do
	[ -e "$work/regress/sql/$t.sql" ] || { bf_warn "no test $t to repeat"; continue; }
	for ((i = 1; i <= repeats; i++)); do
		cp "$work/regress/sql/$t.sql" "$work/regress/sql/${t}_r$i.sql"
		cp "$work/regress/expected/$t.out" "$work/regress/expected/${t}_r$i.out"
		echo "test: ${t}_r$i" >>"$work/schedule.repeat"
	done
done
[ ${#as_server_user[@]} -eq 0 ] || chown -R postgres: "$work"

# BF_PG_SUITE_LIBRARY: the library to preload, a path to test a build without installing it
library=${BF_PG_SUITE_LIBRARY:-bloomfilter}
config_settings() {
	case $1 in
	base) ;;
	on) echo "shared_preload_libraries = '$library'" ;;
	always) printf '%s\n' "shared_preload_libraries = '$library'" "bloomfilter.join_filter = always" ;;
	par) printf '%s\n' "shared_preload_libraries = '$library'" "bloomfilter.join_filter = always" \
		"$parallel_guc = regress" ;;
	# (not run by default) always with the probe node above a sequential scan, no join scan
	noscan) printf '%s\n' "shared_preload_libraries = '$library'" "bloomfilter.join_filter = always" \
		"bloomfilter.prefetch_scan = off" ;;
	*) bf_die "unknown configuration $1 (base on always par noscan)" ;;
	esac
}
for cfg in $configs; do config_settings "$cfg" >/dev/null; done

# run_config NAME: the schedule (with the repetitions under always and par) in an instance of
# its own; its lines of output go to $work/NAME.out; exit 0 when pg_regress ran the schedule to
# its end, whatever the tests' outcomes
run_config() {
	local cfg=$1 out=$work/$1 t=$SECONDS rc=0
	mkdir -p "$out"
	{
		config_settings "$cfg"
		# (the same in every configuration; nothing the tests print depends on them)
		echo "fsync = off"
		echo "log_min_messages = warning"
	} >"$work/$cfg.conf"
	cat "$work/schedule.main" >"$work/$cfg.schedule"
	case $cfg in always | par | noscan) cat "$work/schedule.repeat" >>"$work/$cfg.schedule" ;; esac
	[ ${#as_server_user[@]} -eq 0 ] || chown -R postgres: "$out" "$work/$cfg.conf" "$work/$cfg.schedule"
	"${as_server_user[@]}" env LC_ALL=C.UTF-8 LANG=C.UTF-8 PGTZ= PGDATESTYLE= \
		"$pgxs_regress" --inputdir="$work/regress" --outputdir="$out" --dlpath="$work/lib" \
		--bindir="$work/bin" --temp-instance="$out/tmp_check" --temp-config="$work/$cfg.conf" \
		--max-concurrent-tests=20 --schedule="$work/$cfg.schedule" >"$out/pg_regress.log" 2>&1 || rc=$?
	{
		echo "$cfg ($(config_settings "$cfg" | tr '\n' ';' | sed 's/;$//; s/;/, /g'); $(grep -c . "$work/$cfg.schedule") schedule lines): $(
			grep -E 'tests? (passed|failed)' "$out/pg_regress.log" | sed 's/^[# ]*//; s/ *$//' | tail -n 1) ($((SECONDS - t)) s)"
		# a run that ended without its summary (the instance did not start, a crash stopped it)
		grep -qE 'tests? (passed|failed)' "$out/pg_regress.log" || {
			echo "    pg_regress did not finish (exit $rc):"
			tail -n 20 "$out/pg_regress.log" | sed 's/^/    /'
			return 1
		}
	} >"$work/$cfg.out"
}

# pg_regress's own verdict per test: "name ok|fail" (15: "test x ... ok", 16+: "ok 1 - x")
verdicts() {
	sed -nE 's/^(test +)?[ ]*([^ ]+) +\.\.\. +(ok|FAILED|failed).*/\2 \3/p;
		s/^(ok|not ok) +[0-9]+ +[-+] +([^ ]+) .*/\2 \1/p' "$1" |
		sed -E 's/ (FAILED|failed|not ok)$/ fail/'
}

tests_of() { # schedule: its tests, in order
	sed -n 's/^test: *//p' "$1" | tr ' ' '\n' | grep -v '^$'
}

bf_say "PostgreSQL $PG_MAJOR regression suite $srcver against the installed server $installed"
# BF_PG_SUITE_JOBS (default 2) configurations at a time, each in its own instance: much of the
# schedule waits on one backend, and the load makes races likelier, not less likely
jobs=${BF_PG_SUITE_JOBS:-2}
declare -A ran pid_of
# a pool of $jobs: the configurations with the repetitions (the longest: par runs every query in
# a worker) start first, so that the short ones run beside them rather than after them
pending=($(printf '%s\n' $configs | grep -xE 'par|always|noscan') $(printf '%s\n' $configs | grep -vxE 'par|always|noscan'))
running=0
start_next() {
	local cfg=${pending[0]}
	pending=("${pending[@]:1}")
	bf_say "running: $cfg"
	run_config "$cfg" &
	pid_of[$!]=$cfg
	running=$((running + 1))
}
while [ ${#pending[@]} -gt 0 ] || [ "$running" -gt 0 ]; do
	while [ ${#pending[@]} -gt 0 ] && [ "$running" -lt "$jobs" ]; do start_next; done
	done_pid= rc=0
	wait -n -p done_pid || rc=$?
	[ -n "$done_pid" ] || bf_die "lost track of the configurations' processes"
	running=$((running - 1))
	cfg=${pid_of[$done_pid]}
	if [ "$rc" -eq 0 ]; then ran[$cfg]=1; else ran[$cfg]=0; fi
	sed 's/^/    /' "$work/$cfg.out"
done

# ---- 3. the verdict -------------------------------------------------------------------------
base=$work/base
report=$work/report.txt
: >"$report"
verdicts "$base/pg_regress.log" >"$base/verdicts" 2>/dev/null || true
for cfg in $configs; do
	[ "$cfg" != base ] || continue
	out=$work/$cfg
	if [ "${ran[$cfg]}" != 1 ] || [ "${ran[base]}" != 1 ]; then
		echo "FAIL $cfg: the schedule did not run to its end (see above)"
		bf_record fail "pg-suite/$cfg/run"
		continue
	fi
	verdicts "$out/pg_regress.log" >"$out/verdicts"
	n_same=0 n_plan=0 n_fail=0 n_ok=0
	plan_tests=() fail_tests=()
	for t in $(tests_of "$work/$cfg.schedule"); do
		res=$out/results/$t.out
		# a repetition is compared with the baseline's run of the test it copies
		b=$base/results/$t.out
		[[ -e "$b" || ! "$t" =~ ^(.*)_r[0-9]+$ ]] || b=$base/results/${BASH_REMATCH[1]}.out
		if [ ! -e "$res" ]; then
			echo "FAIL $cfg/$t: no output"
			n_fail=$((n_fail + 1)); fail_tests+=("$t"); bf_record fail "pg-suite/$cfg/$t"
		elif [ -e "$b" ] && cmp -s "$b" "$res"; then
			n_same=$((n_same + 1)); bf_record pass "pg-suite/$cfg/$t"
		elif [ -e "$b" ] &&
			python3 "$BF_ROOT/scripts/pg-suite-classify.py" --quiet "$b" "$res" >/dev/null 2>&1; then
			n_plan=$((n_plan + 1)); plan_tests+=("$t"); bf_record pass "pg-suite/$cfg/$t"
			{
				echo "==== $cfg/$t: differs from the baseline in plan text only"
				python3 "$BF_ROOT/scripts/pg-suite-classify.py" "$b" "$res" || true
			} >>"$report"
		elif grep -qx "$t ok" "$out/verdicts" && ! grep -qx "$t ok" "$base/verdicts" 2>/dev/null; then
			# the baseline failed this test where the configuration gives an expected answer
			# (a test whose output varies from run to run)
			n_ok=$((n_ok + 1)); bf_record pass "pg-suite/$cfg/$t"
			echo "note: $cfg/$t: the baseline's output differs from the expected one, this configuration's does not" >>"$report"
		else
			n_fail=$((n_fail + 1)); fail_tests+=("$t"); bf_record fail "pg-suite/$cfg/$t"
			{
				echo "==== FAIL $cfg/$t: differs from the baseline in more than plan text"
				if [ ! -e "$b" ]; then
					echo "(the baseline has no output for $t)"
				else
					python3 "$BF_ROOT/scripts/pg-suite-classify.py" "$b" "$res" | head -n 300 || true
				fi
			} >>"$report"
		fi
	done
	echo "$cfg: $n_same tests as the baseline, $n_plan differing in plan text only$([ "$n_ok" -eq 0 ] || echo ", $n_ok as expected where the baseline was not"), $n_fail failed"
	[ ${#plan_tests[@]} -eq 0 ] || echo "    plan text only: ${plan_tests[*]}"
	[ ${#fail_tests[@]} -eq 0 ] || echo "    FAILED: ${fail_tests[*]}"
done

# crashes: any configuration's server log (the baseline's too: a crash there is the suite's)
for cfg in $configs; do
	log=$work/$cfg/log/postmaster.log
	crash=$(grep -E 'was terminated by signal|terminated by exception|PANIC:|^TRAP:|server process .* exited with exit code [^01]' "$log" 2>/dev/null | head -n 5) || true
	if [ -n "$crash" ]; then
		echo "FAIL $cfg: the server crashed:"
		echo "$crash" | sed 's/^/    /'
		bf_record fail "pg-suite/$cfg/crash"
	else
		bf_record pass "pg-suite/$cfg/crash"
	fi
done

# keep the run (not the instances) for a look afterwards
mkdir -p "$run"
for cfg in $configs; do
	mkdir -p "$run/$cfg"
	cp -a "$work/$cfg/results" "$work/$cfg/pg_regress.log" "$work/$cfg/log" "$run/$cfg/" 2>/dev/null || true
	cp -a "$work/$cfg/regression.diffs" "$run/$cfg/" 2>/dev/null || true
done
cp "$report" "$run/report.txt"
if grep -q '^==== FAIL' "$report"; then
	echo
	echo "======== differences that are not plan text (build/pg-suite/$PG_MAJOR/run/report.txt) ========"
	awk '/^==== FAIL/ { p = 1 } /^==== [^F]/ { p = 0 } p' "$report" | head -n 400 || true
	echo "======== end ========"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
