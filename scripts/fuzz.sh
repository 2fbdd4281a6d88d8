#!/usr/bin/env bash
# scripts/fuzz.sh - libFuzzer targets of the core (test/fuzz/fuzz_*.c).
#
#   fuzz.sh run      "make fuzz": install what is missing, build, then fuzz every target for
#                    FUZZ_SECONDS (default 300) each, starting from the checked-in corpus
#                    and the saved regressions that pass (one that still fails is reported
#                    and counted as a failure).  New interesting inputs collect in
#                    build/fuzz/corpus/<target>/ (kept between runs); an input that crashes,
#                    leaks, times out or trips UBSan is saved under
#                    test/fuzz/regressions/<target>/ and the run fails.
#   fuzz.sh check    the short pass of "make test": every corpus file and every regression
#                    input once through each target, then FUZZ_TEST_SECONDS (default 15) of
#                    fuzzing per target from the corpus; findings go to build/fuzz/artifacts/.
#   fuzz.sh corpus   "make fuzz-corpus": rebuild test/fuzz/corpus/ with test/fuzz/make_corpus.c
#   fuzz.sh build    only build the targets (build/fuzz/fuzz_<target>)
#
# Every target and the core are compiled with clang -g -O1 and
# -fsanitize=fuzzer,address,undefined (UBSan not recoverable, so undefined behaviour is a
# crash); LeakSanitizer reports leaks unless it cannot run here (then with a warning).
#
# Environment (optional): CLANG (default clang), FUZZ_SECONDS,
# FUZZ_TEST_SECONDS, FUZZ_TARGETS (default "open ops plan sparse"), FUZZ_TIMEOUT (seconds one
# input may take, default 10), FUZZ_FLAGS (extra libFuzzer flags, e.g. -jobs=4 -workers=4),
# BF_TALLY (see check-core.sh; one "pass|fail 1 fuzz/<target>/<stage>" line per stage).

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$BF_ROOT"

mode=${1:-run}
CLANG=${CLANG:-$(command -v clang || echo clang)}
targets=(${FUZZ_TARGETS:-open ops plan sparse})
seconds=${FUZZ_SECONDS:-300}
test_seconds=${FUZZ_TEST_SECONDS:-15}
timeout_s=${FUZZ_TIMEOUT:-10}
extra=(${FUZZ_FLAGS:-})

out=build/fuzz
src=test/fuzz
san=(-g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=all -Wall -Wextra)
libs=(-lxxhash -lm)

passed=0
failed=0

record() { bf_record "$1" "fuzz/$2"; } # pass|fail name

# -max_len per target: a whole filter for open and sparse, two filters and a script for ops
max_len() {
	case $1 in
		open | sparse) echo 1048576 ;;
		ops) echo 131072 ;;
		*) echo 256 ;;
	esac
}

