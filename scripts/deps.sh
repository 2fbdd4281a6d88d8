#!/usr/bin/env bash
# scripts/deps.sh - make sure everything needed to build and test bloomfilter is installed.
#
# Checks for each dependency by the file it provides, so it costs nothing (and never calls
# apt-get) when everything is there.  Otherwise, as root, installs the missing Debian packages;
# as another user, prints the exact command to run and fails.

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

pgbin=/usr/lib/postgresql/$PG_MAJOR/bin
pgxs=/usr/lib/postgresql/$PG_MAJOR/lib/pgxs/src/makefiles/pgxs.mk
missing=()

# package, then a description of what was not found
need() {
	local pkg=$1
	shift
	echo "missing: $* (package $pkg)"
	missing+=("$pkg")
}

# libclang-rt-N-dev for the installed clang N, else the metapackage of the default clang
clang_rt_package() {
	local major
	major=$(clang --version 2>/dev/null | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n 1)
	if [ -n "$major" ]; then echo "libclang-rt-$major-dev"; else echo libclang-rt-dev; fi
}

check() {
	missing=()
	command -v gcc >/dev/null || need gcc "C compiler gcc"
	# gcc only recommends the C library headers, and we install without recommends
	[ -e /usr/include/stdio.h ] || need libc6-dev "C library headers /usr/include/stdio.h"
	command -v make >/dev/null || need make "make"
	# pg_config, pgxs.mk and pg_regress come with postgresql-client-$PG_MAJOR, a dependency
	# of the server headers package, which also brings clang/llvm for the JIT bitcode
	[ -e "/usr/include/postgresql/$PG_MAJOR/server/postgres.h" ] && [ -x "$pgbin/pg_config" ] && [ -e "$pgxs" ] ||
		need "postgresql-server-dev-$PG_MAJOR" "PostgreSQL $PG_MAJOR server headers and PGXS"
	[ -x "$pgbin/postgres" ] && [ -x "$pgbin/psql" ] ||
		need "postgresql-$PG_MAJOR" "PostgreSQL $PG_MAJOR server $pgbin/postgres"
	command -v pg_virtualenv >/dev/null || need postgresql-common "pg_virtualenv"
	[ -e /usr/include/xxhash.h ] || need libxxhash-dev "xxHash headers /usr/include/xxhash.h"
	# the independent STORAGE.md reader (test/reader) hashes with Debian's Python xxhash
	[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import xxhash' 2>/dev/null ||
		need python3-xxhash "Python xxhash module for /usr/bin/python3"
	# the differential oracle of the custom scans (test/cluster/oracle.sh) drives the server with psycopg2
	[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import psycopg2' 2>/dev/null ||
		need python3-psycopg2 "Python psycopg2 module for /usr/bin/python3"
	# test/cluster: pg_dump, pg_restore and pgbench (dump_restore.sh, concurrency.sh) and sqlsmith
	[ -x "$pgbin/pg_dump" ] && [ -x "$pgbin/pg_restore" ] && [ -x "$pgbin/pgbench" ] ||
		need "postgresql-client-$PG_MAJOR" "PostgreSQL $PG_MAJOR client tools pg_dump, pg_restore, pgbench"
	command -v sqlsmith >/dev/null || need sqlsmith "SQL fuzzer sqlsmith (test/cluster/sqlsmith.sh)"
	# the libFuzzer targets of the core (make fuzz, and a short pass in make test)
	command -v clang >/dev/null || need clang "C compiler clang (libFuzzer builds)"
	# the runtime of the installed clang (14 on Debian 12, 19 on 13, newer on unstable), or of
	# the distribution's default clang through the libclang-rt-dev metapackage
	local rt
	rt=$(clang -print-resource-dir 2>/dev/null) || rt=/nonexistent
	compgen -G "$rt/lib/*/libclang_rt.fuzzer*.a" >/dev/null ||
		need "$(clang_rt_package)" "libFuzzer runtime of clang (libclang_rt.fuzzer)"
	# Citus, built from its release tarball by scripts/citus.sh for test/cluster/citus.sh: it links
	# zstd, lz4 and curl, and PostgreSQL's libpq/libpq-be.h includes <gssapi/gssapi.h>
	[ -e /usr/include/lz4.h ] || need liblz4-dev "lz4 headers /usr/include/lz4.h (Citus build)"
	[ -e /usr/include/zstd.h ] || need libzstd-dev "zstd headers /usr/include/zstd.h (Citus build)"
	compgen -G "/usr/include/*/curl/curl.h" >/dev/null || [ -e /usr/include/curl/curl.h ] ||
		need libcurl4-openssl-dev "libcurl headers curl/curl.h (Citus build)"
	# PostgreSQL 17's utils/pg_locale.h includes ICU's unicode/ucol.h
	[ -e /usr/include/unicode/ucol.h ] || need libicu-dev "ICU headers /usr/include/unicode/ucol.h (Citus build)"
	[ -e /usr/include/gssapi/gssapi.h ] || need libkrb5-dev "GSSAPI headers /usr/include/gssapi/gssapi.h (Citus build)"
	return 0
}

check
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all build and test dependencies are installed"
	exit 0
fi

# postgresql-common may already be pulled in by another package; keep the list unique
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
opts=(-y --no-install-recommends)

if ! bf_is_root; then
	echo "error: missing packages, and installing them needs root. Run:" >&2
	echo "    sudo apt-get update && sudo apt-get install ${opts[*]} ${missing[*]}" >&2
	exit 1
fi
command -v apt-get >/dev/null || bf_die "apt-get not found: install ${missing[*]} (or their equivalents) by hand"

bf_say "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# wait for a dpkg lock held by e.g. unattended-upgrades on a freshly booted machine
lock=(-o DPkg::Lock::Timeout=300)
apt-get "${lock[@]}" update
apt-get "${lock[@]}" install "${opts[@]}" "${missing[@]}"

for pkg in "${missing[@]}"; do
	if [ "$pkg" = "postgresql-$PG_MAJOR" ] || [ "$pkg" = "postgresql-server-dev-$PG_MAJOR" ]; then
		echo "note: installing the PostgreSQL server may have created (and started) the default"
		echo "      cluster $PG_MAJOR/main on port 5432. The tests and the demo do not use it:"
		echo "      they run in a throwaway cluster. See pg_lsclusters; stop it with"
		echo "      'pg_ctlcluster $PG_MAJOR main stop' if you do not want it."
		break
	fi
done

check
[ ${#missing[@]} -eq 0 ] || bf_die "still missing after apt-get install: ${missing[*]}"
echo "deps: all build and test dependencies are installed"
