# scripts/common.sh - shared settings and helpers, sourced by the other scripts in scripts/.
#
# Environment understood (all optional):
#   PG_MAJOR   PostgreSQL major version to build for and test against (default 15)
#   PG_CONFIG  pg_config to use (default /usr/lib/postgresql/$PG_MAJOR/bin/pg_config)
#   MAKE       make command (set by the Makefile)

set -euo pipefail

BF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PG_MAJOR=${PG_MAJOR:-15}
MAKE=${MAKE:-make}

bf_say() { printf '==> %s\n' "$*"; }
bf_warn() { printf 'warning: %s\n' "$*" >&2; }
bf_die() { printf 'error: %s\n' "$*" >&2; exit 1; }
bf_is_root() { [ "$(id -u)" = 0 ]; }

# bf_record pass|fail NAME: one test's outcome, counted in the caller's passed or failed and,
# when BF_TALLY names a file (scripts/test.sh's summary), added to it as "pass|fail 1 NAME"
bf_record() {
	if [ "$1" = pass ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
	if [ -n "${BF_TALLY:-}" ]; then echo "$1 1 $2" >>"$BF_TALLY"; fi
}

# Resolve PG_CONFIG once dependencies are in place (Debian's /usr/bin/pg_config follows the
# newest installed server, so prefer the versioned one).
bf_resolve_pg_config() {
	if [ -z "${PG_CONFIG:-}" ]; then
		if [ -x "/usr/lib/postgresql/$PG_MAJOR/bin/pg_config" ]; then
			PG_CONFIG="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config"
		else
			PG_CONFIG=pg_config
		fi
	fi
	command -v "$PG_CONFIG" >/dev/null || bf_die "pg_config not found (PG_CONFIG=$PG_CONFIG); run 'make deps'"
	export PG_CONFIG
}

# Are the built module, control file and install scripts exactly what is installed?
bf_installed_is_current() {
	local pkglibdir=$1 extdir=$2 f
	cmp -s "$BF_ROOT/bloomfilter.so" "$pkglibdir/bloomfilter.so" || return 1
	for f in "$BF_ROOT"/bloomfilter.control "$BF_ROOT"/bloomfilter--*.sql; do
		cmp -s "$f" "$extdir/$(basename "$f")" || return 1
	done
}

# make install, as root; otherwise only when the target directories are writable anyway, or
# when a root "make install" of this very build has already been done.
bf_install() {
	local pkglibdir sharedir
	pkglibdir=$("$PG_CONFIG" --pkglibdir)
	sharedir=$("$PG_CONFIG" --sharedir)
	if ! bf_is_root && ! { [ -w "$pkglibdir" ] && [ -w "$sharedir/extension" ]; }; then
		if bf_installed_is_current "$pkglibdir" "$sharedir/extension"; then
			bf_say "the installed extension is up to date (not root: skipping make install)"
			return 0
		fi
		echo "error: installing the extension into $pkglibdir needs root. Run:" >&2
		echo "    sudo $MAKE -C '$BF_ROOT' install PG_CONFIG='$PG_CONFIG'" >&2
		echo "then run this target again." >&2
		exit 1
	fi
	bf_say "make install (into $pkglibdir)"
	"$MAKE" -C "$BF_ROOT" install PG_CONFIG="$PG_CONFIG"
}

# Run a command inside a throwaway PostgreSQL $PG_MAJOR cluster.  -t keeps the cluster in a
# fresh temporary directory even as root: nothing under /etc/postgresql is touched and two
# runs on one machine (or a leftover 15/regress cluster) cannot collide.  The cluster locale
# is pinned so that test output does not depend on the caller's locale.
bf_virtualenv() {
	command -v pg_virtualenv >/dev/null || bf_die "pg_virtualenv not found; run 'make deps'"
	LC_ALL=C.UTF-8 LANG=C.UTF-8 pg_virtualenv -t -v "$PG_MAJOR" "$@"
}

# The Debian suite whose archive ships PostgreSQL $1 (the versions the tests run on).
bf_suite_of() {
	case $1 in
	15) echo bookworm ;;
	17) echo trixie ;;
	18) echo sid ;;
	*) echo unknown ;;
	esac
}

# Called first by test.sh, demo.sh and bench.sh: when PostgreSQL $PG_MAJOR is neither
# installed here nor shipped by this machine's Debian release, run the calling script again,
# with the same arguments, inside the Debian root that has it (scripts/roots.sh).
bf_run_in_root_if_needed() {
	[ -z "${BF_IN_ROOT:-}" ] || return 0
	[ -x "/usr/lib/postgresql/$PG_MAJOR/bin/postgres" ] && return 0
	local codename
	codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	[ "$codename" = "$(bf_suite_of "$PG_MAJOR")" ] && return 0
	bf_say "PostgreSQL $PG_MAJOR is not in this machine's Debian ($codename): running in its root"
	exec bash "$BF_ROOT/scripts/roots.sh" "$PG_MAJOR" run bash "scripts/$(basename "$0")" "$@"
}