build() {
	local t src_c obj objs=()

	command -v "$CLANG" >/dev/null || bf_die "clang not found (CLANG=$CLANG); run 'make deps'"
	rm -rf "$out/obj"
	mkdir -p "$out/obj" "$out/logs"
	bf_say "building fuzz targets: $CLANG ${san[*]} -fsanitize=fuzzer,address,undefined"
	# the core once, instrumented for coverage but without libFuzzer's main()
	for src_c in src/core/*.c; do
		obj=$out/obj/$(basename "${src_c%.c}").o
		"$CLANG" "${san[@]}" -fsanitize=fuzzer-no-link,address,undefined -Isrc/core \
			-c "$src_c" -o "$obj" || return 1
		objs+=("$obj")
	done
	for t in "${targets[@]}"; do
		"$CLANG" "${san[@]}" -fsanitize=fuzzer,address,undefined -Isrc/core \
			"$src/fuzz_$t.c" "${objs[@]}" "${libs[@]}" -o "$out/fuzz_$t" || return 1
	done
}

# LeakSanitizer cannot run everywhere (under ptrace, in some containers)
leak_flag() {
	printf '#include <stdlib.h>\nint main(void) { free(malloc(1)); return 0; }\n' \
		>"$out/lsan_probe.c"
	if "$CLANG" -fsanitize=address "$out/lsan_probe.c" -o "$out/lsan_probe" 2>/dev/null &&
		ASAN_OPTIONS=detect_leaks=1 "$out/lsan_probe" >/dev/null 2>&1; then
		echo -detect_leaks=1
	else
		bf_warn "LeakSanitizer does not work here; fuzzing without leak detection"
		echo -detect_leaks=0
	fi
}

# Existing input directories among the arguments
dirs_of() {
	local d
	for d in "$@"; do
		if [ -d "$d" ]; then echo "$d"; fi
	done
}

export ASAN_OPTIONS="abort_on_error=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"

# target, log, artifact dir, then libFuzzer arguments
run_target() {
	local t=$1 log=$2 artifacts=$3
	shift 3
	local dict=()
	mkdir -p "$artifacts"
	if [ "$t" != plan ]; then dict=(-dict="$src/fuzz.dict"); fi
	# (slow inputs below the timeout are not findings: keep them out of the artifacts)
	"$out/fuzz_$t" -max_len="$(max_len "$t")" -timeout="$timeout_s" -rss_limit_mb=4096 \
		-report_slow_units=1000000 "$leaks" -print_final_stats=1 \
		-artifact_prefix="$artifacts/" "${dict[@]}" \
		${extra[@]+"${extra[@]}"} "$@" >"$log" 2>&1
}

# The last status line of a libFuzzer log: runs, cov, ft, corpus
stats_of() {
	grep -E '^#[0-9]+[[:space:]]+(INITED|DONE|pulse|NEW|REDUCE|RELOAD)' "$1" | tail -1 |
		sed -E 's/^#([0-9]+)[[:space:]]+[A-Z]+[[:space:]]+/\1 runs, /; s/ lim: [0-9]+//; s/ (exec\/s|rss|L|MS):.*//'
}

report_failure() { # log, artifact dir
	echo "     output (last 40 lines of $1):"
	tail -40 "$1" | sed 's/^/     | /'
	if compgen -G "$2/*" >/dev/null; then
		echo "     inputs kept in $2/:"
		ls -1 "$2" | sed 's/^/       /'
	fi
}

# After a run_target (its exit status in rc): "ok   OK-TEXT", or "FAIL FAIL-TEXT (exit status
# rc)" and the failure; records the stage.  Succeeds when the run did.
outcome() { # stage, ok text, fail text, log, artifact dir
	if [ "$rc" -eq 0 ]; then
		echo "ok   $2"
		record pass "$1"
	else
		echo "FAIL $3 (exit status $rc)"
		report_failure "$4" "$5"
		record fail "$1"
		return 1
	fi
}

check() {
	local t stage start secs rc log artifacts corpora=() work
	local all_inputs
	mapfile -t all_inputs < <(dirs_of "$src"/corpus/fuzz_* "$src"/regressions/fuzz_*)

	for t in "${targets[@]}"; do
		artifacts=$out/artifacts/fuzz_$t

		# 1. every checked-in input once (an empty first directory takes anything
		#    libFuzzer would write)
		log=$out/logs/fuzz_$t.replay.log
		rm -rf "$out/replay"
		mkdir -p "$out/replay"
		start=$SECONDS
		rc=0
		run_target "$t" "$log" "$artifacts" -runs=0 "$out/replay" \
			${all_inputs[@]+"${all_inputs[@]}"} || rc=$?
		secs=$((SECONDS - start))
		outcome "fuzz_$t/replay" "fuzz_$t: corpus and regressions replayed ($(stats_of "$log"); ${secs} s)" \
			"fuzz_$t: replaying the corpus and regressions" "$log" "$artifacts" || true

		# 2. a short bounded run from the target's own corpus
		log=$out/logs/fuzz_$t.check.log
		work=$out/check/fuzz_$t
		rm -rf "$work"
		mkdir -p "$work"
		# (the regressions were replayed above: a failing one must not stop this run too)
		mapfile -t corpora < <(dirs_of "$src/corpus/fuzz_$t")
		start=$SECONDS
		rc=0
		run_target "$t" "$log" "$artifacts" -max_total_time="$test_seconds" "$work" \
			${corpora[@]+"${corpora[@]}"} || rc=$?
		secs=$((SECONDS - start))
		outcome "fuzz_$t/run" "fuzz_$t: fuzzed ${secs} s ($(stats_of "$log"))" \
			"fuzz_$t: fuzzing found a problem" "$log" "$artifacts" ||
			echo "     keep the input as a regression case: move it to $src/regressions/fuzz_$t/"
	done
}

