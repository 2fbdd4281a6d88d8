#!/usr/bin/env bash
# scripts/bench.sh - "make bench": the benchmark report, each ratio beside its target.
#
#   1. scripts/deps.sh, make all, make install (as "make demo" does), and the extension hll
#      (Debian package postgresql-$PG_MAJOR-hll, installed with apt-get when missing and root)
#      for the comparison with a peer aggregate
#   2. scripts/bench_server.sh inside one throwaway cluster (pg_virtualenv) with shared
#      buffers large enough to hold the table: the SQL comparisons
#   3. test/bench/bench_core.c, built against src/core/*.c: the core micro-benchmarks
#
# Timings on a shared machine are noisy, so every figure is a ratio of two things measured
# alternately in the same run, several times, with the median ratio printed beside its
# target ("meets target" / "above target").  Timing never fails the run: it exits non-zero
# only when something broke.  The report goes to the terminal and to build/bench-report.txt.
#
# Environment (optional):
#   BENCH_ROWS            rows of the URL table (default 10000000); e.g. 1000000 for a quick run
#   BENCH_REPEAT          pairs per comparison, rounds per core ratio (default 7)
#   BENCH_LOOP_SECONDS    most seconds one single-add PL/pgSQL loop may take (default 20)
#   BENCH_SHARED_BUFFERS  shared_buffers of the cluster (default 2GB: the 10M-row table is
#                         about 1 GB, and a sequential scan of a table larger than a quarter of
#                         shared buffers would otherwise read it from the OS cache every time)
#   BENCH_JOIN_SCALE      size of the tables of the join-filter comparisons against the issue's
#                         (default 1: 3 million probe rows, a 4-million-row fact table...); e.g.
#                         0.1 for a quick run
#   BENCH_TPCH_SCALE      TPC-H scale factor of the TPC-H-shaped part (default 0.1: 600,000
#                         lineitem rows; the part takes 3 to 6 minutes on 2 cores)
#   BENCH_TPCH_REPEAT     rounds per TPC-H query and setting (default BENCH_REPEAT if set, else 5)
#   BENCH_ONLY            one SQL part alone, without the core micro-benchmarks: "urls"
#                         (everything on the URL table), "join" (the automatic join filters)
#                         or "tpch" (the join filters on TPC-H-shaped tables and queries)
#   BENCH_CORE_SIZES      item counts of the core benchmarks (default "1000000 100000000")
#   BENCH_CORE_LOOKUPS    lookups per core figure (default 10000000)
#   BENCH_CORE_BUDGET     seconds one variant may take at the larger size (default 120)
#   BENCH_PORT            port of the throwaway cluster (default: a free one from 54320 up)
#   CC                    compiler of the core benchmark (default cc)

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bf_run_in_root_if_needed "$@"
cd "$BF_ROOT"

export BENCH_ROWS=${BENCH_ROWS:-10000000}
export BENCH_TPCH_REPEAT=${BENCH_TPCH_REPEAT:-${BENCH_REPEAT:-5}}
export BENCH_REPEAT=${BENCH_REPEAT:-7}
export BENCH_TPCH_SCALE=${BENCH_TPCH_SCALE:-0.1}
export BENCH_JOIN_SCALE=${BENCH_JOIN_SCALE:-1}
export BENCH_ONLY=${BENCH_ONLY:-}
CC=${CC:-cc}
core_sizes=${BENCH_CORE_SIZES:-1000000 100000000}
shared_buffers=${BENCH_SHARED_BUFFERS:-2GB}

t_start=$(date +%s)
elapsed() { echo $(($(date +%s) - t_start)); }

bash scripts/deps.sh
bf_resolve_pg_config

bf_say "make all"
"$MAKE" all PG_CONFIG="$PG_CONFIG"
bf_install

# The peer for the build comparison.  Not a build or test dependency, so it is installed
# here, and its absence only skips that one comparison.
hll_control="$("$PG_CONFIG" --sharedir)/extension/hll.control"
if [ ! -e "$hll_control" ] && { [ -z "$BENCH_ONLY" ] || [ "$BENCH_ONLY" = urls ]; }; then
	pkg=postgresql-$PG_MAJOR-hll
	if bf_is_root && command -v apt-get >/dev/null; then
		bf_say "installing $pkg (the peer of the build comparison)"
		export DEBIAN_FRONTEND=noninteractive
		lock=(-o DPkg::Lock::Timeout=300)
		apt-get "${lock[@]}" install -y --no-install-recommends "$pkg" ||
			{ apt-get "${lock[@]}" update && apt-get "${lock[@]}" install -y --no-install-recommends "$pkg"; } ||
			bf_warn "could not install $pkg: the comparison with hll_add_agg will be skipped"
	else
		bf_warn "$pkg is not installed (as root: apt-get install $pkg); the comparison with hll_add_agg will be skipped"
	fi
