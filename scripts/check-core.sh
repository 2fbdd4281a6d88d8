#!/usr/bin/env bash
# scripts/check-core.sh - build and run the core unit tests, without PostgreSQL.
#
# Every test/core/*.c is a standalone program with its own main() that exits non-zero on
# failure.  Each is linked against all of src/core/*.c and run twice:
#   release   -std=c99 -O2 -Wall -Wextra
#   sanitize  the same plus AddressSanitizer (with leak detection) and UndefinedBehaviorSanitizer,
#             with BF_TEST_QUICK=1 in the environment so a test may shorten itself
# Binaries and logs go to build/core/<build>/.
#
# Environment (optional): CC (default cc), CORE_CFLAGS (extra flags for both builds),
# BF_CORE_TIMEOUT (seconds per test run, default 300), BF_VERBOSE=1 (show output of passing
# tests too), BF_TALLY (file that collects one "pass|fail 1 <name>" line per test run; used by
# scripts/test.sh for its summary).

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$BF_ROOT"

CC=${CC:-cc}
timeout_s=${BF_CORE_TIMEOUT:-300}
base_cflags=(-std=c99 -O2 -Wall -Wextra)
san_cflags=(-std=c99 -O1 -g -Wall -Wextra -fsanitize=address,undefined -fno-omit-frame-pointer
	-fno-sanitize-recover=all)
libs=(-lxxhash -lm)

shopt -s nullglob
tests=(test/core/*.c)
core_srcs=(src/core/*.c)

if [ ${#tests[@]} -eq 0 ]; then
	echo "check-core: no core tests in test/core/*.c yet, nothing to do"
	exit 0
fi

passed=0 # counted by bf_record (scripts/common.sh)
failed=0

# LeakSanitizer cannot run everywhere (under ptrace, in some containers); find out with a
# program that does not leak rather than fail every test for a reason that is not theirs.
lsan_works() {
	local dir=$1
	printf '#include <stdlib.h>\nint main(void) { free(malloc(1)); return 0; }\n' >"$dir/lsan_probe.c"
	"$CC" "${san_cflags[@]}" "$dir/lsan_probe.c" -o "$dir/lsan_probe" &&
		ASAN_OPTIONS=detect_leaks=1 "$dir/lsan_probe" >/dev/null 2>&1
}

# build name, then its compiler flags
run_build() {
	local build=$1
	shift
	local cflags=("$@" ${CORE_CFLAGS:-})
	local dir=build/core/$build
	local env=()
	local src obj name t start secs rc core_ok=1

	rm -rf "$dir"
	mkdir -p "$dir/obj"

	if [ "$build" = sanitize ]; then
		local leaks=1
		if ! lsan_works "$dir"; then
			bf_warn "LeakSanitizer does not work here; running the sanitizer build without leak detection"
			leaks=0
		fi
		env=(BF_TEST_QUICK=1
			"ASAN_OPTIONS=detect_leaks=$leaks:abort_on_error=0:${ASAN_OPTIONS:-}"
			"UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}")
	fi

	bf_say "core tests, $build build: $CC ${cflags[*]}"

	# the core is compiled once per build, into an archive the tests link against
	local objs=()
	for src in "${core_srcs[@]}"; do
		obj=$dir/obj/$(basename "${src%.c}").o
		"$CC" "${cflags[@]}" -Isrc/core -c "$src" -o "$obj" || core_ok=0
		objs+=("$obj")
	done
	if [ $core_ok = 1 ] && [ ${#objs[@]} -gt 0 ]; then
		ar rcs "$dir/libbfcore.a" "${objs[@]}" || core_ok=0
	fi

	for t in "${tests[@]}"; do
		name=$(basename "${t%.c}")
		if [ $core_ok = 0 ]; then
			echo "FAIL $build/$name (src/core did not compile)"
			bf_record fail "core/$build/$name"
			continue
		fi
		if ! "$CC" "${cflags[@]}" -Isrc/core "$t" ${objs[@]:+"$dir/libbfcore.a"} "${libs[@]}" \
			-o "$dir/$name"; then
			echo "FAIL $build/$name (did not compile)"
			bf_record fail "core/$build/$name"
			continue
		fi
		start=${EPOCHREALTIME//[!0-9]/}
		rc=0
		env ${env[@]+"${env[@]}"} timeout --kill-after=10 "$timeout_s" "$dir/$name" \
			</dev/null >"$dir/$name.log" 2>&1 || rc=$?
		secs=$(( (${EPOCHREALTIME//[!0-9]/} - start) / 10000 ))
		secs=$(printf '%d.%02d' $((secs / 100)) $((secs % 100)))
		if [ $rc -eq 0 ]; then
			echo "ok   $build/$name (${secs} s)"
			if [ "${BF_VERBOSE:-}" = 1 ]; then sed 's/^/     | /' "$dir/$name.log"; fi
			bf_record pass "core/$build/$name"
		else
			if [ $rc -eq 124 ]; then
				echo "FAIL $build/$name (timed out after ${timeout_s} s)"
			else
				echo "FAIL $build/$name (exit status $rc, ${secs} s); output:"
			fi
			sed 's/^/     | /' "$dir/$name.log"
			bf_record fail "core/$build/$name"
		fi
	done
}

run_build release "${base_cflags[@]}"
run_build sanitize "${san_cflags[@]}"

echo "check-core: $passed passed, $failed failed"
[ $failed -eq 0 ]