# Saved regressions that pass become seeds (copied into the working corpus); one that
# still fails is reported and left out, since libFuzzer stops at a failing seed.
seed_regressions() { # target, regression dir, working corpus
	local t=$1 f bad=0
	for f in "$2"/*; do
		[ -f "$f" ] || continue
		if "$out/fuzz_$t" -timeout="$timeout_s" "$leaks" "$f" >/dev/null 2>&1; then
			cp "$f" "$3/"
		else
			echo "     still failing (left out of the seeds): $f"
			bad=$((bad + 1))
		fi
	done
	[ $bad -eq 0 ]
}

run() {
	local t rc log regressions work corpora=()

	for t in "${targets[@]}"; do
		regressions=$src/regressions/fuzz_$t
		work=$out/corpus/fuzz_$t
		log=$out/logs/fuzz_$t.run.log
		mkdir -p "$work"
		if seed_regressions "$t" "$regressions" "$work"; then
			record pass "fuzz_$t/regressions"
		else
			record fail "fuzz_$t/regressions"
		fi
		mapfile -t corpora < <(dirs_of "$src/corpus/fuzz_$t")
		bf_say "fuzz_$t for $seconds s (log: $log)"
		rc=0
		run_target "$t" "$log" "$regressions" -max_total_time="$seconds" "$work" \
			${corpora[@]+"${corpora[@]}"} || rc=$?
		grep -E '^(stat::|#[0-9]+[[:space:]]+DONE)' "$log" | sed 's/^/     /' || true
		outcome "fuzz_$t/run" "fuzz_$t ($(stats_of "$log"))" "fuzz_$t" "$log" "$regressions" || true
		# keep the directory only when it holds a finding
		rmdir "$regressions" 2>/dev/null || true
	done
}

# Written beside the committed corpus first, which is replaced only when
# make_corpus succeeds
corpus() {
	local t new=$out/corpus-new
	"$CLANG" -std=c99 "${san[@]}" -fsanitize=address,undefined -Isrc/core \
		"$src/make_corpus.c" src/core/*.c "${libs[@]}" -o "$out/make_corpus" || return 1
	rm -rf "$new"
	for t in open ops plan sparse; do
		mkdir -p "$new/fuzz_$t"
	done
	"$out/make_corpus" "$new" || return 1
	for t in open ops plan sparse; do
		rm -rf "$src/corpus/fuzz_$t"
		mv "$new/fuzz_$t" "$src/corpus/fuzz_$t"
	done
}

case $mode in
	run)
		bash scripts/deps.sh
		build || bf_die "the fuzz targets did not compile"
		leaks=$(leak_flag)
		run
		echo "fuzz: $passed passed, $failed failed"
		;;
	check)
		if ! build; then
			echo "FAIL the fuzz targets did not compile"
			record fail "build"
			exit 1
		fi
		leaks=$(leak_flag)
		check
		echo "fuzz: $passed passed, $failed failed"
		;;
	corpus)
		mkdir -p "$out"
		corpus || bf_die "make_corpus failed"
		;;
	build)
		build || bf_die "the fuzz targets did not compile"
		;;
	*)
		bf_die "usage: fuzz.sh run|check|corpus|build"
		;;
esac
[ $failed -eq 0 ]