fi

mkdir -p build/bench
if [ -z "$BENCH_ONLY" ]; then
	bf_say "building the core benchmark build/bench/bench_core"
	"$CC" -std=c99 -O2 -Wall -Wextra -Isrc/core test/bench/bench_core.c src/core/*.c \
		-lxxhash -lm -o build/bench/bench_core
fi

export BENCH_REPORT=$BF_ROOT/build/bench-report.txt
{
	echo "bloomfilter benchmark report"
	echo "date:     $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "commit:   $(git -C "$BF_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$BF_ROOT" status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo ' (with uncommitted changes)')"
	echo "machine:  $(nproc) cores, $(awk '/^MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
	echo "settings: BENCH_ROWS=$BENCH_ROWS BENCH_REPEAT=$BENCH_REPEAT BENCH_JOIN_SCALE=$BENCH_JOIN_SCALE BENCH_TPCH_SCALE=$BENCH_TPCH_SCALE BENCH_TPCH_REPEAT=$BENCH_TPCH_REPEAT${BENCH_ONLY:+ BENCH_ONLY=$BENCH_ONLY} shared_buffers=$shared_buffers"
	echo "Timings share the machine with other work: read the ratios, each measured A/B side by side."
} | tee "$BENCH_REPORT"

# A port nobody listens on.  pg_virtualenv -t alone would take 5432 whenever no cluster of
# its own temporary directory has it, which collides with other throwaway clusters that run
# on this machine at the same time.
free_port() {
	local p
	for p in $(seq $((54320 + RANDOM % 500)) 55000) $(seq 54320 55000); do
		[ ! -e "/var/run/postgresql/.s.PGSQL.$p" ] || continue
		! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || continue
		echo "$p"
		return 0
	done
	echo 5432
}

status=0
# bench_server.sh touches this file when it starts: a failure before that is the cluster's
# (most likely a port taken in the meantime), and worth another try
export BENCH_STARTED=$BF_ROOT/build/bench/started
for attempt in 1 2 3; do
	rm -f "$BENCH_STARTED"
	port=${BENCH_PORT:-$(free_port)}
	bf_say "SQL benchmarks in a throwaway PostgreSQL $PG_MAJOR cluster (pg_virtualenv, port $port)"
	rc=0
	PGPORT=$port bf_virtualenv -o "shared_buffers=$shared_buffers" -o "max_wal_size=4GB" \
		-o "checkpoint_timeout=1h" -o "autovacuum=off" -o "max_worker_processes=8" \
		-o "max_parallel_workers=8" bash scripts/bench_server.sh || rc=$?
	if [ $rc -eq 0 ] || [ -e "$BENCH_STARTED" ] || [ $attempt -eq 3 ]; then
		break
	fi
	bf_warn "the throwaway cluster did not start (exit status $rc); trying again"
	sleep $((RANDOM % 10 + 5))
done
[ $rc -eq 0 ] || status=1
[ -e "$BENCH_STARTED" ] || echo "The SQL benchmarks did not run: the throwaway cluster did not start." | tee -a "$BENCH_REPORT"
rm -f "$BENCH_STARTED"
sql_seconds=$(elapsed)

if [ -z "$BENCH_ONLY" ]; then
	{
		echo
		echo "== Core micro-benchmarks (test/bench/bench_core.c: $CC -std=c99 -O2, src/core/*.c, no PostgreSQL)"
		t_core=$(date +%s)
		# shellcheck disable=SC2086  # the sizes are words
		build/bench/bench_core $core_sizes || { echo "bench_core failed"; exit 1; }
		echo "(core part: $(($(date +%s) - t_core)) s)"
	} 2>&1 | tee -a "$BENCH_REPORT" || status=1
else
	echo "(BENCH_ONLY=$BENCH_ONLY: no core micro-benchmarks)" | tee -a "$BENCH_REPORT"
fi

{
	echo
	echo "make bench: $(elapsed) s in all (set-up, build and SQL part: $sql_seconds s); report in build/bench-report.txt"
	[ $status -eq 0 ] || echo "make bench: something broke (see ERROR / DIFFERENT BYTES above)"
} | tee -a "$BENCH_REPORT"
exit $status
